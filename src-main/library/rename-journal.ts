import { existsSync, readdirSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { dropPathPlanned, logPathMoved } from '../catalogue/edit-log';
import type { ApiEventBus } from '../core/events';
import { prepared, type Db } from './db';
import { stackKeyOf } from './formats';

// The rename journal (migration 22): what a batch rename is moving, file by file, so that a
// kill -9 in the middle leaves each file either renamed with the catalogue following it, or
// untouched. Kept apart from rename.ts so that opening a catalogue (context.ts) can settle a
// journal without depending on the rest of the rename code.

/** What the journal needs of a library (a LibraryCtx is one). */
export interface JournalCtx {
  db: Db;
  events: ApiEventBus;
}

export const abs = (folder: string, rel: string): string => join(folder, ...rel.split('/'));

export interface JournalRow {
  id: number;
  pid: number;
  edit_id: number | null;
  is_undo: number;
  batch: string;
  shot: number;
  asset_id: number;
  folder_path: string;
  from_rel: string;
  to_rel: string;
  sidecars: string;
}

/** The same file under two spellings (a change of case on a case-insensitive disk). */
export function sameFile(a: string, b: string): boolean {
  try {
    const sa = statSync(a);
    const sb = statSync(b);
    return sa.ino === sb.ino && sa.dev === sb.dev;
  } catch {
    return false;
  }
}

/** Is a file there under exactly this name (not merely under another case of it)? */
function presentExactly(path: string): boolean {
  if (!existsSync(path)) return false;
  const slash = path.lastIndexOf('/') === -1 ? path.lastIndexOf('\\') : path.lastIndexOf('/');
  try {
    return readdirSync(path.slice(0, slash) || '/').includes(path.slice(slash + 1));
  } catch {
    return true;
  }
}

/** Rename without ever replacing another file. */
function move(from: string, to: string): void {
  if (from === to) return;
  if (existsSync(to) && !sameFile(from, to)) throw new Error(`“${to}” appeared meanwhile; it was left as it is`);
  renameSync(from, to);
}

/**
 * Point the catalogue at the file's new name and drop its journal row: one transaction. A live
 * batch keeps the row (`keepRow`) until every file of its shot has moved, so that a kill between
 * a RAW and its JPEG leaves the journal saying the shot was under way (and recovery moves the
 * partner too) instead of forgetting the half that had moved.
 */
function commitRow(ctx: JournalCtx, j: JournalRow, keepRow = false): void {
  ctx.db.transaction(() => {
    const row = prepared(ctx.db, 'SELECT folder_id FROM assets WHERE id = ?').get(j.asset_id) as { folder_id: number } | undefined;
    if (row) {
      logPathMoved(ctx.db, j.edit_id, { assetId: j.asset_id, folderId: row.folder_id, from: j.from_rel, to: j.to_rel, stackKey: stackKeyOf(j.to_rel) }, j.is_undo === 1);
      prepared(ctx.db, 'UPDATE scan_errors SET path = ? WHERE asset_id = ? AND path = ?')
        .run(abs(j.folder_path, j.to_rel), j.asset_id, abs(j.folder_path, j.from_rel));
    }
    if (!keepRow) prepared(ctx.db, 'DELETE FROM rename_journal WHERE id = ?').run(j.id);
  })();
}

/** Drop the journal rows of a shot whose files have all been settled. */
export function closeShot(ctx: JournalCtx, batch: string, shot: number): void {
  prepared(ctx.db, 'DELETE FROM rename_journal WHERE batch = ? AND shot = ?').run(batch, shot);
}

/** A file that did not move: its sidecars go back, its journal row (and, for a rename, its logged change) go. */
export function rollBackRow(ctx: JournalCtx, j: JournalRow): void {
  for (const [from, to] of JSON.parse(j.sidecars) as [string, string][]) {
    const a = abs(j.folder_path, from);
    const b = abs(j.folder_path, to);
    if (a !== b && presentExactly(b) && !presentExactly(a)) renameSync(b, a);
  }
  ctx.db.transaction(() => {
    if (j.edit_id !== null && !j.is_undo) {
      dropPathPlanned(ctx.db, j.edit_id, j.asset_id);
    }
    prepared(ctx.db, 'DELETE FROM rename_journal WHERE id = ?').run(j.id);
  })();
}

/** Sidecars first, then the file (the commit point), then the catalogue (see commitRow for `keepRow`). */
export function applyRow(ctx: JournalCtx, j: JournalRow, keepRow = false): void {
  const sidecars = JSON.parse(j.sidecars) as [string, string][];
  const done: [string, string][] = [];
  try {
    for (const [from, to] of sidecars) {
      const a = abs(j.folder_path, from);
      if (!existsSync(a)) continue;
      move(a, abs(j.folder_path, to));
      done.push([from, to]);
    }
    move(abs(j.folder_path, j.from_rel), abs(j.folder_path, j.to_rel));
  } catch (err) {
    rollBackRow(ctx, { ...j, sidecars: JSON.stringify(done) });
    throw err;
  }
  commitRow(ctx, j, keepRow);
}

function isAlive(pid: number): boolean {
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Finish or roll back the renames a killed process left in the journal (called on every open).
 * A shot (a RAW and its JPEG) is settled as a whole so the pair keeps matching: when any of
 * its files is found under its new name, the others follow it (sidecars too) and the
 * catalogue points at them; otherwise every sidecar that moved goes back. A batch of a
 * process still running (the app while the CLI opens the catalogue) is left to it. Returns
 * how many files were settled.
 */
export function recoverRenames(ctx: JournalCtx): number {
  const rows = ctx.db.prepare('SELECT * FROM rename_journal ORDER BY id').all() as JournalRow[];
  const shots = new Map<string, JournalRow[]>();
  for (const j of rows) {
    if (isAlive(j.pid)) continue;
    const key = `${j.batch}\u0000${j.shot}`;
    shots.set(key, [...(shots.get(key) ?? []), j]);
  }
  let settled = 0;
  const touched: number[] = [];
  for (const shot of shots.values()) {
    const moved = (j: JournalRow): boolean => presentExactly(abs(j.folder_path, j.to_rel)) && !presentExactly(abs(j.folder_path, j.from_rel));
    const forward = shot.some(moved);
    for (const j of shot) {
      try {
        if (!forward) rollBackRow(ctx, j);
        else if (moved(j)) {
          for (const [sf, st] of JSON.parse(j.sidecars) as [string, string][]) {
            const a = abs(j.folder_path, sf);
            const b = abs(j.folder_path, st);
            if (a !== b && presentExactly(a) && !existsSync(b)) renameSync(a, b);
          }
          commitRow(ctx, j);
        } else if (presentExactly(abs(j.folder_path, j.from_rel))) {
          applyRow(ctx, j); // its partner moved: it follows
        } else {
          rollBackRow(ctx, j); // gone meanwhile: nothing to move
        }
        touched.push(j.asset_id);
        settled++;
      } catch {
        // The folder is offline or unwritable now: the row stays for the next open.
      }
    }
  }
  if (touched.length) ctx.events.emit('libraryChanged', { reason: 'edit', assetIds: touched });
  return settled;
}
