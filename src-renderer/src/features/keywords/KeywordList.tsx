import { useMemo, useRef, useState } from 'react';
import type { LibraryKeyword, VocabularyEditResult } from '../../../../src-preload/contract';
import { useClient } from '../../api/ClientContext';
import { useQuery } from '../../api/useQuery';
import { useEdits } from '../inspector/useEdits';
import { ConfirmDialog } from '../../ui/Dialog';
import { Button, Section, formatCount } from '../../ui/primitives';
import { errorText, pastTense, useToast } from '../../ui/Toasts';

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

type Pending = { kind: 'rename'; from: string } | { kind: 'merge'; from: string[] } | { kind: 'delete'; names: string[] };

/**
 * Every keyword in the library with how many photos carry it; hierarchies indented under
 * their parent (Animals › Cat). Click filters the grid; Ctrl/Cmd-click or the box selects
 * several for merge; rename, merge and delete apply across the whole library (one undo each).
 */
export function KeywordList({ active, onFilter }: { active: string[]; onFilter(name: string | null): void }) {
  const { api } = useClient();
  const toast = useToast();
  const edits = useEdits();
  const list = useQuery<LibraryKeyword[]>('libraryKeywords', ['keywords', 'assets'], (a) => a.listLibraryKeywords());
  const [filter, setFilter] = useState('');
  const [picked, setPicked] = useState<ReadonlySet<string>>(new Set());
  const [pending, setPending] = useState<Pending | null>(null);
  const [text, setText] = useState('');

  const all = useMemo(() => withParents(list.data ?? []), [list.data]);
  const rows = useMemo(() => {
    const f = filter.trim().toLocaleLowerCase();
    return f ? all.filter((k) => k.name.toLocaleLowerCase().includes(f)) : all;
  }, [all, filter]);
  const pickedNow = [...picked].filter((n) => all.some((k) => k.name === n));

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
          <button type="button" className="link-btn" title="Import a keyword list (Lightroom’s text format, with synonyms)" onClick={() => fileInput.current?.click()} data-testid="keyword-list-import">
            Import…
          </button>
          <button type="button" className="link-btn" title="Export the keyword list (Lightroom’s text format)" onClick={() => void exportList()} data-testid="keyword-list-export">
            Export…
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
              <input
                type="checkbox"
                checked={picked.has(k.name)}
                aria-label={`Select ${k.name}`}
                onClick={(e) => e.stopPropagation()}
                onChange={() => toggle(k.name)}
                data-testid="library-keyword-pick"
              />
              {depth > 0 && <span className="kwl-branch">›</span>}
              <span className="kwl-name">
                {k.notExported ? `[${k.path[k.path.length - 1]}]` : k.path[k.path.length - 1]}
                {k.synonyms?.length ? (
                  <span className="kwl-syn" data-testid="library-keyword-synonyms">
                    {' '}= {k.synonyms.join(', ')}
                  </span>
                ) : null}
              </span>
              <span className="kwl-count">{k.parentOnly ? '' : formatCount(k.count)}</span>
            </li>
          );
        })}
      </ul>
      {pending?.kind === 'rename' && (
        <ConfirmDialog title={`Rename “${pending.from}”`} confirmLabel="Rename" onConfirm={() => void confirmPending()} onCancel={() => setPending(null)} testId="confirm-keyword-rename">
          <input type="text" className="dialog-input" value={text} autoFocus onChange={(e) => setText(e.target.value)} onKeyDown={(e) => e.key === 'Enter' && void confirmPending()} data-testid="keyword-rename-input" />
          <p className="muted small">Renamed on every photo that has it, in the same position. Keywords under it move along. Undo with Ctrl+Z.</p>
        </ConfirmDialog>
      )}
      {pending?.kind === 'merge' && (
        <ConfirmDialog title={`Merge ${pending.from.length} keywords`} confirmLabel="Merge" onConfirm={() => void confirmPending()} onCancel={() => setPending(null)} testId="confirm-keyword-merge">
          <p>{pending.from.map((n) => `“${n}”`).join(', ')}</p>
          <label className="form-field">
            <span className="form-label">Into</span>
            <input type="text" className="dialog-input" list="merge-into" value={text} onChange={(e) => setText(e.target.value)} data-testid="keyword-merge-into" />
            <datalist id="merge-into">
              {pending.from.map((n) => (
                <option key={n} value={n} />
              ))}
            </datalist>
          </label>
          <p className="muted small">Every photo with any of them gets the one keyword instead, where the first of them stood.</p>
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
