import { useState, type FormEvent } from 'react';
import type { CollectionInfo, CollectionKind, SmartQuery } from '../../../../src-preload/contract';
import { useDismiss } from '../../state/useDismiss';
import { ConfirmDialog } from '../../ui/Dialog';
import { Button, IconButton, Section, formatCount } from '../../ui/primitives';
import { IconPlus } from '../../ui/icons';
import { draggedIds, isAssetDrag } from './dragAssets';
import type { Collections } from './useCollections';
import './collections.css';

const KIND_LABEL: Record<CollectionKind, string> = { manual: 'Collection', smart: 'Smart collection', set: 'Collection set' };

function KindIcon({ kind }: { kind: CollectionKind }) {
  // Lightroom's shapes: a stack of prints, prints with a gear-like mark, a box.
  const d =
    kind === 'set'
      ? 'M2 5.5h12v8H2zM3.5 5.5V3h9v2.5'
      : kind === 'smart'
        ? 'M3 3.5h8v8H3zM5 13.5h8v-8M7 6v3M5.5 7.5h3'
        : 'M3 3.5h8v8H3zM5 13.5h8v-8';
  return (
    <svg className={`collection-icon kind-${kind}`} width="14" height="14" viewBox="0 0 16 16" aria-hidden="true">
      <path d={d} fill="none" stroke="currentColor" strokeWidth="1.3" strokeLinejoin="round" />
    </svg>
  );
}

function NameForm({ initial, placeholder, onSubmit, onCancel, testId }: { initial: string; placeholder: string; onSubmit(name: string): void; onCancel(): void; testId: string }) {
  const [name, setName] = useState(initial);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (name.trim()) onSubmit(name.trim());
  };
  return (
    <form className="collection-name-form" onSubmit={submit} data-testid={`${testId}-form`}>
      <input
        type="text"
        value={name}
        placeholder={placeholder}
        autoFocus
        spellCheck={false}
        data-testid={`${testId}-name`}
        onChange={(e) => setName(e.target.value)}
        onKeyDown={(e) => e.key === 'Escape' && onCancel()}
      />
      <Button type="submit" small variant="primary" disabled={!name.trim()} data-testid={`${testId}-submit`}>
        Save
      </Button>
    </form>
  );
}

interface Creating {
  kind: CollectionKind;
  parentId: number | null;
}

/**
 * The Collections panel of the sidebar: sets, collections and smart collections with their
 * live counts. Click shows one in the grid; photos dragged from the grid drop onto a
 * collection; the context menu sets the target collection (B adds to it), renames, edits a
 * smart collection's search, deletes.
 */
export function CollectionList({ collections, activeId, onActivate, targetId, onTarget, selectedIds, onEditSearch, smartFromFilters }: {
  collections: Collections;
  activeId: number | undefined;
  onActivate(c: CollectionInfo | null): void;
  targetId: number | null;
  onTarget(id: number | null): void;
  selectedIds(): number[];
  /** Show a smart collection's search in the filter panel, to change it there. */
  onEditSearch(c: CollectionInfo): void;
  /** The filters in use now, for a new smart collection. */
  smartFromFilters: SmartQuery;
}) {
  const list = collections.list.data ?? [];
  const [creating, setCreating] = useState<Creating | null>(null);
  const [renaming, setRenaming] = useState<number | null>(null);
  const [deleting, setDeleting] = useState<CollectionInfo | null>(null);
  const [menu, setMenu] = useState<{ c: CollectionInfo; x: number; y: number } | null>(null);
  const [dropOn, setDropOn] = useState<number | null>(null);

  useDismiss(menu !== null, () => setMenu(null));

  const depthOf = new Map<number, number>();
  for (const c of list) depthOf.set(c.id, c.parentId !== null ? (depthOf.get(c.parentId) ?? 0) + 1 : 0);
  const sets = list.filter((c) => c.kind === 'set');

  const create = async (name: string) => {
    if (!creating) return;
    const made = await collections.create(name, creating.kind, creating.parentId, creating.kind === 'smart' ? smartFromFilters : undefined);
    if (made) {
      setCreating(null);
      if (made.kind === 'smart') onActivate(made);
    }
  };

  const menuItem = (label: string, testId: string, action: () => void, disabled = false) => (
    <button
      type="button"
      role="menuitem"
      disabled={disabled}
      data-testid={`collection-menu-${testId}`}
      onMouseDown={(e) => e.stopPropagation()}
      onClick={() => {
        setMenu(null);
        action();
      }}
    >
      {label}
    </button>
  );

  return (
    <Section
      title="Collections"
      testId="collections"
      collapseKey="library.collections"
      actions={
        <IconButton label="New collection" onClick={() => setCreating({ kind: 'manual', parentId: null })} data-testid="collection-new">
          <IconPlus />
        </IconButton>
      }
    >
      {list.length === 0 && !creating && <p className="muted small">No collections yet. Make one, then drag photos onto it.</p>}
      <ul className="collection-list" role="tree" aria-label="Collections">
        {list.map((c) => {
          const depth = depthOf.get(c.id) ?? 0;
          const droppable = c.kind === 'manual';
          return (
            <li key={c.id} role="treeitem" aria-selected={activeId === c.id} data-testid="collection-item" data-name={c.name} data-kind={c.kind} data-count={c.count}>
              {renaming === c.id ? (
                <NameForm initial={c.name} placeholder="Name" testId="collection-rename" onCancel={() => setRenaming(null)} onSubmit={(name) => void collections.rename(c, name).then((ok) => ok && setRenaming(null))} />
              ) : (
                <div
                  className={`collection-row${activeId === c.id ? ' is-active' : ''}${dropOn === c.id ? ' is-drop' : ''}`}
                  style={{ paddingLeft: 4 + depth * 14 }}
                  role="button"
                  tabIndex={0}
                  title={c.kind === 'smart' ? `${c.name} — smart collection (always up to date)` : c.kind === 'set' ? `${c.name} — collection set` : `${c.name} — drag photos here to add them`}
                  onClick={() => c.kind !== 'set' && onActivate(activeId === c.id ? null : c)}
                  onKeyDown={(e) => e.key === 'Enter' && c.kind !== 'set' && onActivate(activeId === c.id ? null : c)}
                  onDoubleClick={() => setRenaming(c.id)}
                  onContextMenu={(e) => {
                    e.preventDefault();
                    setMenu({ c, x: e.clientX, y: e.clientY });
                  }}
                  onDragOver={(e) => {
                    if (!droppable || !isAssetDrag(e)) return;
                    e.preventDefault();
                    e.dataTransfer.dropEffect = 'copy';
                    if (dropOn !== c.id) setDropOn(c.id);
                  }}
                  onDragLeave={() => setDropOn((d) => (d === c.id ? null : d))}
                  onDrop={(e) => {
                    setDropOn(null);
                    if (!droppable || !isAssetDrag(e)) return;
                    e.preventDefault();
                    void collections.add(c, draggedIds(e));
                  }}
                  data-testid="collection-row"
                >
                  <KindIcon kind={c.kind} />
                  <span className="collection-name">{c.name}</span>
                  {targetId === c.id && (
                    <span className="collection-target" title="Target collection: B adds the selected photos here" data-testid="collection-target">
                      +
                    </span>
                  )}
                  <span className="collection-count" data-testid="collection-count">
                    {formatCount(c.count)}
                  </span>
                </div>
              )}
            </li>
          );
        })}
      </ul>
      {creating ? (
        <div className="collection-create" data-testid="collection-create">
          <div className="collection-create-head">
            <select value={creating.kind} onChange={(e) => setCreating({ ...creating, kind: e.target.value as CollectionKind })} data-testid="collection-create-kind" aria-label="Kind">
              <option value="manual">Collection</option>
              <option value="smart">Smart collection (the current filters)</option>
              <option value="set">Collection set</option>
            </select>
            <select
              value={creating.parentId ?? ''}
              onChange={(e) => setCreating({ ...creating, parentId: e.target.value ? Number(e.target.value) : null })}
              data-testid="collection-create-parent"
              aria-label="Inside set"
            >
              <option value="">At the top</option>
              {sets.map((s) => (
                <option key={s.id} value={s.id}>
                  In “{s.name}”
                </option>
              ))}
            </select>
          </div>
          <NameForm initial="" placeholder={`${KIND_LABEL[creating.kind]} name`} testId="collection-create" onCancel={() => setCreating(null)} onSubmit={(name) => void create(name)} />
        </div>
      ) : (
        <div className="collection-links">
          <button type="button" className="link-btn" onClick={() => setCreating({ kind: 'set', parentId: null })} data-testid="collection-new-set">
            New set…
          </button>
          <button type="button" className="link-btn" onClick={() => setCreating({ kind: 'smart', parentId: null })} data-testid="collection-new-smart">
            New smart collection…
          </button>
        </div>
      )}
      {menu && (
        <div className="context-menu" role="menu" style={{ left: menu.x, top: menu.y }} data-testid="collection-menu" onMouseDown={(e) => e.stopPropagation()}>
          {menu.c.kind === 'manual' &&
            (targetId === menu.c.id
              ? menuItem('Clear target collection', 'untarget', () => onTarget(null))
              : menuItem('Set as target collection (B adds to it)', 'target', () => onTarget(menu.c.id)))}
          {menu.c.kind === 'manual' && menuItem('Add selected photos', 'add', () => void collections.add(menu.c, selectedIds()), selectedIds().length === 0)}
          {menu.c.kind === 'smart' && menuItem('Edit search in the filter panel…', 'edit', () => onEditSearch(menu.c))}
          {menu.c.kind === 'set' && menuItem('New collection inside…', 'new-inside', () => setCreating({ kind: 'manual', parentId: menu.c.id }))}
          {menu.c.kind === 'set' && menuItem('New smart collection inside…', 'new-smart-inside', () => setCreating({ kind: 'smart', parentId: menu.c.id }))}
          {menu.c.kind === 'set' && menuItem('New set inside…', 'new-set-inside', () => setCreating({ kind: 'set', parentId: menu.c.id }))}
          {sets.filter((s) => s.id !== menu.c.id && s.id !== menu.c.parentId).map((s) => menuItem(`Move into “${s.name}”`, `move-${s.id}`, () => void collections.move(menu.c, s.id)))}
          {menu.c.parentId !== null && menuItem('Move to the top', 'move-top', () => void collections.move(menu.c, null))}
          {menuItem('Rename…', 'rename', () => setRenaming(menu.c.id))}
          {menuItem('Delete…', 'delete', () => setDeleting(menu.c))}
        </div>
      )}
      {deleting && (
        <ConfirmDialog
          title={`Delete the ${KIND_LABEL[deleting.kind].toLowerCase()} “${deleting.name}”?`}
          confirmLabel="Delete"
          danger
          testId="collection-delete-dialog"
          onCancel={() => setDeleting(null)}
          onConfirm={() => {
            const c = deleting;
            setDeleting(null);
            if (activeId === c.id) onActivate(null);
            if (targetId === c.id) onTarget(null);
            void collections.remove(c);
          }}
        >
          <p>{deleting.kind === 'set' ? 'The set and every collection in it are deleted.' : 'The collection is deleted.'}</p>
          <p>No photo and no file is touched: they stay in the library and on disk.</p>
        </ConfirmDialog>
      )}
    </Section>
  );
}
