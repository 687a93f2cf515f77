import { realpathSync, statSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { resolve } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { FolderInfo } from '../../src-preload/contract';
import { addFolderRow, deleteAssets, deleteFolderRow, markFolderRemoving, relinkFolderRow, setFolderOnline } from '../catalogue/folders';
import { ApiError, notFound } from '../core/errors';
import { isInside } from '../core/media';
import { STEP, turnBudget } from '../core/steps';
import type { LibraryCtx } from './context';
import { prepared } from './db';
import { inEditLane } from './edit-lane';
import { pruneUnusedKeywords } from './keywords';
import { liveByFolder } from '../search/tallies';
import { thumbAbsPath } from './thumbs';

// Library folders: add, remove, relink, and online/offline state. A folder whose root cannot
// be reached (unplugged drive, unmounted share) is offline: its assets stay browsable and are
// never treated as deleted. A folder being removed (removing_at set) is no longer one of them.

interface FolderRow {
  id: number;
  path: string;
  online: number;
  added_at: number;
  last_scan_at: number | null;
  asset_count: number;
  error_count: number;
}

/** The folders, with their photos counted by SQL unless the catalogue index counts them (tallies.ts). */
const selectFolders = (counted: boolean): string => `
  SELECT f.id, f.path, f.online, f.added_at, f.last_scan_at,
    ${counted ? '0' : '(SELECT COUNT(*) FROM assets a WHERE a.folder_id = f.id AND a.removed_at IS NULL)'} AS asset_count,
    (SELECT COUNT(*) FROM scan_errors e WHERE e.folder_id = f.id) AS error_count
  FROM folders f WHERE f.removing_at IS NULL`;

function toInfo(r: FolderRow, counts: Map<number, number> | null, isScanning?: (id: number) => boolean): FolderInfo {
  return {
    id: r.id,
    path: r.path,
    online: r.online === 1,
    assetCount: counts ? counts.get(r.id) ?? 0 : r.asset_count,
    errorCount: r.error_count,
    addedAt: r.added_at,
    lastScanAt: r.last_scan_at,
    scanning: isScanning ? isScanning(r.id) : false,
  };
}

export function listFolders(ctx: LibraryCtx, isScanning?: (id: number) => boolean): FolderInfo[] {
  const counts = liveByFolder(ctx);
  return prepared(ctx.db, `${selectFolders(counts !== null)} ORDER BY f.path`).all().map((r) => toInfo(r as FolderRow, counts, isScanning));
}

function getFolder(ctx: LibraryCtx, id: number): FolderInfo {
  const counts = liveByFolder(ctx);
  const row = prepared(ctx.db, `${selectFolders(counts !== null)} AND f.id = ?`).get(id) as FolderRow | undefined;
  if (!row) throw notFound('That folder');
  return toInfo(row, counts);
}

/** The absolute real path of an existing directory, or a validation error saying what is wrong. */
function resolveDir(path: string): string {
  const trimmed = path.trim();
  if (!trimmed) throw new ApiError('validation', 'Choose a folder to add.', 'path');
  let real: string;
  try {
    real = realpathSync(resolve(trimmed));
  } catch {
    throw new ApiError('validation', `The folder “${trimmed}” does not exist (or cannot be reached).`, 'path');
  }
  if (!statSync(real).isDirectory()) throw new ApiError('validation', `“${trimmed}” is a file, not a folder. Choose the folder that contains it.`, 'path');
  return real;
}

/** Library folders may not overlap: one file must belong to exactly one folder. */
function assertNoOverlap(ctx: LibraryCtx, real: string, exceptId?: number): void {
  const folders = ctx.db.prepare<[], { id: number; path: string; removing_at: number | null }>('SELECT id, path, removing_at FROM folders').all();
  for (const f of folders) {
    if (f.id === exceptId) continue;
    if (f.removing_at !== null && (f.path === real || isInside(real, f.path) || isInside(f.path, real))) {
      throw new ApiError('conflict', `“${f.path}” is still being removed from the library. Add the folder again once its removal has finished.`, 'path');
    }
    if (f.path === real) throw new ApiError('conflict', `“${real}” is already in the library.`, 'path');
    if (isInside(real, f.path)) {
      throw new ApiError('conflict', `“${real}” is inside “${f.path}”, which is already in the library, so its photos are already included.`, 'path');
    }
    if (isInside(f.path, real)) {
      throw new ApiError('conflict', `“${real}” contains “${f.path}”, which is already in the library. Remove that folder first, then add this one.`, 'path');
    }
  }
}

export function addFolder(ctx: LibraryCtx, path: string): FolderInfo {
  const real = resolveDir(path);
  assertNoOverlap(ctx, real);
  return getFolder(ctx, addFolderRow(ctx.db, real));
}

/** Removals under way, by library and folder: adding a folder waits for them (folderRemovals). */
const removals = new WeakMap<LibraryCtx, Map<number, Promise<void>>>();

/**
 * Forget a folder: its catalogue rows go (keywords, errors and every other row of its photos
 * with them), files on disk are never touched. Cached thumbnails no other photo shares are
 * deleted too.
 *
 * The folder is marked at once, before the first await: it leaves the folder list, and no scan
 * or watcher adds its files back. Its photos then go (once `after` settles: a scan of it being
 * cancelled) a turn's budget at a time, in the edit lane (an edit of some of them happens
 * wholly before or wholly after), so removing a folder of 100,000 photos never freezes the
 * window. A removal the app quit during is finished at the next start (resumeRemovals).
 */
export async function removeFolder(ctx: LibraryCtx, id: number, after?: Promise<unknown>): Promise<void> {
  getFolder(ctx, id);
  markFolderRemoving(ctx.db, id);
  await finishRemoval(ctx, id, after);
}

/** Finish every removal a quit cut short. */
export async function resumeRemovals(ctx: LibraryCtx): Promise<void> {
  const ids = ctx.db.prepare<[], { id: number }>('SELECT id FROM folders WHERE removing_at IS NOT NULL').all();
  await Promise.all(ids.map((r) => finishRemoval(ctx, r.id)));
}

/** Settles once every removal under way has ended (whether it finished or failed). */
export async function folderRemovals(ctx: LibraryCtx): Promise<void> {
  await Promise.allSettled(removals.get(ctx)?.values() ?? []);
}

function finishRemoval(ctx: LibraryCtx, id: number, after?: Promise<unknown>): Promise<void> {
  let byFolder = removals.get(ctx);
  if (!byFolder) removals.set(ctx, (byFolder = new Map()));
  const under = byFolder.get(id);
  if (under) return under;
  const removal = (async () => {
    await after;
    await inEditLane(ctx, () => deleteFolder(ctx, id));
  })().finally(() => byFolder.delete(id));
  byFolder.set(id, removal);
  return removal;
}

async function deleteFolder(ctx: LibraryCtx, id: number): Promise<void> {
  const { db } = ctx;
  const thumbs = new Set<string>();
  // The photos go through the catalogue's door (each recorded as removed in the change log).
  const photos = [prepared(db, 'SELECT id FROM assets WHERE folder_id = ? LIMIT ?'), (ids: number[], more: () => boolean) => deleteAssets(db, ids, more, thumbs)] as const;
  // Then the errors of files that never became photos (the photos' own went with them).
  const dropError = prepared(db, 'DELETE FROM scan_errors WHERE id = ?');
  const errors = [
    prepared(db, 'SELECT id FROM scan_errors WHERE folder_id = ? LIMIT ?'),
    (ids: number[], more: () => boolean) => {
      for (const rowId of ids) {
        dropError.run(rowId);
        if (!more()) return;
      }
    },
  ] as const;
  // The library closed (the app quits) between two steps: the next start finishes the removal.
  if (!(await deleteInTurns(ctx, ...photos, id)) || !(await deleteInTurns(ctx, ...errors, id))) return;
  db.transaction(() => {
    deleteFolderRow(db, id);
    pruneUnusedKeywords(db);
  })();
  const orphans = await unshared(ctx, thumbs);
  // Closed while looking: keep them all (a stale thumbnail costs disk; a lost one, a decode).
  if (!db.open) return;
  for (const rel of orphans) void unlink(thumbAbsPath(ctx, rel)).catch(() => undefined);
}

type Stmt = ReturnType<typeof prepared>;

/**
 * Delete the folder's rows `next` finds with `del`, a turn's budget per transaction. False when
 * the library was closed before all were gone.
 */
async function deleteInTurns(ctx: LibraryCtx, next: Stmt, del: (ids: number[], more: () => boolean) => unknown, folderId: number): Promise<boolean> {
  for (let first = true; ; first = false) {
    if (!first) await nextTurn();
    if (!ctx.db.open) return false;
    const ids = (next.all(folderId, STEP) as { id: number }[]).map((r) => r.id);
    if (ids.length === 0) return true;
    ctx.db.transaction(() => del(ids, turnBudget()))();
  }
}

/** Rows of the catalogue read per turn while looking for other photos that share a thumbnail. */
const SHARE_STEP = 5_000;

/**
 * The thumbnails of `thumbs` no photo left in the catalogue uses (one picture in two folders
 * shares one). Read in steps by id: no index leads to a thumbnail, and at a million photos one
 * read of them all would hold the main thread.
 */
async function unshared(ctx: LibraryCtx, thumbs: Set<string>): Promise<Set<string>> {
  const rest = prepared(ctx.db, 'SELECT id, thumb FROM assets WHERE id > ? ORDER BY id LIMIT ?');
  for (let after = 0; thumbs.size > 0 && ctx.db.open; await nextTurn()) {
    const rows = rest.all(after, SHARE_STEP) as { id: number; thumb: string | null }[];
    if (rows.length === 0) break;
    for (const r of rows) if (r.thumb) thumbs.delete(r.thumb);
    after = rows[rows.length - 1].id;
  }
  return thumbs;
}

/** Point a moved or renamed folder at its new place; every row is kept, the next scan reconciles. */
export function relinkFolder(ctx: LibraryCtx, id: number, newPath: string): FolderInfo {
  getFolder(ctx, id);
  const real = resolveDir(newPath);
  assertNoOverlap(ctx, real, id);
  relinkFolderRow(ctx.db, id, real);
  return getFolder(ctx, id);
}

function reachable(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Mark each folder online or offline by whether its root can be reached now. */
export function refreshOnline(ctx: LibraryCtx): boolean {
  const rows = ctx.db.prepare<[], { id: number; path: string; online: number }>('SELECT id, path, online FROM folders WHERE removing_at IS NULL').all();
  let changed = false;
  for (const r of rows) {
    const online = reachable(r.path) ? 1 : 0;
    if (online !== r.online) {
      setFolderOnline(ctx.db, r.id, online === 1);
      changed = true;
    }
  }
  return changed;
}
