import { createContext, memo, useContext, useEffect, useLayoutEffect, useRef, useState, type MouseEvent } from 'react';
import { ASSETS_TYPE, draggedIds, isAssetDrag } from '../collections/dragAssets';
import type { AgencyId, AssetSummary } from '../../../../src-preload/contract';
import { useClient } from '../../api/ClientContext';
import { LabelDot } from '../../ui/ColorLabel';
import { Stars } from '../../ui/Stars';
import { IconAudio, IconPlay, IconWarn } from '../../ui/icons';
import { formatCaptureDate } from '../../ui/format';
import { formatDuration } from '../../ui/primitives';
import { splitName, useCellState } from './cellState';
import { AGENCY_NAMES } from '../activity/labels';
import type { Modifiers } from '../../state/useSelection';
import type { PageStore } from './pageStore';
import { CellAnalysisBadges } from '../analysis/CellBadges';

// A virtualised grid: fixed-size cells, only the rows in view (plus a little overscan) are
// in the DOM, and only their pages are fetched. 100k results cost the same as 100.

const META_H = 38;
const GAP = 6;
const OVERSCAN_ROWS = 3;
const VISIBLE_DEBOUNCE_MS = 150;

/**
 * Dragging cells: onto a collection in the sidebar (any time), and within the grid to change
 * a collection's custom order (only when `reorder` is given).
 */
export interface GridDrag {
  /** What a drag starting on this asset carries: the whole selection when it is part of it. */
  idsFor(id: number): number[];
  reorder?: (ids: number[], beforeId: number) => void;
}

const DragContext = createContext<GridDrag | null>(null);

export type CellInfo = 'details' | 'type';

interface GridProps {
  drag?: GridDrag;
  store: PageStore;
  total: number;
  version: number;
  thumbSize: number;
  /** The cell's second line: capture date · dimensions · stars, or the file type and stars. */
  info?: CellInfo;
  selected: ReadonlySet<number>;
  focus: number | null;
  onSelect(index: number, mods: Modifiers): void;
  onOpen(index: number): void;
  onColumns(cols: number): void;
  /** Similar groups folded (the ids of the groups opened), or null when they are not folded. */
  expandedGroups?: ReadonlySet<number> | null;
  /** The count badge of a folded group was clicked: open or close it. */
  onToggleGroup?(groupId: number): void;
  /** A right-click on a cell (its menu: Find similar…). */
  onCellMenu?(index: number, x: number, y: number): void;
}

export function Grid({ store, total, version, thumbSize, info = 'details', selected, focus, onSelect, onOpen, onColumns, drag, expandedGroups, onToggleGroup, onCellMenu }: GridProps) {
  const ref = useRef<HTMLDivElement>(null);
  const [size, setSize] = useState({ width: 0, height: 0 });
  // Kept only as precisely as rendering needs: scrolling within a row renders nothing, so a
  // fast scroll costs one render per row crossed instead of one per scroll event (and the
  // overscan covers the part of a row it lags behind).
  const [scrollTop, setScrollTop] = useState(0);

  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const measure = () => setSize({ width: el.clientWidth, height: el.clientHeight });
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  const inner = Math.max(0, size.width - GAP);
  const cols = Math.max(1, Math.floor(inner / (thumbSize + GAP)));
  const cellW = Math.floor(inner / cols) - GAP;
  // The picture area is 4:3, so a landscape photo fills the cell's width (a portrait its height).
  const thumbH = Math.round(cellW * 0.75);
  const cellH = thumbH + META_H;
  const rowH = cellH + GAP;
  const rows = Math.ceil(total / cols);
  const firstRow = Math.max(0, Math.floor(scrollTop / rowH) - OVERSCAN_ROWS);
  const lastRow = Math.min(rows - 1, Math.ceil((scrollTop + size.height) / rowH) + OVERSCAN_ROWS);
  const onScroll = (top: number) => {
    if (Math.floor(top / rowH) !== Math.floor(scrollTop / rowH)) setScrollTop(top);
  };

  useEffect(() => onColumns(cols), [cols, onColumns]);

  // Tell main which assets are on screen (the middle rows first, then the overscan), so
  // their full thumbnails are made before any other's. Coalesced: a fast scroll sends once
  // it settles, and the same cells are never sent twice in a row.
  const { api } = useClient();
  const sentVisible = useRef('');
  useEffect(() => {
    if (size.height <= 0 || total === 0 || typeof api.setVisibleAssets !== 'function') return;
    const timer = setTimeout(() => {
      const mid = (scrollTop + size.height / 2) / rowH;
      const rowsInView: number[] = [];
      for (let r = firstRow; r <= lastRow; r++) rowsInView.push(r);
      rowsInView.sort((a, b) => Math.abs(a + 0.5 - mid) - Math.abs(b + 0.5 - mid));
      const ids: number[] = [];
      for (const r of rowsInView) {
        for (let c = 0; c < cols; c++) {
          const item = r * cols + c < total ? store.get(r * cols + c) : undefined;
          if (item) ids.push(item.id);
        }
      }
      const key = ids.join(',');
      if (key === sentVisible.current) return;
      sentVisible.current = key;
      api.setVisibleAssets({ ids }).catch(() => undefined); // only an ordering hint
    }, VISIBLE_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [api, store, firstRow, lastRow, cols, rowH, total, scrollTop, size.height, version]);

  useEffect(() => {
    if (size.height > 0 && total > 0) store.ensureRange(firstRow * cols, (lastRow + 1) * cols - 1);
  }, [store, firstRow, lastRow, cols, total, size.height, version]);

  // Keep the focused cell in view when it moves by keyboard.
  useEffect(() => {
    const el = ref.current;
    if (focus === null || !el) return;
    const top = Math.floor(focus / cols) * rowH;
    if (top < el.scrollTop) el.scrollTop = top;
    else if (top + rowH > el.scrollTop + el.clientHeight) el.scrollTop = top + rowH - el.clientHeight + GAP;
  }, [focus, cols, rowH]);

  const cells = [];
  if (size.width > 0) {
    for (let r = firstRow; r <= lastRow; r++) {
      for (let c = 0; c < cols; c++) {
        const index = r * cols + c;
        if (index >= total) break;
        const item = store.get(index);
        const x = GAP + c * (cellW + GAP);
        const y = GAP + r * rowH;
        cells.push(
          item ? (
            <Cell
              key={`a${item.id}-${index}`}
              item={item}
              index={index}
              x={x}
              y={y}
              width={cellW}
              height={cellH}
              thumbH={thumbH}
              info={info}
              selected={selected.has(item.id)}
              focused={focus === index}
              onSelect={onSelect}
              onOpen={onOpen}
              group={expandedGroups && item.similarGroup ? (expandedGroups.has(item.similarGroup.id) ? 'open' : 'folded') : null}
              onToggleGroup={onToggleGroup}
              onMenu={onCellMenu}
            />
          ) : (
            <div key={`p${index}`} className="cell cell-placeholder" style={cellStyle(x, y, cellW, cellH)} data-testid="grid-placeholder">
              <div className="cell-thumb" style={{ height: thumbH }} />
            </div>
          ),
        );
      }
    }
  }

  return (
    <div
      ref={ref}
      className="grid-scroll"
      data-testid="grid"
      data-total={total}
      tabIndex={0}
      aria-label="Photos"
      role="grid"
      onScroll={(e) => onScroll(e.currentTarget.scrollTop)}
    >
      <div className="grid-canvas" style={{ height: rows * rowH + GAP }}>
        <DragContext.Provider value={drag ?? null}>{cells}</DragContext.Provider>
      </div>
    </div>
  );
}

const cellStyle = (x: number, y: number, width: number, height: number): React.CSSProperties => ({
  width, height, transform: `translate(${x}px, ${y}px)`,
});

/** Position and size as numbers, so a memoised cell whose place did not change never re-renders. */
interface CellProps {
  item: AssetSummary;
  index: number;
  x: number;
  y: number;
  width: number;
  height: number;
  thumbH: number;
  info: CellInfo;
  selected: boolean;
  focused: boolean;
  onSelect(index: number, mods: Modifiers): void;
  onOpen(index: number): void;
  /** Similar groups are folded: this cell's group is folded into it, or opened; null: not shown. */
  group: 'folded' | 'open' | null;
  onToggleGroup?(groupId: number): void;
  onMenu?(index: number, x: number, y: number): void;
}

const Cell = memo(function Cell({ item, index, x, y, width, height, thumbH, info, selected, focused, onSelect, onOpen, group, onToggleGroup, onMenu }: CellProps) {
  const { mediaUrl } = useClient();
  // A picture that failed to load is forgotten when the cell gets another one (the full
  // thumbnail replacing the embedded preview has its own URL).
  const [brokenThumb, setBrokenThumb] = useState<string | null>(null);
  const broken = brokenThumb !== null && brokenThumb === item.thumb;
  const drag = useContext(DragContext);
  const [dropBefore, setDropBefore] = useState(false);
  // A press on a selected photo may start dragging the whole selection: it selects only
  // this one on release (click), as in Lightroom.
  const keepsSelection = (e: MouseEvent) => selected && !e.shiftKey && !e.ctrlKey && !e.metaKey && !!drag;
  const onMouseDown = (e: MouseEvent) => {
    if (e.button !== 0) return;
    if (keepsSelection(e)) {
      (e.currentTarget.closest('.grid-scroll') as HTMLElement | null)?.focus({ preventScroll: true });
      return;
    }
    // No text selection (and, where cells cannot be dragged, no native drag); move keyboard
    // focus to the grid (which also blurs, and so saves, a caption being edited — before the
    // selection changes). Draggable cells keep the default so a drag can start.
    if (!drag) e.preventDefault();
    (e.currentTarget.closest('.grid-scroll') as HTMLElement | null)?.focus({ preventScroll: true });
    onSelect(index, { shift: e.shiftKey, toggle: e.ctrlKey || e.metaKey });
  };
  return (
    <div
      className={`cell${dropBefore ? ' is-drop-before' : ''}${selected ? ' is-selected' : ''}${focused ? ' is-focused' : ''}${item.folderOnline ? '' : ' is-offline'}${item.label ? ` label-${item.label}` : ''}`}
      style={cellStyle(x, y, width, height)}
      data-testid="grid-cell"
      data-index={index}
      data-asset-id={item.id}
      data-name={item.name}
      data-label={item.label ?? undefined}
      data-selected={selected}
      aria-selected={selected}
      role="gridcell"
      onMouseDown={onMouseDown}
      onClick={(e) => keepsSelection(e) && onSelect(index, { shift: false, toggle: false })}
      onDoubleClick={() => onOpen(index)}
      onContextMenu={(e) => {
        if (!onMenu) return;
        e.preventDefault();
        if (!selected) onSelect(index, { shift: false, toggle: false });
        onMenu(index, e.clientX, e.clientY);
      }}
      data-group-id={item.similarGroup?.id}
      draggable={!!drag}
      onDragStart={(e) => {
        if (!drag) return;
        e.dataTransfer.setData(ASSETS_TYPE, JSON.stringify(drag.idsFor(item.id)));
        e.dataTransfer.effectAllowed = 'copyMove';
      }}
      onDragOver={(e) => {
        if (!drag?.reorder || !isAssetDrag(e)) return;
        e.preventDefault();
        e.dataTransfer.dropEffect = 'move';
        if (!dropBefore) setDropBefore(true);
      }}
      onDragLeave={() => setDropBefore(false)}
      onDrop={(e) => {
        setDropBefore(false);
        if (!drag?.reorder || !isAssetDrag(e)) return;
        e.preventDefault();
        const ids = draggedIds(e);
        if (ids.length && !ids.includes(item.id)) drag.reorder(ids, item.id);
      }}
      title={item.folderOnline ? item.name : `${item.name} — its drive or folder is not available`}
    >
      <div className="cell-thumb" style={{ height: thumbH }}>
        {item.thumb && !broken ? (
          <img
            src={mediaUrl(item.thumb)}
            alt={item.name}
            draggable={false}
            decoding="async"
            data-testid="thumb-img"
            data-thumb-state={item.thumbState ?? undefined}
            onError={() => setBrokenThumb(item.thumb)}
          />
        ) : (
          <span className="cell-nothumb">{item.kind === 'audio' ? <IconAudio /> : item.format.toUpperCase()}</span>
        )}
        <CellAnalysisBadges id={item.id} />
        <div className="cell-badges">
          {item.stackCount > 0 && <span className="badge" title={`Stacked with ${item.stackCount} other file(s) of the same shot`}>+{item.stackCount}</span>}
          {group && item.similarGroup && (
            <button
              type="button"
              className={`badge badge-group${group === 'open' ? ' is-open' : ''}`}
              data-testid="group-badge"
              data-state={group}
              data-size={item.similarGroup.size}
              title={`${group === 'folded' ? 'Shows' : 'One of'} ${item.similarGroup.size} similar frames (${item.similarGroup.kind === 'burst' ? 'a burst' : 'the same scene'}) — click or press S to ${group === 'folded' ? 'expand' : 'collapse'}`}
              onMouseDown={(e) => e.stopPropagation()}
              onDoubleClick={(e) => e.stopPropagation()}
              onClick={(e) => {
                e.stopPropagation();
                onToggleGroup?.(item.similarGroup!.id);
              }}
            >
              <svg viewBox="0 0 12 12" aria-hidden="true">
                <rect x="0.5" y="3.5" width="8" height="8" fill="none" stroke="currentColor" />
                <path d="M3.5 3.5v-3h8v8h-3" fill="none" stroke="currentColor" />
              </svg>
              {item.similarGroup.size}
            </button>
          )}
          {item.hasError && (
            <span className="badge badge-warn" title="This file has a problem — see the inspector" data-testid="cell-error">
              <IconWarn />
            </span>
          )}
        </div>
        <div className="cell-state-badges">
          <CellStateBadges id={item.id} keywords={item.keywordCount} />
          {item.kind !== 'image' && (
            <span className="badge badge-duration" data-testid="cell-duration">
              {item.kind === 'video' ? <IconPlay /> : <IconAudio />}
              {item.durationS !== null && formatDuration(item.durationS)}
            </span>
          )}
        </div>
      </div>
      <div className="cell-meta">
        <CellName name={item.name} />
        <span className="cell-sub" data-testid="cell-info" data-info={info}>
          <span className="cell-format">{info === 'details' ? detailsLine(item) : item.format.toUpperCase()}</span>
          <span className="cell-sub-right">
            <Stars value={item.rating} size="sm" testId="cell-stars" />
            <LabelDot label={item.label} testId="cell-label" />
          </span>
        </span>
      </div>
    </div>
  );
});

/** The name shortened in the middle when it does not fit: its start and its extension stay. */
function CellName({ name }: { name: string }) {
  const [head, tail] = splitName(name);
  return (
    <span className="cell-name" data-testid="cell-name">
      <span className="cell-name-head">{head}</span>
      {tail && <span className="cell-name-tail">{tail}</span>}
    </span>
  );
}

/** Capture date · dimensions (the stars and label follow on the right). */
function detailsLine(item: AssetSummary): string {
  const parts: string[] = [];
  if (item.takenAt) parts.push(formatCaptureDate(item.takenAt, false));
  if (item.width && item.height) parts.push(`${item.width}×${item.height}`);
  if (!parts.length) parts.push(item.format.toUpperCase());
  return parts.join(' · ');
}

const IconTag = () => (
  <svg viewBox="0 0 16 16" aria-hidden="true"><path d="M2.5 2.5h5.5l5.5 5.5-5.5 5.5-5.5-5.5zM5.5 5.5v.01" fill="none" stroke="currentColor" strokeWidth="1.5" strokeLinecap="round" strokeLinejoin="round" /></svg>
);
const IconUnsaved = () => (
  <svg viewBox="0 0 16 16" aria-hidden="true"><path d="M3.5 1.5h6l3 3v10h-9zM8 7v4M6 9h4" fill="none" stroke="currentColor" strokeWidth="1.5" strokeLinecap="round" strokeLinejoin="round" /></svg>
);
const IconSuggest = () => (
  <svg viewBox="0 0 16 16" aria-hidden="true"><path d="M8 1.5l1.6 4.9 4.9 1.6-4.9 1.6L8 14.5l-1.6-4.9L1.5 8l4.9-1.6z" fill="none" stroke="currentColor" strokeWidth="1.4" strokeLinejoin="round" /></svg>
);
const IconSent = () => (
  <svg viewBox="0 0 16 16" aria-hidden="true"><path d="M8 12.5V3M4 6.5L8 2.5l4 4M3 14h10" fill="none" stroke="currentColor" strokeWidth="1.5" strokeLinecap="round" strokeLinejoin="round" /></svg>
);

/** Lightroom's thumbnail badges, bottom right: keywords, metadata not yet in the file, suggestions waiting, sent to an agency. */
function CellStateBadges({ id, keywords }: { id: number; keywords: number }) {
  const state = useCellState(id).data;
  const write = state?.id === id ? state.write : null;
  const waiting = state?.id === id ? state.suggestions : 0;
  const sent = state?.id === id ? state.sentTo : [];
  if (!keywords && !write && !waiting && !sent.length) return null;
  return (
    <>
      {keywords > 0 && (
        <span className="badge" data-testid="cell-badge-keywords" data-count={keywords} title={`${keywords} keyword${keywords === 1 ? '' : 's'}`}>
          <IconTag />
        </span>
      )}
      {write && (
        <span className={`badge${write === 'failed' ? ' badge-warn' : ' badge-unsaved'}`} data-testid="cell-badge-unsaved" data-state={write} title={write === 'failed' ? 'Writing to the file failed: see the panel' : 'Metadata not yet in the file: Write… saves it'}>
          <IconUnsaved />
        </span>
      )}
      {waiting > 0 && (
        <span className="badge badge-suggest" data-testid="cell-badge-suggestions" data-count={waiting} title={`${waiting} suggestion${waiting === 1 ? '' : 's'} waiting for review (R)`}>
          <IconSuggest />
          {waiting}
        </span>
      )}
      {sent.length > 0 && (
        <span className="badge" data-testid="cell-badge-sent" data-agencies={sent.join(',')} title={`Sent to ${sent.map((a) => AGENCY_NAMES[a as AgencyId] ?? a).join(', ')}`}>
          <IconSent />
        </span>
      )}
    </>
  );
}
