import { setAssetColumn } from '../catalogue/asset-fields';
import type { LibraryCtx } from '../library/context';
import { getAssetKeywords, setAssetKeywords } from '../library/keywords';
import { prepared } from '../library/db';
import { inTurns } from '../core/steps';
import { EditLogWriter, type LoggedChange } from '../library/edit-log-writer';

// Edits made by the workflows, in the same log as hand edits (edits / edit_changes, undone by
// library/edits.ts undo()), with a batch id when they belong to an AI run so the run can be
// reverted on its own later. logEdit runs inside the caller's transaction (one asset, a few);
// writeInTurns writes a large plan a chunk at a time, never holding the main thread.

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
  setAssetColumn(ctx.db, assetId, field === 'caption' ? 'caption' : 'title', value as string | null);
  return value;
}

const same = (a: LoggedValue, b: LoggedValue): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Write the planned values (inside the caller's transaction) and return what changed: unchanged values are left out. */
export function writePlanned(ctx: LibraryCtx, plan: readonly PlannedChange[]): LoggedChange[] {
  const changes: LoggedChange[] = [];
  for (const p of plan) {
    const old = readLogged(ctx, p.assetId, p.field);
    if (same(old, p.value)) continue;
    const stored = writeLogged(ctx, p.assetId, p.field, p.value);
    if (!same(old, stored)) changes.push({ assetId: p.assetId, field: p.field, old, new: stored });
  }
  return changes;
}

/**
 * Write the planned values and log what changed as ONE edit (undoable). Unchanged values are
 * not logged; nothing changed, nothing logged. Must run inside a transaction. Returns the ids
 * of the assets that changed (for the libraryChanged event, sent by the caller after commit).
 */
export function logEdit(ctx: LibraryCtx, plan: readonly PlannedChange[], description: string, batchId: string | null): number[] {
  const log = new EditLogWriter(ctx, description, batchId);
  log.add(writePlanned(ctx, plan));
  return [...log.changed];
}

/**
 * Write a plan item by item as ONE edit (`log`), a turn's budget of items per transaction with
 * the event loop running between: `step(item)` runs inside the chunk's transaction, reads what
 * the item's asset should become (as it is now), records what goes with it (a suggestion's
 * state) and returns the planned values. Call it inside inEditLane; announce `log` after.
 */
export async function writeInTurns<T>(ctx: LibraryCtx, items: readonly T[], log: EditLogWriter, step: (item: T) => readonly PlannedChange[]): Promise<void> {
  const chunk = ctx.db.transaction((from: number, more: () => boolean): number => {
    const changes: LoggedChange[] = [];
    let i = from;
    do changes.push(...writePlanned(ctx, step(items[i++])));
    while (i < items.length && more());
    log.add(changes);
    return i;
  });
  await inTurns(items.length, chunk);
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
