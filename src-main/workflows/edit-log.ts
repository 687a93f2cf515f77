import type { LibraryCtx } from '../library/context';
import { getAssetKeywords, setAssetKeywords } from '../library/keywords';
import { prepared } from '../library/db';

// Edits made by the workflows, in the same log as hand edits (edits / edit_changes, undone by
// library/edits.ts undo()), with a batch id when they belong to an AI run so the run can be
// reverted on its own later. Callers run these inside their transaction.

export type LoggedField = 'keywords' | 'caption' | 'title';
export type LoggedValue = string[] | string | null;

export interface PlannedChange {
  assetId: number;
  field: LoggedField;
  value: LoggedValue;
}

export function readLogged(ctx: LibraryCtx, assetId: number, field: LoggedField): LoggedValue {
  if (field === 'keywords') return getAssetKeywords(ctx.db, assetId);
  const row = prepared(ctx.db, 'SELECT caption, title FROM assets WHERE id = ?').get(assetId) as { caption: string | null; title: string | null };
  return row[field];
}

function writeLogged(ctx: LibraryCtx, assetId: number, field: LoggedField, value: LoggedValue): LoggedValue {
  if (field === 'keywords') return setAssetKeywords(ctx.db, assetId, value as string[]);
  prepared(ctx.db, `UPDATE assets SET ${field === 'caption' ? 'caption' : 'title'} = ? WHERE id = ?`).run(value, assetId);
  return value;
}

const same = (a: LoggedValue, b: LoggedValue): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * Write the planned values and log what changed as ONE edit (undoable). Unchanged values are
 * not logged; nothing changed, nothing logged. Must run inside a transaction. Returns the ids
 * of the assets that changed (for the libraryChanged event, sent by the caller after commit).
 */
export function logEdit(ctx: LibraryCtx, plan: readonly PlannedChange[], description: string, batchId: string | null): number[] {
  const changes: { assetId: number; field: LoggedField; old: LoggedValue; new: LoggedValue }[] = [];
  for (const p of plan) {
    const old = readLogged(ctx, p.assetId, p.field);
    if (same(old, p.value)) continue;
    const stored = writeLogged(ctx, p.assetId, p.field, p.value);
    if (!same(old, stored)) changes.push({ assetId: p.assetId, field: p.field, old, new: stored });
  }
  if (!changes.length) return [];
  const editId = Number(
    prepared(ctx.db, 'INSERT INTO edits (at, description, batch_id) VALUES (?, ?, ?)').run(Date.now(), description, batchId).lastInsertRowid,
  );
  const log = prepared(ctx.db, 'INSERT INTO edit_changes (edit_id, asset_id, field, old_value, new_value) VALUES (?, ?, ?, ?, ?)');
  for (const c of changes) log.run(editId, c.assetId, c.field, JSON.stringify(c.old), JSON.stringify(c.new));
  return [...new Set(changes.map((c) => c.assetId))];
}

export const quote = (s: string): string => `“${s}”`;

/** "3 photos", "1 video", "2 files". */
export function countNoun(ctx: LibraryCtx, ids: readonly number[]): string {
  const kinds = new Set<string>();
  const kindOf = prepared(ctx.db, 'SELECT kind FROM assets WHERE id = ?');
  for (const id of ids.slice(0, 1000)) {
    const r = kindOf.get(id) as { kind: string } | undefined;
    if (r) kinds.add(r.kind);
  }
  const noun = kinds.size === 1 ? (kinds.has('image') ? 'photo' : kinds.has('video') ? 'video' : 'audio file') : 'file';
  return `${ids.length} ${noun}${ids.length === 1 ? '' : 's'}`;
}
