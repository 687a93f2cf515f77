import { useCallback, useEffect, useMemo, useRef, useState, type CSSProperties } from 'react';
import type { AppInfo, SortKey, SearchQuery } from '../../../../src-preload/contract';
import { useClient } from '../../api/ClientContext';
import { useQuery } from '../../api/useQuery';
import { Grid } from '../grid/Grid';
import { Splitter } from '../../ui/Splitter';
import { useAssetPages } from '../grid/useAssetPages';
import { Inspector } from '../inspector/Inspector';
import { useEdits } from '../inspector/useEdits';
import { Filters, activeFilterCount, type FilterState } from './Filters';
import { FilterSummary } from './FilterSummary';
import { FolderList, PathForm } from './FolderList';
import { TopBar } from './TopBar';
import { useFolders, useScanProgress } from './useFolders';
import { Loupe } from '../loupe/Loupe';
import { QueueRuns } from '../activity/QueueRuns';
import { useKeyboard } from '../../state/useKeyboard';
import { useSelection } from '../../state/useSelection';
import { useDebounced } from '../../state/useDebounced';
import { useDismiss } from '../../state/useDismiss';
import { isNumberIn, isOneOf, isPlainObject, usePersistentState } from '../../state/viewState';
import { useToast } from '../../ui/Toasts';
import { Button, IconButton, Spinner } from '../../ui/primitives';
import { IconGrid, IconInfo, IconLoupe, IconReview, IconThumbSize } from '../../ui/icons';
import { RunDialog, type RunKindUi, type RunScope } from '../keywording/RunDialog';
import { RunProgress } from '../keywording/RunProgress';
import { KeywordList } from '../keywords/KeywordList';
import { ReviewView } from '../review/ReviewView';
import { ExportCsvDialog } from '../writing/ExportCsvDialog';
import { WriteDialog } from '../writing/WriteDialog';
import { RenameDialog } from './RenameDialog';
import { ToolbarMore, useToolbarOverflow } from './ToolbarOverflow';
import { useLibraryReveal } from '../create/useLibraryReveal';
import { IconCull } from '../culling/IconCull';
import { AnalyseDialog, type AnalysisStarted } from '../analysis/AnalyseDialog';
import { AnalysisProgress } from '../analysis/AnalysisProgress';
import { CellDecorationsContext } from '../analysis/CellBadges';
import { QualityHistogramPanel } from '../analysis/QualityHistogram';
import { useFlagSets } from '../analysis/useAnalysis';
import { CullView } from '../culling/CullView';
import { CollectionList } from '../collections/CollectionList';
import { SaveSmartDialog } from '../collections/SaveSmartDialog';
import { useCollections } from '../collections/useCollections';
import type { CellInfo, GridDrag } from '../grid/Grid';
import type { CollectionInfo, SmartQuery } from '../../../../src-preload/contract';
import { CompareView } from '../compare/CompareView';
import { SurveyView } from '../compare/SurveyView';
import { IconCompare, IconSurvey } from '../compare/icons';
import { SimilarView } from '../similar/SimilarView';

type LibraryMode = 'grid' | 'loupe' | 'review' | 'cull' | 'compare' | 'survey' | 'similar';

type LibraryDialog = { kind: 'analyse'; scope: RunScope } | { kind: 'run'; run: RunKindUi; scope: RunScope } | { kind: 'write'; ids: number[] } | { kind: 'csv'; ids: number[] } | { kind: 'rename'; ids: number[] };

const isIdOrNull = (v: unknown): v is number | null => v === null || (typeof v === 'number' && Number.isInteger(v) && v > 0);

/** The library: folders and filters, the grid or loupe, the inspector. Stays mounted (and keeps its state) while another view is shown. */
/** Panel widths in px: what the splitters allow, and what a double-click goes back to. */
const PANELS = {
  sidebar: { min: 180, max: 480, default: 264 },
  inspector: { min: 240, max: 600, default: 300 },
} as const;

export function LibraryView({ active }: { active: boolean }) {
  const { api } = useClient();
  const toast = useToast();
  const folders = useFolders();
  const progress = useScanProgress();
  const appInfo = useQuery<AppInfo>('appInfo', [], (a) => a.appInfo());
  const edits = useEdits();

  const [text, setText] = useState('');
  const debouncedText = useDebounced(text.trim(), 150);
  // Filters, sort and thumbnail size are as the user left them, also after a restart.
  const [filters, setFilters] = usePersistentState<FilterState>('library.filters', {}, isPlainObject);
  const [sort, setSort] = usePersistentState<SortKey>('library.sort', 'takenAt', isOneOf<SortKey>('takenAt', 'name', 'addedAt', 'size', 'quality', 'ugcQuality', 'colorMatch', 'custom'));
  const [order, setOrder] = usePersistentState<'asc' | 'desc'>('library.order', 'desc', isOneOf('asc', 'desc'));
  const [thumbSize, setThumbSize] = usePersistentState('library.thumbSize', 180, isNumberIn(96, 360));
  // The cells' second line (Lightroom's "compact cell extras"), kept across restarts.
  const [cellInfo, setCellInfo] = usePersistentState<CellInfo>('library.cellInfo', 'details', isOneOf<CellInfo>('details', 'type'));
  // Panel widths (issue 14): dragged with the splitters, double-click resets, kept across restarts.
  const [sidebarWidth, setSidebarWidth] = usePersistentState('layout.sidebarWidth', PANELS.sidebar.default, isNumberIn(PANELS.sidebar.min, PANELS.sidebar.max));
  const [inspectorWidth, setInspectorWidth] = usePersistentState('layout.inspectorWidth', PANELS.inspector.default, isNumberIn(PANELS.inspector.min, PANELS.inspector.max));
  const [view, setViewState] = useState<LibraryMode>('grid');
  // Notices are about what was on screen: going to another view clears them.
  const viewNow = useRef(view);
  useEffect(() => {
    viewNow.current = view;
  });
  const clearNotices = toast.clear;
  const setView = useCallback(
    (v: LibraryMode) => {
      if (v !== viewNow.current) clearNotices();
      setViewState(v);
    },
    [clearNotices],
  );
  // Review, compare and survey use the whole width: no folders and filters; review has its own panel.
  const panelsHidden = view === 'review' || view === 'compare' || view === 'survey';
  const inspectorHidden = view === 'review';
  // The photo culling, compare (its active side) or survey (its active frame) shows: the inspector's photo there.
  const [inView, setInView] = useState<number | null>(null);
  // Similar groups folded like RAW+JPEG stacks (a view option, kept across restarts), and the groups opened.
  const [foldGroups, setFoldGroups] = usePersistentState('library.foldGroups', false, (v): v is boolean => typeof v === 'boolean');
  const [expandedGroups, setExpandedGroups] = useState<ReadonlySet<number>>(new Set());
  // "Find similar": the photo it started from (the view is 'similar' while it is shown), and the grid's context menu.
  const [similarTo, setSimilarTo] = useState<number | null>(null);
  // Where Escape or Back leaves "Find similar" for: the view it was opened from (grid or loupe).
  const [similarFrom, setSimilarFrom] = useState<'grid' | 'loupe'>('grid');
  const [cellMenu, setCellMenu] = useState<{ id: number; x: number; y: number } | null>(null);
  // What compare and survey show, fixed when they open (Lightroom: the selection at that moment).
  const [judging, setJudging] = useState<{ ids: number[]; select: number; candidate: number; key: number; group?: 'burst' | 'similar' }>({ ids: [], select: 0, candidate: 0, key: 0 });
  // The loupe's info overlay (I), kept while stepping from photo to photo.
  const [loupeInfo, setLoupeInfo] = useState(false);
  // Z in the grid opens the loupe at 100 % (Lightroom); E, Space or a double-click at fit.
  const [loupeZoomed, setLoupeZoomed] = useState(false);
  const [analysisRuns, setAnalysisRuns] = useState<AnalysisStarted[]>([]);
  const [showScores, setShowScores] = useState(false);
  const [review, setReview] = useState<{ ids: number[]; index: number }>({ ids: [], index: 0 });
  const [dialog, setDialog] = useState<LibraryDialog | null>(null);
  const [runIds, setRunIds] = useState<number[]>([]);
  const [showPathForm, setShowPathForm] = useState(false);
  const [cols, setCols] = useState(1);
  const searchRef = useRef<HTMLInputElement>(null);
  const collections = useCollections();
  // The target collection (Lightroom's quick-collection habit): B adds the selection to it.
  const [targetCollection, setTargetCollection] = usePersistentState<number | null>('library.targetCollection', null, isIdOrNull);
  const [savingSmart, setSavingSmart] = useState(false);
  const [editingSmart, setEditingSmart] = useState<CollectionInfo | null>(null);
  const collectionList = collections.list.data;
  const activeCollection = filters.collectionId !== undefined ? collectionList?.find((c) => c.id === filters.collectionId) : undefined;
  const inManual = activeCollection?.kind === 'manual';
  // "Custom order" is a manual collection's; anywhere else the timeline stands in for it.
  const sortUsed: SortKey = sort === 'custom' && !inManual ? 'takenAt' : sort;

  const query = useMemo<SearchQuery>(
    () => ({
      ...filters,
      ...(debouncedText ? { text: debouncedText } : {}),
      ...(foldGroups ? { foldGroups: true, ...(expandedGroups.size ? { expandedGroups: [...expandedGroups] } : {}) } : {}),
      sort: sortUsed,
      order,
    }),
    [filters, debouncedText, sortUsed, order, foldGroups, expandedGroups],
  );
  const toggleGroup = useCallback((groupId: number) => {
    setExpandedGroups((open) => {
      const next = new Set(open);
      if (next.has(groupId)) next.delete(groupId);
      else next.add(groupId);
      return next;
    });
  }, []);

  /** The filters in use as a smart collection's search. */
  const smartQuery = useMemo<SmartQuery>(() => {
    const q: Record<string, unknown> = { ...filters, ...(debouncedText ? { text: debouncedText } : {}) };
    for (const [k, v] of Object.entries(q)) if (v === undefined || v === false || (Array.isArray(v) && !v.length)) delete q[k];
    return q as SmartQuery;
  }, [filters, debouncedText]);
  const { store, total, version } = useAssetPages(query);
  const { sel, select, selectAll, clear, focusAt } = useSelection(store, version, toast.error);
  /** "Find similar" for one photo (the grid's or the loupe's menu, the loupe's button): the ranked view, left for where it came from. */
  const findSimilar = useCallback((id: number, from: 'grid' | 'loupe') => {
    setSimilarTo(id);
    setSimilarFrom(from);
    setCellMenu(null);
    setView('similar');
  }, [setView]);
  const onCellMenu = useCallback((index: number, x: number, y: number) => {
    const item = store.get(index);
    if (item) setCellMenu({ id: item.id, x, y });
  }, [store]);
  // The focused asset's row, once its page holds it at the focused place (while the list is
  // re-found after a change, the inspector still knows the asset by its id).
  const atFocus = sel.focus !== null ? store.get(sel.focus) : undefined;
  const focusItem = atFocus && atFocus.id === sel.focusId ? atFocus : undefined;
  const selectedIds = useMemo(() => [...sel.ids], [sel.ids]);
  const reorder = collections.reorder;
  const gridDrag = useMemo<GridDrag>(
    () => ({
      idsFor: (id) => (sel.ids.has(id) ? [...sel.ids] : [id]),
      reorder: activeCollection && inManual && sortUsed === 'custom' && order === 'asc' ? (ids, beforeId) => void reorder(activeCollection, ids, beforeId) : undefined,
    }),
    [sel.ids, activeCollection, inManual, sortUsed, order, reorder],
  );
  const flagSets = useFlagSets(total ? query : null);
  const cellDecorations = useMemo(() => ({ flags: flagSets, showScores }), [flagSets, showScores]);

  // "Show in library" from Create (a result, a source): select it, clearing a search that hides it.
  useLibraryReveal(store, {
    focusAt: (index, id) => {
      focusAt(index, id);
      if (view === 'review' || view === 'cull' || view === 'compare' || view === 'survey') setView('grid');
    },
    hasQuery: activeFilterCount(filters) > 0 || text.trim() !== '' || debouncedText !== '',
    clearQuery: () => {
      setFilters({});
      setText('');
      setView('grid');
    },
    onMissing: () => toast.info('That file is not in the library yet. It is selected as soon as it is indexed.'),
  });

  const addFolder = useCallback(async () => {
    const path = await folders.pickFolder();
    if (path) await folders.addFolder(path);
    // No native dialog (or it was cancelled): offer the path field.
    else if (path === null && appInfo.data?.native !== true) setShowPathForm(true);
  }, [folders, appInfo.data]);

  const targetIds = useCallback((): number[] => {
    if (sel.ids.size > 0) return [...sel.ids];
    return sel.focusId !== null ? [sel.focusId] : [];
  }, [sel.ids, sel.focusId]);

  /** Review the selection (in grid order), or everything shown when at most one photo is selected. */
  const openReview = useCallback(async () => {
    try {
      const all = await store.allIds();
      const ids = sel.ids.size > 1 ? all.filter((id) => sel.ids.has(id)) : all;
      if (!ids.length) return;
      const start = sel.focusId !== null ? Math.max(0, ids.indexOf(sel.focusId)) : 0;
      setReview({ ids, index: start });
      setView('review');
    } catch (err) {
      toast.error(err);
    }
  }, [setView, store, sel.ids, sel.focusId, toast]);

  /**
   * Compare (C): the focused photo is the select, the next one the candidate. With two or more
   * selected, candidates come from the selection; with one, from everything shown.
   */
  const openCompare = useCallback(async () => {
    try {
      const all = await store.allIds();
      const pool = sel.ids.size > 1 ? all.filter((id) => sel.ids.has(id)) : all;
      const select = sel.focusId !== null && pool.includes(sel.focusId) ? sel.focusId : pool[0];
      if (pool.length < 2 || select === undefined) {
        toast.info('Compare needs two photos: select them (Ctrl/Cmd or Shift+click), then press C.');
        return;
      }
      const at = pool.indexOf(select);
      const candidate = pool[at + 1] ?? pool[at - 1];
      setJudging((j) => ({ ids: pool, select, candidate, key: j.key + 1 }));
      setView('compare');
    } catch (err) {
      toast.error(err);
    }
  }, [setView, store, sel.ids, sel.focusId, toast]);

  /**
   * Survey (N): the selection, in grid order. With one photo selected: its group of similar
   * frames (a burst, or the same scene at any time), among the photos shown.
   */
  const openSurvey = useCallback(async () => {
    try {
      const all = await store.allIds();
      if (sel.ids.size >= 2) {
        const ids = all.filter((id) => sel.ids.has(id));
        setJudging((j) => ({ ids, select: ids[0], candidate: ids[1], key: j.key + 1 }));
        setView('survey');
        return;
      }
      const focus = sel.focusId;
      if (focus === null) {
        toast.info('Survey shows photos side by side: select two or more (Ctrl/Cmd or Shift+click), or one of a burst, then press N.');
        return;
      }
      const group = (await api.similarGroups({ ids: all })).find((g) => g.members.includes(focus));
      if (!group) {
        toast.info('This photo has no similar frames among the photos shown. Select two or more photos to survey them.');
        return;
      }
      setJudging((j) => ({ ids: group.members, select: group.members[0], candidate: group.members[1], key: j.key + 1, group: group.kind }));
      setView('survey');
    } catch (err) {
      toast.error(err);
    }
  }, [setView, api, store, sel.ids, sel.focusId, toast]);

  /** From "Find similar": back to the grid with that photo focused (when the search shows it). */
  const showInGrid = useCallback(
    async (id: number) => {
      setView('grid');
      try {
        const index = (await store.allIds()).indexOf(id);
        if (index >= 0) focusAt(index, id);
        else toast.info('That photo is not in the current results. Clear the search and filters to see it.');
      } catch (err) {
        toast.error(err);
      }
    },
    [setView, store, focusAt, toast],
  );

  /** E in compare or survey: the active photo in the loupe (focused in the grid behind it). */
  const loupeOn = useCallback(
    async (id: number) => {
      try {
        const index = (await store.allIds()).indexOf(id);
        if (index < 0) return;
        focusAt(index, id);
        setLoupeZoomed(false);
        setView('loupe');
      } catch (err) {
        toast.error(err);
      }
    },
    [setView, store, focusAt, toast],
  );

  const openRun = useCallback(
    (run: RunKindUi) => {
      const selected = targetIds();
      const hasQuery = total !== null && total > 0;
      if (!selected.length && !hasQuery) return;
      setDialog({ kind: 'run', run, scope: { selected, query: hasQuery ? { target: { query }, total: total! } : null } });
    },
    [targetIds, total, query],
  );

  const openAnalyse = useCallback(() => {
    const selected = targetIds();
    const hasQuery = total !== null && total > 0;
    if (!selected.length && !hasQuery) return;
    setDialog({ kind: 'analyse', scope: { selected, query: hasQuery ? { target: { query }, total: total! } : null } });
  }, [targetIds, total, query]);

  const openWith = useCallback(
    (kind: 'write' | 'csv') => {
      const ids = targetIds();
      if (!ids.length) {
        toast.info('Select the photos to write first (Ctrl+A selects everything shown).');
        return;
      }
      setDialog({ kind, ids });
    },
    [targetIds, toast],
  );

  /** Rename… (F2): the selection in grid order, so {seq} numbers follow what the user sees. */
  const openRename = useCallback(async () => {
    const ids = targetIds();
    if (!ids.length) {
      toast.info('Select the photos to rename first (Ctrl+A selects everything shown).');
      return;
    }
    try {
      const chosen = new Set(ids);
      const ordered = ids.length > 1 ? (await store.allIds()).filter((id) => chosen.has(id)) : ids;
      setDialog({ kind: 'rename', ids: ordered.length === ids.length ? ordered : ids });
    } catch (err) {
      toast.error(err);
    }
  }, [targetIds, store, toast]);

  const step = useCallback(
    (delta: number, shift = false) => {
      if (!total) return;
      const from = sel.focus ?? -1;
      const next = Math.max(0, Math.min(total - 1, from + delta));
      if (sel.focus === null && delta < 0) return;
      void select(next, { shift, toggle: false });
    },
    [sel.focus, total, select],
  );

  // The grid's context menu closes on any press elsewhere or Escape.
  useDismiss(cellMenu !== null, () => setCellMenu(null));

  useKeyboard(active && !cellMenu && view !== 'review' && view !== 'cull' && view !== 'compare' && view !== 'survey' && view !== 'similar', {
    focusSearch: () => {
      searchRef.current?.focus();
      searchRef.current?.select();
    },
    selectAll: () => void selectAll(),
    undo: () => void edits.undo(),
    move: (dx, dy, shift) => step(dx + dy * (view === 'grid' ? cols : 1), shift),
    grid: () => setView('grid'),
    loupe: () => {
      if (sel.focus === null) return;
      if (view !== 'loupe') setLoupeZoomed(false);
      setView('loupe');
    },
    escape: () => (view === 'loupe' ? setView('grid') : clear()),
    // In the loupe the keys judge the photo shown; in the grid, the selection.
    rate: (n) => {
      const ids = view === 'loupe' && sel.focusId !== null ? [sel.focusId] : targetIds();
      if (ids.length) void edits.setRating(ids, n);
    },
    // Pressing a label's key again takes it off (Lightroom): judged by the photo in focus.
    label: (l) => {
      const ids = view === 'loupe' && sel.focusId !== null ? [sel.focusId] : targetIds();
      if (ids.length) void edits.setLabel(ids, focusItem?.label === l ? null : l);
    },
    letters: {
      k: () => openRun('keywords'),
      c: () => void openCompare(),
      z: () => {
        if (view !== 'grid' || sel.focus === null) return;
        setLoupeZoomed(true);
        setView('loupe');
      },
      n: () => void openSurvey(),
      // S: open or close the focused photo's similar group (Lightroom's stack toggle), when groups are folded.
      s: () => {
        if (!foldGroups) {
          toast.info('Similar groups are not folded: turn on “Fold” below the grid first.');
          return;
        }
        const group = focusItem?.similarGroup;
        if (group) toggleGroup(group.id);
      },
      r: () => void openReview(),
      i: () => view === 'loupe' && setLoupeInfo((on) => !on),
      b: () => {
        const target = collectionList?.find((c) => c.id === targetCollection);
        if (!target) toast.info('Pick a target collection first: right-click a collection › Set as target collection.');
        else void collections.add(target, targetIds());
      },
      // In a collection, Delete takes the selection out of it (never deletes a file).
      delete: () => inManual && activeCollection && void collections.takeOut(activeCollection, targetIds()),
      backspace: () => inManual && activeCollection && void collections.takeOut(activeCollection, targetIds()),
      f2: () => void openRename(),
    },
  });

  // Folders dropped onto the window become library folders (Electron gives us their path).
  useEffect(() => {
    const over = (e: DragEvent) => {
      if (e.dataTransfer?.types.includes('Files')) e.preventDefault();
    };
    const drop = (e: DragEvent) => {
      const files = [...(e.dataTransfer?.files ?? [])];
      if (!files.length) return;
      e.preventDefault();
      if (!api.pathForFile) {
        toast.info('Dropping folders works in the desktop app. Use “Add folder by path” here.');
        setShowPathForm(true);
        return;
      }
      for (const f of files) {
        const path = api.pathForFile(f);
        if (path) void folders.addFolder(path);
      }
    };
    window.addEventListener('dragover', over);
    window.addEventListener('drop', drop);
    return () => {
      window.removeEventListener('dragover', over);
      window.removeEventListener('drop', drop);
    };
  }, [api, folders, toast]);

  const folderList = folders.folders.data;
  const noFolders = folderList !== undefined && folderList.length === 0;
  const scanning = progress.length > 0 || (folderList ?? []).some((f) => f.scanning);
  const kinds = filters.kinds ?? [];
  const noun = kinds.length === 1 && kinds[0] === 'video' ? 'videos' : kinds.length === 1 && kinds[0] === 'audio' ? 'audio files' : 'photos';
  const hasQuery = activeFilterCount(filters) > 0 || !!debouncedText;

  let centre;
  if (noFolders) {
    centre = (
      <div className="empty-state" data-testid="empty-no-folders">
        <h1>Add a folder of photos to get started</h1>
        <p>Tagsmith indexes your folders in place. It reads your photos and videos and never changes or moves them.</p>
        <Button variant="primary" onClick={() => void addFolder()} data-testid="empty-add-folder">
          Add folder…
        </Button>
        <div className="empty-path">
          <span className="muted small">or type its path</span>
          <PathForm placeholder="/path/to/photos" submitLabel="Add" testId="empty-add" onSubmit={(p) => folders.addFolder(p)} />
        </div>
        <p className="muted small">You can also drop a folder onto this window.</p>
      </div>
    );
  } else if (total === 0 && !hasQuery) {
    centre = (
      <div className="empty-state" data-testid="empty-library">
        {scanning ? <Spinner label="Scanning" /> : null}
        <h1>{scanning ? 'Looking for photos…' : 'No photos found yet'}</h1>
        <p>{scanning ? 'Photos appear here as they are indexed.' : 'The folders in the library contain no photos, videos or audio Tagsmith can read. Add another folder or rescan.'}</p>
      </div>
    );
  } else if (total === 0) {
    centre = (
      <div className="empty-state" data-testid="empty-no-results">
        <h1>No photos match</h1>
        <p>Nothing in the library matches this search and these filters.</p>
        <Button
          variant="primary"
          data-testid="empty-clear-filters"
          onClick={() => {
            setFilters({});
            setText('');
          }}
        >
          Clear filters
        </Button>
      </div>
    );
  } else if (total === null) {
    centre = (
      <div className="empty-state">
        <Spinner label="Loading" />
      </div>
    );
  } else if (view === 'review' && review.ids.length > 0) {
    centre = <ReviewView ids={review.ids} index={review.index} onIndex={(index) => setReview((r) => ({ ...r, index }))} onExit={() => setView('grid')} active={active} />;
  } else if (view === 'compare' && judging.ids.length > 1) {
    centre = <CompareView key={judging.key} ids={judging.ids} select={judging.select} candidate={judging.candidate} flags={flagSets} active={active} onExit={() => setView('grid')} onLoupe={(id) => void loupeOn(id)} onActive={setInView} />;
  } else if (view === 'survey' && judging.ids.length > 1) {
    centre = <SurveyView key={judging.key} ids={judging.ids} groupKind={judging.group} flags={flagSets} active={active} onExit={() => setView('grid')} onLoupe={(id) => void loupeOn(id)} onActive={setInView} />;
  } else if (view === 'similar' && similarTo !== null) {
    centre = <SimilarView key={similarTo} assetId={similarTo} active={active} onExit={() => setView(similarFrom === 'loupe' && sel.focus !== null ? 'loupe' : 'grid')} onShow={(id) => void showInGrid(id)} />;
  } else if (view === 'cull') {
    centre = <CullView query={query} active={active} onExit={() => setView('grid')} onFocus={setInView} />;
  } else if (view === 'loupe' && sel.focus !== null) {
    centre = (
      <Loupe
        item={focusItem}
        index={sel.focus}
        total={total}
        onStep={(d) => step(d)}
        info={loupeInfo}
        zoomed={loupeZoomed}
        onFindSimilar={(id) => findSimilar(id, 'loupe')}
        onMenu={(id, x, y) => setCellMenu({ id, x, y })}
        store={store}
      />
    );
  } else {
    centre = (
      <CellDecorationsContext.Provider value={cellDecorations}>
      <Grid
        store={store}
        total={total}
        version={version}
        thumbSize={thumbSize}
        info={cellInfo}
        selected={sel.ids}
        focus={sel.focus}
        onSelect={(i, m) => void select(i, m)}
        onOpen={(i) => {
          void select(i, { shift: false, toggle: false });
          setLoupeZoomed(false);
          setView('loupe');
        }}
        onColumns={setCols}
        drag={gridDrag}
        expandedGroups={foldGroups ? expandedGroups : null}
        onToggleGroup={toggleGroup}
        onCellMenu={onCellMenu}
      />
      </CellDecorationsContext.Provider>
    );
  }

  // Fold and Scores: in the toolbar while it has room, else in its More menu (the same controls).
  const viewOptions = (inMenu: boolean) => (
    <>
      <label className="score-toggle small" title="Show each group of similar frames (a burst, the same scene) as one photo, its pick or best frame, with a count badge; S or the badge opens it">
        <input
          type="checkbox"
          checked={foldGroups}
          onChange={(e) => {
            setFoldGroups(e.target.checked);
            setExpandedGroups(new Set());
          }}
          data-testid="toggle-fold-groups"
          aria-label="Fold similar groups"
        />
        {inMenu ? 'Fold similar groups' : 'Fold'}
      </label>
      <label className="score-toggle small" title="Show the stock quality % and the everyday quality class on the thumbnails">
        <input type="checkbox" checked={showScores} onChange={(e) => setShowScores(e.target.checked)} data-testid="toggle-scores" />
        {inMenu ? 'Show scores on thumbnails' : 'Scores'}
      </label>
    </>
  );
  const toolbarRef = useRef<HTMLElement>(null);
  const optionsRef = useRef<HTMLDivElement>(null);
  const moreRef = useRef<HTMLButtonElement>(null);
  const selectionText = view === 'grid' && sel.ids.size > 0 ? `${sel.ids.size.toLocaleString()} selected` : '';
  const optionsFolded = useToolbarOverflow(toolbarRef, optionsRef, moreRef, selectionText);
  return (
    <>
      <TopBar
        active={active}
        searchRef={searchRef}
        text={text}
        onText={setText}
        sort={sort}
        order={order}
        onSort={setSort}
        onOrder={setOrder}
        total={noFolders ? null : total}
        noun={noun}
        progress={progress}
        onCancelScan={() => void api.cancelScan().catch(toast.error)}
        customOrder={inManual}
        viewOptions={<IconButton
                label={cellInfo === 'details' ? 'Below each thumbnail: capture date · size · stars. Click for the file type instead' : 'Below each thumbnail: file type · stars. Click for the capture date and size instead'}
                className={cellInfo === 'details' ? 'on' : ''}
                aria-pressed={cellInfo === 'details'}
                onClick={() => setCellInfo(cellInfo === 'details' ? 'type' : 'details')}
                data-testid="cell-info-toggle"
                data-info={cellInfo}
              >
                <IconInfo />
              </IconButton>}
      >
        <RunProgress runIds={runIds.slice(0, 1)} onReview={() => void openReview()} onDismiss={(id) => setRunIds((l) => l.filter((x) => x !== id))} />
        <AnalysisProgress runs={analysisRuns} onDismiss={(b) => setAnalysisRuns((l) => l.filter((r) => r.run.batchId !== b))} />
        <QueueRuns exceptRuns={runIds.slice(0, 1)} exceptBatches={analysisRuns.map((r) => r.run.batchId)} />
      </TopBar>
      <div className="workspace" style={{ '--sidebar-w': `${sidebarWidth}px`, '--inspector-w': `${inspectorWidth}px` } as CSSProperties}>
        <aside className="sidebar" data-testid="sidebar" hidden={panelsHidden}>
          <FilterSummary
            filters={filters}
            onChange={setFilters}
            collectionName={activeCollection?.name}
            onSaveSmart={() => setSavingSmart(true)}
            editing={
              editingSmart
                ? {
                    name: editingSmart.name,
                    onSave: () => {
                      const c = editingSmart;
                      void collections.setQuery(c, smartQuery).then((saved) => {
                        if (!saved) return;
                        setEditingSmart(null);
                        setText('');
                        setFilters({ collectionId: c.id });
                      });
                    },
                    onCancel: () => {
                      setEditingSmart(null);
                      setFilters({ collectionId: editingSmart.id });
                    },
                  }
                : undefined
            }
          />
          <FolderList
            folders={folders}
            progress={progress}
            activeFolder={filters.folderId}
            onActivate={(id) => setFilters((f) => ({ ...f, folderId: id }))}
            showPathForm={showPathForm}
            setShowPathForm={setShowPathForm}
            onAdd={() => void addFolder()}
          />
          <CollectionList
            collections={collections}
            activeId={filters.collectionId}
            onActivate={(c) => {
              setEditingSmart(null);
              setFilters((f) => ({ ...f, collectionId: c?.id, folderId: c ? undefined : f.folderId }));
            }}
            targetId={targetCollection}
            onTarget={setTargetCollection}
            selectedIds={targetIds}
            onEditSearch={(c) => {
              setEditingSmart(c);
              setText(c.query?.text ?? '');
              const q: FilterState = { ...(c.query ?? {}) };
              delete (q as SmartQuery).text;
              setFilters(q);
            }}
            smartFromFilters={smartQuery}
          />
          {/* The filters narrow the grid: in the single-photo views (loupe, culling) they are put away, as in Lightroom. */}
          {view !== 'loupe' && view !== 'cull' && (
            <>
              <Filters filters={filters} onChange={setFilters} />
              <QualityHistogramPanel query={query} total={total} filters={filters} onChange={setFilters} />
            </>
          )}
          <KeywordList
            active={filters.keywords ?? []}
            onFilter={(name) => setFilters((f) => ({ ...f, keywords: name ? [name] : undefined }))}
            // Its boxes assign to the photos the inspector edits: the selection in the grid, else the photo in view.
            targets={view === 'grid' && selectedIds.length > 1 ? selectedIds : [view === 'grid' || view === 'loupe' || view === 'similar' ? sel.focusId : inView].filter((id): id is number => id !== null)}
          />
        </aside>
        {!panelsHidden && (
          <Splitter side="left" width={sidebarWidth} min={PANELS.sidebar.min} max={PANELS.sidebar.max} defaultWidth={PANELS.sidebar.default} onWidth={setSidebarWidth} label="Sidebar width" testId="splitter-sidebar" />
        )}
        <main className="centre">
          <div className="centre-body">{centre}</div>
          <footer className="toolbar" ref={toolbarRef}>
            <div className="segmented" role="group" aria-label="View">
              <IconButton label="Grid (G)" className={view === 'grid' ? 'on' : ''} onClick={() => setView('grid')} data-testid="view-grid">
                <IconGrid />
              </IconButton>
              <IconButton label="Loupe (E)" className={view === 'loupe' ? 'on' : ''} disabled={sel.focus === null} onClick={() => {
                if (view !== 'loupe') setLoupeZoomed(false);
                setView('loupe');
              }} data-testid="view-loupe">
                <IconLoupe />
              </IconButton>
              <IconButton label="Review suggestions (R)" className={view === 'review' ? 'on' : ''} disabled={!total} onClick={() => (view === 'review' ? setView('grid') : void openReview())} data-testid="view-review">
                <IconReview />
              </IconButton>
              <IconButton label="Compare two (C)" className={view === 'compare' ? 'on' : ''} disabled={!total || total < 2} onClick={() => (view === 'compare' ? setView('grid') : void openCompare())} data-testid="view-compare">
                <IconCompare />
              </IconButton>
              <IconButton label="Survey the selection, or the focused photo's similar frames (N)" className={view === 'survey' ? 'on' : ''} disabled={sel.focusId === null && sel.ids.size < 2 && view !== 'survey'} onClick={() => (view === 'survey' ? setView('grid') : void openSurvey())} data-testid="view-survey">
                <IconSurvey />
              </IconButton>
              <IconButton label="Cull best-first or worst-first (P pick, X reject)" className={view === 'cull' ? 'on' : ''} disabled={!total} onClick={() => setView(view === 'cull' ? 'grid' : 'cull')} data-testid="action-cull">
                <IconCull />
              </IconButton>
            </div>
            <div className="toolbar-actions">
              <Button small onClick={() => openRun('keywords')} disabled={!total} title="Keyword the selection (K)" data-testid="action-keyword">
                Keyword…
              </Button>
              <Button small onClick={() => openRun('caption')} disabled={!total} title="Caption the selection" data-testid="action-caption">
                Caption…
              </Button>
              <Button small onClick={openAnalyse} disabled={!total} title="Analyse quality, faces and colours" data-testid="action-analyse">
                Analyse…
              </Button>
              <span className="toolbar-sep" />
              <Button small onClick={() => openWith('write')} disabled={!total} title="Write to files: keywords, captions and titles into the files themselves (IPTC/XMP)" data-testid="action-write">
                Write…
              </Button>
              <Button small onClick={() => openWith('csv')} disabled={!total} title="Check the photos against a stock agency's rules, then export its upload CSV or send them" data-testid="action-csv">
                Check & export…
              </Button>
            </div>

            <span className="muted small" data-testid="selection-summary">
              {selectionText}
            </span>
            <div className="topbar-spacer" />
            {!optionsFolded && (
              <div className="toolbar-options" ref={optionsRef}>
                {viewOptions(false)}
              </div>
            )}
            <label className="thumb-size" title="Thumbnail size">
              <IconThumbSize />
              <input type="range" min={96} max={360} step={4} value={thumbSize} onChange={(e) => setThumbSize(Number(e.target.value))} data-testid="thumb-size" aria-label="Thumbnail size" />
            </label>
            {optionsFolded && <ToolbarMore buttonRef={moreRef}>{viewOptions(true)}</ToolbarMore>}
          </footer>
        </main>
        {!inspectorHidden && (
          <Splitter side="right" width={inspectorWidth} min={PANELS.inspector.min} max={PANELS.inspector.max} defaultWidth={PANELS.inspector.default} onWidth={setInspectorWidth} label="Inspector width" testId="splitter-inspector" />
        )}
        {!inspectorHidden && <Inspector
          // The panel belongs to the photo in view: several photos are edited at once only in the grid.
          focusId={view === 'grid' || view === 'loupe' || view === 'similar' ? sel.focusId : inView}
          selectedIds={view === 'grid' ? selectedIds : []}
          loupe={view === 'loupe'}
          onJump={async (id) => {
            try {
              const index = (await store.allIds()).indexOf(id);
              if (index >= 0) focusAt(index, id);
              else toast.info('That file is not in the current results. Clear the search and filters to see it.');
            } catch (err) {
              toast.error(err);
            }
          }}
        />}
      </div>
      {dialog?.kind === 'run' && (
        <RunDialog kind={dialog.run} scope={dialog.scope} onClose={() => setDialog(null)} onStarted={(r) => setRunIds((l) => [r.runId, ...l.filter((x) => x !== r.runId)])} />
      )}
      {savingSmart && (
        <SaveSmartDialog
          collections={collections}
          query={smartQuery}
          onClose={() => setSavingSmart(false)}
          onSaved={(c) => {
            setSavingSmart(false);
            setText('');
            setFilters({ collectionId: c.id });
          }}
        />
      )}
      {cellMenu && (
        <div className="context-menu" role="menu" style={{ left: cellMenu.x, top: cellMenu.y }} data-testid="grid-menu" onMouseDown={(e) => e.stopPropagation()}>
          <button
            type="button"
            role="menuitem"
            data-testid="menu-find-similar"
            onClick={() => findSimilar(cellMenu.id, view === 'loupe' ? 'loupe' : 'grid')}
          >
            Find similar
          </button>
        </div>
      )}
      {dialog?.kind === 'write' && <WriteDialog ids={dialog.ids} onClose={() => setDialog(null)} />}
      {dialog?.kind === 'csv' && <ExportCsvDialog ids={dialog.ids} onClose={() => setDialog(null)} />}
      {dialog?.kind === 'rename' && (
        <RenameDialog
          ids={dialog.ids}
          onClose={() => setDialog(null)}
          onRenamed={(r) => {
            setDialog(null);
            if (r.failed.length) toast.error(`${r.renamed.length} renamed; ${r.failed.length} could not be: ${r.failed[0].path}: ${r.failed[0].reason}`);
            else toast.info(`Renamed ${r.renamed.length} file${r.renamed.length === 1 ? '' : 's'}.`, { undo: () => void edits.undo() });
          }}
        />
      )}
      {dialog?.kind === 'analyse' && <AnalyseDialog scope={dialog.scope} onClose={() => setDialog(null)} onStarted={(s) => setAnalysisRuns((l) => [...s, ...l.filter((r) => !s.some((n) => n.run.batchId === r.run.batchId))])} />}
    </>
  );
}
