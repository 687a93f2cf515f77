import type { Operation } from '../catalogue/change-log';
import { attachLibraryUndo as attachUndo, logOperations, openEdit } from '../catalogue/edit-log';
import { deleteCollectionRow, reinsertCollection, reinsertMember, updateCollectionRow } from '../catalogue/collections';
import { reinsertVocabularyEntry, restoreVocabularyEntry } from '../catalogue/vocabulary';
import { ApiError } from '../core/errors';
import type { LibraryCtx } from './context';
import { prepared, type Db } from './db';

// Undo for changes to the library itself, not to a photo's fields: collections created,
// renamed, moved or deleted, and keyword-list entries deleted, renamed or merged with a keyword. Such an edit is
// an `edits` row like any other (the one undo stack, newest first); what puts the library back
// is kept with it in `library_undo` (migration 28), and edits.ts's undo applies it.

interface CollectionRecord {
  id: number;
  name: string;
  kind: string;
  parent_id: number | null;
  query: string | null;
  created_at: number;
}
interface MemberRecord {
  collection_id: number;
  asset_id: number;
  position: number;
}
interface VocabularyRecord {
  id: number;
  path: string;
  exportable: number;
  synonyms: string;
  position: number;
}

/** What undoes one change to the library. */
export type LibraryUndo =
  /** a collection was created: undo deletes it */
  | { kind: 'collectionCreated'; id: number }
  /** a collection was renamed, moved or its search changed: undo puts the row back as it was */
  | { kind: 'collectionUpdated'; before: CollectionRecord }
  /** a collection (with what was inside it) was deleted: undo restores the rows, same ids, and the memberships */
  | { kind: 'collectionDeleted'; collections: CollectionRecord[]; members: MemberRecord[] }
  /** keyword-list entries were deleted: undo restores them with their synonyms */
  | { kind: 'vocabularyDeleted'; entries: VocabularyRecord[] }
  /** keyword-list entries were renamed, or merged into another (and so deleted): undo puts each row back as it was, in reverse order */
  | { kind: 'vocabularyChanged'; before: VocabularyRecord[] };

const collectionRecords = (db: Db, ids: readonly number[]): CollectionRecord[] =>
  ids.map((id) => prepared(db, 'SELECT id, name, kind, parent_id, query, created_at FROM collections WHERE id = ?').get(id) as CollectionRecord | undefined).filter((r) => r !== undefined);

/** The undo of deleting these collections, read before they go. */
export function collectionDeletion(db: Db, ids: readonly number[]): LibraryUndo {
  const members = ids.flatMap(
    (id) => prepared(db, 'SELECT collection_id, asset_id, position FROM collection_assets WHERE collection_id = ?').all(id) as MemberRecord[],
  );
  return { kind: 'collectionDeleted', collections: collectionRecords(db, ids), members };
}

/** The undo of changing this collection, read before it changes. */
export function collectionUpdate(db: Db, id: number): LibraryUndo {
  const [before] = collectionRecords(db, [id]);
  if (!before) throw new ApiError('not_found', 'That collection no longer exists. It may have been deleted; pick another one.');
  return { kind: 'collectionUpdated', before };
}

const vocabularyRecords = (db: Db, ids: readonly number[]): VocabularyRecord[] =>
  ids
    .map((id) => prepared(db, 'SELECT id, path, exportable, synonyms, position FROM keyword_vocabulary WHERE id = ?').get(id) as VocabularyRecord | undefined)
    .filter((r) => r !== undefined);

/** The undo of deleting these keyword-list entries, read before they go. */
export function vocabularyDeletion(db: Db, ids: readonly number[]): LibraryUndo {
  return { kind: 'vocabularyDeleted', entries: vocabularyRecords(db, ids) };
}

/** The undo of renaming these keyword-list entries (or merging them into another), read before they change, in the order they change. */
export function vocabularyChange(db: Db, ids: readonly number[]): LibraryUndo {
  return { kind: 'vocabularyChanged', before: vocabularyRecords(db, ids) };
}

/**
 * Log an edit that changed only the library (inside the caller's transaction); returns its id.
 * `ops` are what happened, for the change log (catalogue/change-log.ts).
 */
export function logLibraryEdit(db: Db, description: string, undo: readonly LibraryUndo[], ops: readonly Operation[]): number {
  const editId = openEdit(db, description, null, undo);
  logOperations(db, editId, ops);
  return editId;
}

/** Add library changes to an edit already logged (a keyword deleted from photos and from the keyword list), with what happened for the change log. */
export function attachLibraryUndo(db: Db, editId: number, undo: readonly LibraryUndo[], ops: readonly Operation[]): void {
  if (undo.length) attachUndo(db, editId, undo);
  logOperations(db, editId, ops);
}

const quote = (s: string): string => `“${s}”`;

/** Put back one change to the library; returns what happened, for the change log (null: nothing). */
function undoOne(ctx: LibraryCtx, u: LibraryUndo): Operation | null {
  const db = ctx.db;
  if (u.kind === 'collectionCreated') {
    const row = prepared(db, 'SELECT name FROM collections WHERE id = ?').get(u.id) as { name: string } | undefined;
    if (!row) return null;
    const refs = prepared(db, "SELECT name FROM collections WHERE kind = 'smart' AND id <> ? AND json_extract(query, '$.collectionId') = ?").pluck().all(u.id, u.id) as string[];
    if (refs.length) {
      throw new ApiError('conflict', `The smart collection ${quote(refs[0])} keeps photos of ${quote(row.name)}. Change its collection filter first, then undo.`);
    }
    deleteCollectionRow(db, u.id);
    return { op: 'collection.delete', value: { id: u.id, name: row.name, inside: [] } };
  }
  if (u.kind === 'collectionUpdated') {
    const b = u.before;
    const taken = prepared(db, 'SELECT name FROM collections WHERE name = ? AND id <> ?').pluck().get(b.name, b.id) as string | undefined;
    if (taken) throw new ApiError('conflict', `Another collection is now called ${quote(taken)}. Rename it, then undo again.`);
    updateCollectionRow(db, b.id, { name: b.name, parentId: b.parent_id, query: b.query });
    return { op: 'collection.update', value: { id: b.id, name: b.name, parentId: b.parent_id, query: b.query } };
  }
  if (u.kind === 'collectionDeleted') {
    for (const c of u.collections) {
      const taken = prepared(db, 'SELECT name FROM collections WHERE name = ? AND id <> ?').pluck().get(c.name, c.id) as string | undefined;
      if (taken) throw new ApiError('conflict', `Another collection is now called ${quote(taken)}. Rename it, then undo again.`);
    }
    // A set before what is inside it (the deleted rows come as read, parents first).
    const pending = [...u.collections];
    while (pending.length) {
      const i = pending.findIndex((c) => c.parent_id === null || !pending.some((p) => p.id === c.parent_id));
      const [c] = pending.splice(i < 0 ? 0 : i, 1);
      reinsertCollection(db, c);
    }
    // A photo deleted from the catalogue since then stays out.
    for (const m of u.members) reinsertMember(db, m);
    return { op: 'collection.restore', value: { collections: u.collections, members: u.members } };
  }
  if (u.kind === 'vocabularyChanged') {
    // A row renamed is renamed back; a row merged away (deleted) comes back with its id. Where
    // the old name has been taken since (a keyword list imported again), that entry stands for it.
    const taken = prepared(db, 'SELECT 1 FROM keyword_vocabulary WHERE path = ? AND id <> ?');
    for (const r of [...u.before].reverse()) if (!taken.get(r.path, r.id)) restoreVocabularyEntry(db, r);
    return { op: 'vocabulary.restore', value: { entries: u.before } };
  }
  for (const e of u.entries) reinsertVocabularyEntry(db, e);
  return { op: 'vocabulary.restore', value: { entries: u.entries } };
}

/** Put the library back as an edit's `library_undo` says, last change first (inside undo's transaction). */
export function undoLibraryChanges(ctx: LibraryCtx, editId: number, json: string | null): boolean {
  if (!json) return false;
  const list = JSON.parse(json) as LibraryUndo[];
  const done: Operation[] = [];
  for (const u of [...list].reverse()) {
    const op = undoOne(ctx, u);
    if (op) done.push(op);
  }
  logOperations(ctx.db, editId, done, true);
  return list.length > 0;
}
