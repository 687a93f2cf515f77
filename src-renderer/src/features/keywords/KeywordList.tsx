import { useEffect, useMemo, useRef, useState } from 'react';
import type { LibraryKeyword, VocabularyEditResult } from '../../../../src-preload/contract';
import { useClient } from '../../api/ClientContext';
import { useQuery } from '../../api/useQuery';
import { useEdits } from '../inspector/useEdits';
import { useDismiss } from '../../state/useDismiss';
import { ConfirmDialog } from '../../ui/Dialog';
import '../collections/collections.css';
import { Button, Section, formatCount } from '../../ui/primitives';
import { errorText, pastTense, useToast } from '../../ui/Toasts';
import { keywordPath } from '../../ui/format';

/** Levels of a hierarchy nobody uses on its own (Animals of Animals|Cat) still head their children. */
function withParents(list: LibraryKeyword[]): (LibraryKeyword & { parentOnly?: boolean })[] {
  const have = new Set(list.map((k) => k.name.toLocaleLowerCase()));
  const out: (LibraryKeyword & { parentOnly?: boolean })[] = [...list];
  for (const k of list) {
    for (let i = 1; i < k.path.length; i++) {
      const name = k.path.slice(0, i).join('|');
      if (have.has(name.toLocaleLowerCase())) continue;
      have.add(name.toLocaleLowerCase());
      out.push({ name, path: k.path.slice(0, i), count: 0, parentOnly: true });
    }
  }
  const byPath = (a: LibraryKeyword, b: LibraryKeyword): number => {
    for (let i = 0; i < Math.min(a.path.length, b.path.length); i++) {
      const c = a.path[i].localeCompare(b.path[i], undefined, { sensitivity: 'base' });
      if (c) return c;
    }
    return a.path.length - b.path.length;
  };
  return out.sort(byPath);
}

/** Room the row menu needs below its button; nearer the window's bottom it opens upwards. */
const MENU_HEIGHT = 140;

type Pending = { kind: 'rename'; from: string } | { kind: 'merge'; from: string[] } | { kind: 'delete'; names: string[] };

/**
 * How many of `ids` carry each keyword (lower-cased name), for the assign boxes: counted by the
 * main side in one read, so a selection of thousands shows all, some or none correctly.
 */
function useTargetCounts(ids: number[]) {
  const key = ids.length ? `kwl-targets:${ids.length}:${ids.reduce((h, id) => (h * 31 + id) | 0, 0)}` : null;
  return useQuery<Map<string, number>>(key, ['assets', 'keywords'], async (api) => {
    const counts = new Map<string, number>();
    for (const k of await api.listKeywords({ ids, limit: 10_000 })) {
      const name = k.name.toLocaleLowerCase();
      counts.set(name, (counts.get(name) ?? 0) + k.count);
    }
    return counts;
  });
}

/** A checkbox that can show "some of them" (HTML's indeterminate is a property, not an attribute). */
function AssignBox({ state, disabled, label, onToggle }: { state: 'all' | 'some' | 'none'; disabled: boolean; label: string; onToggle(): void }) {
  const ref = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (ref.current) ref.current.indeterminate = state === 'some';
  }, [state]);
  return (
    <input
      ref={ref}
      type="checkbox"
      className="kwl-assign"
      checked={state === 'all'}
      disabled={disabled}
      aria-label={label}
      title={label}
      data-state={state}
      onClick={(e) => e.stopPropagation()}
      onChange={onToggle}
      data-testid="library-keyword-assign"
    />
  );
}

/**
 * Every keyword in the library with how many photos carry it; hierarchies indented under
 * their parent (Animals › Cat). As in Lightroom's Keyword List, the box assigns the keyword to
 * the photos the panel edits (the selection in the grid, the photo in view elsewhere), or takes
 * it off them; a dash says some of them have it. A click on the name filters the grid. Rename,
 * merge and delete are in the row's menu (Ctrl/Cmd-click picks several to merge) and apply
 * across the whole library (one undo each). Lightroom's [bracketed] keywords, left out of
 * exported files, show without brackets, muted, marked "not exported".
 */
export function KeywordList({ active, onFilter, targets = [] }: { active: string[]; onFilter(name: string | null): void; targets?: number[] }) {
  const { api } = useClient();
  const toast = useToast();
  const edits = useEdits();
  const list = useQuery<LibraryKeyword[]>('libraryKeywords', ['keywords', 'assets'], (a) => a.listLibraryKeywords());
  const [filter, setFilter] = useState('');
  const [picked, setPicked] = useState<ReadonlySet<string>>(new Set());
  const [pending, setPending] = useState<Pending | null>(null);
  const [text, setText] = useState('');
  const [menu, setMenu] = useState<{ x: number; y: number; above: number; name: string } | null>(null);
  const [listMenu, setListMenu] = useState<{ x: number; y: number } | null>(null);
  useDismiss(menu !== null, () => setMenu(null));
  useDismiss(listMenu !== null, () => setListMenu(null));

  const all = useMemo(() => withParents(list.data ?? []), [list.data]);
  const rows = useMemo(() => {
    const f = filter.trim().toLocaleLowerCase();
    return f ? all.filter((k) => k.name.toLocaleLowerCase().includes(f)) : all;
  }, [all, filter]);
  const pickedNow = [...picked].filter((n) => all.some((k) => k.name === n));
  const counts = useTargetCounts(targets);
  const stateOf = (name: string): 'all' | 'some' | 'none' => {
    const n = counts.data?.get(name.toLocaleLowerCase()) ?? 0;
    return n === 0 ? 'none' : n >= targets.length ? 'all' : 'some';
  };
  const photos = (n: number) => `${formatCount(n)} photo${n === 1 ? '' : 's'}`;
  const assign = async (name: string) => {
    const ids = [...targets];
    if (!ids.length) return;
    const remove = stateOf(name) === 'all';
    const ok = await edits.commit(() => api.editKeywords(remove ? { ids, remove: [name] } : { ids, add: [name] }));
    const shown = keywordPath(name);
    if (ok) toast.info(remove ? `Removed “${shown}” from ${photos(ids.length)}.` : `Added “${shown}” to ${photos(ids.length)}.`, { undo: () => void edits.undo() });
  };

  const toggle = (name: string) =>
    setPicked((s) => {
      const next = new Set(s);
      if (next.has(name)) next.delete(name);
      else next.add(name);
      return next;
    });

  const fileInput = useRef<HTMLInputElement>(null);
  const importList = async (file: File) => {
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(await file.arrayBuffer());
    } catch {
      toast.error(new Error(`${file.name} is not UTF-8 text. A keyword list exported by Lightroom (Metadata › Export Keywords) is; save it as UTF-8 and import it again.`));
      return;
    }
    try {
      const r = await api.importKeywordList({ text });
      const plural = (n: number, w: string) => `${formatCount(n)} ${w}${n === 1 ? '' : 's'}`;
      toast.info(
        `Imported ${file.name}: ${plural(r.added, 'keyword')} added, ${plural(r.synonyms, 'synonym')} added, ${formatCount(r.existing)} already in the library.` +
          (r.skipped.length ? ` Skipped ${r.skipped.join('; ')}.` : ''),
      );
    } catch (err) {
      toast.error(err);
    }
  };
  const exportList = async () => {
    try {
      const path = await api.pickSavePath({ defaultName: 'Keywords.txt' });
      if (!path) return;
      const r = await api.exportKeywordList({ path });
      toast.info(`Saved ${formatCount(r.lines)} lines to ${r.path}.`);
    } catch (err) {
      toast.error(new Error(errorText(err)));
    }
  };

  const report = (res: VocabularyEditResult) => {
    toast.info(res.description ? pastTense(res.description) : 'Nothing changed.');
  };

  const confirmPending = async () => {
    const p = pending;
    if (!p) return;
    const into = text.trim();
    if ((p.kind === 'rename' || p.kind === 'merge') && !into) return;
    setPending(null);
    const ok = await edits.commit(async () => {
      if (p.kind === 'rename') report(await api.renameKeyword({ from: p.from, to: into, children: true }));
      else if (p.kind === 'merge') report(await api.mergeKeywords({ from: p.from.filter((n) => n !== into), into, children: true }));
      else for (const name of p.names) report(await api.deleteKeyword({ name, children: true }));
    });
    if (ok) setPicked(new Set());
  };

  return (
    <Section
      title={`Keywords${list.data ? ` · ${formatCount(list.data.length)}` : ''}`}
      testId="keyword-list"
      collapseKey="library.keyword-list"
      actions={
        <>
          {active.length > 0 && (
            <button type="button" className="link-btn" onClick={() => onFilter(null)} data-testid="keyword-list-clear">
              Show all
            </button>
          )}
          <button
            type="button"
            className="icon-btn kwl-menu-btn"
            aria-label="Keyword list: import, export"
            title="Import or export the keyword list (Lightroom’s text format)"
            aria-haspopup="menu"
            onMouseDown={(e) => e.stopPropagation()}
            onClick={(e) => {
              const r = e.currentTarget.getBoundingClientRect();
              setListMenu(listMenu ? null : { x: r.left, y: r.bottom + 2 });
            }}
            data-testid="keyword-list-menu"
          >
            ⋯
          </button>
        </>
      }
    >
      <input
        ref={fileInput}
        type="file"
        accept=".txt,text/plain"
        hidden
        data-testid="keyword-list-file"
        onChange={(e) => {
          const file = e.target.files?.[0];
          e.target.value = '';
          if (file) void importList(file);
        }}
      />
      {listMenu && (
        <div className="context-menu" role="menu" style={{ left: Math.min(listMenu.x, window.innerWidth - 260), top: listMenu.y }} data-testid="keyword-list-menu-items" onMouseDown={(e) => e.stopPropagation()}>
          <button type="button" role="menuitem" title="Lightroom’s text format, with synonyms" onClick={() => { setListMenu(null); fileInput.current?.click(); }} data-testid="keyword-list-import">
            Import keyword list…
          </button>
          <button type="button" role="menuitem" title="Lightroom’s text format" onClick={() => { setListMenu(null); void exportList(); }} data-testid="keyword-list-export">
            Export keyword list…
          </button>
        </div>
      )}
      {all.length > 0 && <p className="kwl-hint muted small" data-testid="keyword-list-target">
        {targets.length ? `Boxes add to or remove from ${targets.length === 1 ? 'the photo in the panel' : `the ${photos(targets.length)} selected`}.` : 'Select photos to add keywords with the boxes.'}
      </p>}
      <input type="search" className="kwl-filter" placeholder="Filter keywords" value={filter} onChange={(e) => setFilter(e.target.value)} data-testid="keyword-list-filter" aria-label="Filter keywords" />
      {pickedNow.length > 0 && (
        <div className="kwl-actions" data-testid="keyword-list-actions">
          <span className="muted small">{pickedNow.length} selected</span>
          <span className="topbar-spacer" />
          {pickedNow.length === 1 && (
            <Button small onClick={() => { setText(pickedNow[0]); setPending({ kind: 'rename', from: pickedNow[0] }); }} data-testid="keyword-rename">
              Rename
            </Button>
          )}
          {pickedNow.length > 1 && (
            <Button small onClick={() => { setText(pickedNow[0]); setPending({ kind: 'merge', from: pickedNow }); }} data-testid="keyword-merge">
              Merge…
            </Button>
          )}
          <Button small variant="ghost" onClick={() => setPending({ kind: 'delete', names: pickedNow })} data-testid="keyword-delete">
            Delete
          </Button>
        </div>
      )}
      <ul className="kwl" data-testid="keyword-list-items">
        {rows.length === 0 && <li className="muted small kwl-empty">{list.data?.length ? 'No keyword matches.' : 'No keywords in the library yet.'}</li>}
        {rows.map((k) => {
          const depth = k.path.length - 1;
          const on = active.some((a) => a.toLocaleLowerCase() === k.name.toLocaleLowerCase());
          return (
            <li
              key={k.name}
              className={`kwl-row${on ? ' is-active' : ''}${picked.has(k.name) ? ' is-picked' : ''}${k.parentOnly ? ' is-parent' : ''}`}
              style={{ paddingLeft: 4 + depth * 14 }}
              data-testid="library-keyword"
              data-keyword={k.name}
              title={k.path.join(' › ') + (k.synonyms?.length ? `\nSynonyms: ${k.synonyms.join(', ')}` : '') + (k.notExported ? '\nNot included on export' : '')}
              onClick={(e) => {
                if (e.ctrlKey || e.metaKey || e.shiftKey || k.parentOnly) toggle(k.name);
                else onFilter(on ? null : k.name);
              }}
            >
              <AssignBox
                state={stateOf(k.name)}
                disabled={targets.length === 0 || counts.data === undefined}
                label={
                  stateOf(k.name) === 'all'
                    ? `Remove “${k.name}” from ${targets.length === 1 ? 'this photo' : `the ${photos(targets.length)} selected`}`
                    : `Add “${k.name}” to ${targets.length === 1 ? 'this photo' : `the ${photos(targets.length)} selected`}`
                }
                onToggle={() => void assign(k.name)}
              />
              {depth > 0 && <span className="kwl-branch">›</span>}
              <span className={`kwl-name${k.notExported ? ' is-not-exported' : ''}`}>
                {k.path[k.path.length - 1]}
                {k.notExported && (
                  <span className="kwl-tag" data-testid="library-keyword-not-exported" title="Lightroom’s [bracketed] keyword: a category, not written into exported files">
                    not exported
                  </span>
                )}
                {k.synonyms?.length ? (
                  <span className="kwl-syn" data-testid="library-keyword-synonyms">
                    {' '}= {k.synonyms.join(', ')}
                  </span>
                ) : null}
              </span>
              <span className="kwl-count">{k.parentOnly ? '' : formatCount(k.count)}</span>
              <button
                type="button"
                className="kwl-row-menu"
                aria-label={`More for “${k.name}”: rename, merge, delete`}
                title="Rename, merge, delete"
                aria-haspopup="menu"
                onMouseDown={(e) => e.stopPropagation()}
                onClick={(e) => {
                  e.stopPropagation();
                  const r = e.currentTarget.getBoundingClientRect();
                  setMenu(menu?.name === k.name ? null : { x: r.right, y: r.bottom + 2, above: r.top - 2, name: k.name });
                }}
                data-testid="library-keyword-menu"
              >
                ⋯
              </button>
            </li>
          );
        })}
      </ul>
      {menu && (
        <div className="context-menu" role="menu" style={{ left: Math.min(menu.x, window.innerWidth - 260), ...(menu.y + MENU_HEIGHT > window.innerHeight ? { bottom: window.innerHeight - menu.above } : { top: menu.y }) }} data-testid="keyword-menu" onMouseDown={(e) => e.stopPropagation()}>
          <button type="button" role="menuitem" onClick={() => { const n = menu.name; setMenu(null); setText(n); setPending({ kind: 'rename', from: n }); }} data-testid="keyword-menu-rename">
            Rename…
          </button>
          <button
            type="button"
            role="menuitem"
            onClick={() => {
              const from = [...new Set([menu.name, ...pickedNow])];
              setMenu(null);
              setText(from.length > 1 ? (from.find((n) => n !== menu.name) ?? '') : '');
              setPending({ kind: 'merge', from });
            }}
            data-testid="keyword-menu-merge"
          >
            {pickedNow.filter((n) => n !== menu.name).length ? `Merge with the ${pickedNow.filter((n) => n !== menu.name).length} picked…` : 'Merge into…'}
          </button>
          <button type="button" role="menuitem" onClick={() => { const n = menu.name; setMenu(null); setPending({ kind: 'delete', names: [n] }); }} data-testid="keyword-menu-delete">
            Delete…
          </button>
        </div>
      )}
      {pending?.kind === 'rename' && (
        <ConfirmDialog title={`Rename “${pending.from}”`} confirmLabel="Rename" onConfirm={() => void confirmPending()} onCancel={() => setPending(null)} testId="confirm-keyword-rename">
          <input type="text" className="dialog-input" value={text} autoFocus onChange={(e) => setText(e.target.value)} onKeyDown={(e) => e.key === 'Enter' && void confirmPending()} data-testid="keyword-rename-input" />
          <p className="muted small">Renamed on every photo that has it, in the same position. Keywords under it move along. Undo with Ctrl+Z.</p>
        </ConfirmDialog>
      )}
      {pending?.kind === 'merge' && (
        <ConfirmDialog title={pending.from.length === 1 ? `Merge “${pending.from[0]}” into another keyword` : `Merge ${pending.from.length} keywords`} confirmLabel="Merge" onConfirm={() => void confirmPending()} onCancel={() => setPending(null)} testId="confirm-keyword-merge">
          {pending.from.length > 1 && <p>{pending.from.map((n) => `“${n}”`).join(', ')}</p>}
          <label className="form-field">
            <span className="form-label">Into</span>
            <input type="text" className="dialog-input" list="merge-into" value={text} autoFocus onChange={(e) => setText(e.target.value)} data-testid="keyword-merge-into" />
            <datalist id="merge-into">
              {(pending.from.length > 1 ? pending.from : all.filter((k) => !k.parentOnly && k.name !== pending.from[0]).map((k) => k.name)).map((n) => (
                <option key={n} value={n} />
              ))}
            </datalist>
          </label>
          <p className="muted small">Every photo with {pending.from.length > 1 ? 'any of them' : 'it'} gets the one keyword instead, where the first of them stood. Undo with Ctrl+Z.</p>
        </ConfirmDialog>
      )}
      {pending?.kind === 'delete' && (
        <ConfirmDialog title={`Delete ${pending.names.length === 1 ? `“${pending.names[0]}”` : `${pending.names.length} keywords`}?`} confirmLabel="Delete" danger onConfirm={() => void confirmPending()} onCancel={() => setPending(null)} testId="confirm-keyword-delete">
          <p>
            Removed from{' '}
            <strong>
              {formatCount(pending.names.reduce((n, name) => n + ((list.data ?? []).find((k) => k.name === name)?.count ?? 0), 0))} photo assignments
            </strong>{' '}
            across the library (and any keywords under {pending.names.length === 1 ? 'it' : 'them'}). The files change only when you write them. Undo with Ctrl+Z.
          </p>
        </ConfirmDialog>
      )}
    </Section>
  );
}
