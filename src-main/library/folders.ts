import { realpathSync, statSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { FolderInfo } from '../../src-preload/contract';
import { ApiError, notFound } from '../core/errors';
import { isInside } from '../core/media';
import type { LibraryCtx } from './context';
import { pruneUnusedKeywords } from './keywords';
import { thumbAbsPath } from './thumbs';

// Library folders: add, remove, relink, and online/offline state. A folder whose root cannot
// be reached (unplugged drive, unmounted share) is offline: its assets stay browsable and are
// never treated as deleted.

interface FolderRow {
  id: number;
  path: string;
  online: number;
  added_at: number;
  last_scan_at: number | null;
  asset_count: number;
  error_count: number;
}

const SELECT_FOLDERS = `
  SELECT f.id, f.path, f.online, f.added_at, f.last_scan_at,
    (SELECT COUNT(*) FROM assets a WHERE a.folder_id = f.id AND a.removed_at IS NULL) AS asset_count,
    (SELECT COUNT(*) FROM scan_errors e WHERE e.folder_id = f.id) AS error_count
  FROM folders f`;

function toInfo(r: FolderRow, isScanning?: (id: number) => boolean): FolderInfo {
  return {
    id: r.id,
    path: r.path,
    online: r.online === 1,
    assetCount: r.asset_count,
    errorCount: r.error_count,
    addedAt: r.added_at,
    lastScanAt: r.last_scan_at,
    scanning: isScanning ? isScanning(r.id) : false,
  };
}

export function listFolders(ctx: LibraryCtx, isScanning?: (id: number) => boolean): FolderInfo[] {
  return ctx.db.prepare<[], FolderRow>(`${SELECT_FOLDERS} ORDER BY f.path`).all().map((r) => toInfo(r, isScanning));
}

function getFolder(ctx: LibraryCtx, id: number): FolderInfo {
  const row = ctx.db.prepare<[number], FolderRow>(`${SELECT_FOLDERS} WHERE f.id = ?`).get(id);
  if (!row) throw notFound('That folder');
  return toInfo(row);
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
  for (const f of ctx.db.prepare<[], { id: number; path: string }>('SELECT id, path FROM folders').all()) {
    if (f.id === exceptId) continue;
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
  const info = ctx.db.prepare('INSERT INTO folders (path, added_at, online) VALUES (?, ?, 1)').run(real, Date.now());
  return getFolder(ctx, Number(info.lastInsertRowid));
}

/**
 * Forget a folder: its catalogue rows go (keywords, errors cascade), files on disk are never
 * touched. Cached thumbnails no other asset shares are deleted in the background.
 */
export function removeFolder(ctx: LibraryCtx, id: number): void {
  getFolder(ctx, id);
  const orphans = ctx.db.transaction(() => {
    // Set against set (two passes): a lookup of each thumbnail among all the other assets has
    // no index to use and read the whole catalogue once per photo of the folder.
    const thumbs = ctx.db
      .prepare<[number, number], { thumb: string }>(
        `SELECT thumb FROM assets WHERE folder_id = ? AND thumb IS NOT NULL
         EXCEPT SELECT thumb FROM assets WHERE folder_id != ? AND thumb IS NOT NULL`,
      )
      .all(id, id)
      .map((r) => r.thumb);
    ctx.db.prepare('DELETE FROM assets WHERE folder_id = ?').run(id);
    ctx.db.prepare('DELETE FROM folders WHERE id = ?').run(id);
    pruneUnusedKeywords(ctx.db);
    return thumbs;
  })();
  for (const rel of orphans) void unlink(thumbAbsPath(ctx, rel)).catch(() => undefined);
}

/** Point a moved or renamed folder at its new place; every row is kept, the next scan reconciles. */
export function relinkFolder(ctx: LibraryCtx, id: number, newPath: string): FolderInfo {
  getFolder(ctx, id);
  const real = resolveDir(newPath);
  assertNoOverlap(ctx, real, id);
  ctx.db.prepare('UPDATE folders SET path = ?, online = 1 WHERE id = ?').run(real, id);
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
  const rows = ctx.db.prepare<[], { id: number; path: string; online: number }>('SELECT id, path, online FROM folders').all();
  const set = ctx.db.prepare('UPDATE folders SET online = ? WHERE id = ?');
  let changed = false;
  for (const r of rows) {
    const online = reachable(r.path) ? 1 : 0;
    if (online !== r.online) {
      set.run(online, r.id);
      changed = true;
    }
  }
  return changed;
}
