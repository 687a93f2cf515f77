import { recordFieldChanges, recordOperations, type FieldChange, type Operation } from './change-log';
import { stmt, type Db } from './statements';

// The edit log (edits / edit_changes, migration 1): the undo stack, newest first, each edit with
// the values its changes replaced. Every write to it goes through here, and every change logged
// here is recorded in the change log too (change-log.ts), linked by the edit's id: the edit log
// is the undo stack's view of the changes, the change log their order across machines.

/** Start an edit (inside the caller's transaction); returns its id. `libraryUndo`: what puts the library back (JSON-able). */
export function openEdit(db: Db, description: string, batchId: string | null = null, libraryUndo: readonly unknown[] | null = null): number {
  return Number(
    stmt(db, 'INSERT INTO edits (at, description, batch_id, library_undo) VALUES (?, ?, ?, ?)').run(Date.now(), description, batchId, libraryUndo ? JSON.stringify(libraryUndo) : null)
      .lastInsertRowid,
  );
}

/** Whether `editId` is the newest edit and not undone (a chunked edit may go on adding to it). */
export function isNewestOpenEdit(db: Db, editId: number): boolean {
  return !!stmt(db, 'SELECT 1 FROM edits WHERE id = ? AND undone = 0 AND id = (SELECT max(id) FROM edits)').get(editId);
}

/** Log changes of assets' fields under an edit, in the edit log and the change log (inside the transaction that made them). */
export function logFieldChanges(db: Db, editId: number, changes: readonly FieldChange[]): void {
  if (!changes.length) return;
  const log = stmt(db, 'INSERT INTO edit_changes (edit_id, asset_id, field, old_value, new_value) VALUES (?, ?, ?, ?, ?)');
  for (const c of changes) log.run(editId, c.assetId, c.field, JSON.stringify(c.old), JSON.stringify(c.new));
  recordFieldChanges(db, editId, changes);
}

/** Record the values an undo put back (the edit's changes reversed), in the change log as changes of their own. */
export function logUndoneChanges(db: Db, editId: number, changes: readonly FieldChange[]): void {
  recordFieldChanges(db, editId, changes, true);
}

/** Name edits once every chunk is in. */
export function describeEdits(db: Db, editIds: readonly number[], description: string): void {
  const rename = stmt(db, 'UPDATE edits SET description = ? WHERE id = ?');
  for (const id of editIds) rename.run(description, id);
}

/** Mark an edit undone (its last changes put back). */
export function markUndone(db: Db, editId: number): void {
  stmt(db, 'UPDATE edits SET undone = 1 WHERE id = ?').run(editId);
}

/** Add what puts the library back to an edit already logged. */
export function attachLibraryUndo(db: Db, editId: number, undo: readonly unknown[]): void {
  const had = stmt(db, 'SELECT library_undo FROM edits WHERE id = ?').pluck().get(editId) as string | null;
  const all = [...(had ? (JSON.parse(had) as unknown[]) : []), ...undo];
  stmt(db, 'UPDATE edits SET library_undo = ? WHERE id = ?').run(JSON.stringify(all), editId);
}

/** Record changes to the library itself under an edit (or none), in the change log. */
export function logOperations(db: Db, editId: number | null, ops: readonly Operation[], undo = false): void {
  recordOperations(db, editId, ops, undo);
}

/**
 * A rename's change of a file's path, logged in the edit log when the rename is journalled,
 * before the file moves (undo reads it). The change log records it when the file has moved
 * (logPathMoved): a file that could not move never changed.
 */
export function logPathPlanned(db: Db, editId: number, assetId: number, old: unknown, now: unknown): void {
  stmt(db, "INSERT INTO edit_changes (edit_id, asset_id, field, old_value, new_value) VALUES (?, ?, 'path', ?, ?)").run(editId, assetId, JSON.stringify(old), JSON.stringify(now));
}

/**
 * A file renamed (or moved back by undo) has moved: the catalogue follows it (its path, name and
 * stack key) and the change log records it, the asset named by its old path. A row of a file
 * that vanished earlier may hold the new name: it keeps its data (a move by content can still
 * revive it) under a name no file can have.
 */
export function logPathMoved(db: Db, editId: number | null, move: { assetId: number; folderId: number; from: string; to: string; stackKey: string }, undo: boolean): void {
  recordOperations(db, editId, [{ op: 'set', assetId: move.assetId, field: 'path', value: { from: move.from, to: move.to } }], undo);
  stmt(db, "UPDATE assets SET rel_path = '.renamed-away/' || id || '/' || rel_path WHERE folder_id = ? AND rel_path = ? AND removed_at IS NOT NULL").run(move.folderId, move.to);
  stmt(db, 'UPDATE assets SET rel_path = ?, name = ?, stack_key = ? WHERE id = ?').run(move.to, move.to.split('/').pop()!, move.stackKey, move.assetId);
}

/** A journalled file that did not move: its planned change goes, and the edit too once it has none. */
export function dropPathPlanned(db: Db, editId: number, assetId: number): void {
  stmt(db, "DELETE FROM edit_changes WHERE edit_id = ? AND asset_id = ? AND field = 'path'").run(editId, assetId);
  stmt(db, 'DELETE FROM edits WHERE id = ? AND NOT EXISTS (SELECT 1 FROM edit_changes WHERE edit_id = ?)').run(editId, editId);
}
