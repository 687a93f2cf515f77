import { recordOperations, type Operation } from './change-log';
import { stmt, type Db } from './statements';

// Folders and the removal of photos from the catalogue, through the door: each change is
// written here and recorded in the change log (folder.add, folder.relink, folder.remove, and an
// asset.remove for every photo that leaves the catalogue, named by its folder and path since
// the catalogue no longer holds it). Files on disk are never touched here.

/** Add a folder (its path resolved by the caller); returns its id. */
export function addFolderRow(db: Db, path: string): number {
  return db.transaction(() => {
    const id = Number(stmt(db, 'INSERT INTO folders (path, added_at, online) VALUES (?, ?, 1)').run(path, Date.now()).lastInsertRowid);
    recordOperations(db, null, [{ op: 'folder.add', value: { id, path } }]);
    return id;
  })();
}

/** Point a folder at its new place (a moved or renamed folder); every photo is kept. */
export function relinkFolderRow(db: Db, id: number, path: string): void {
  db.transaction(() => {
    const before = stmt(db, 'SELECT path FROM folders WHERE id = ?').pluck().get(id) as string | undefined;
    stmt(db, 'UPDATE folders SET path = ?, online = 1 WHERE id = ?').run(path, id);
    recordOperations(db, null, [{ op: 'folder.relink', value: { id, from: before ?? null, to: path } }]);
  })();
}

/** Mark a folder as going (it leaves the folder list at once; its photos go in steps, then the folder). */
export function markFolderRemoving(db: Db, id: number): void {
  db.transaction(() => {
    const path = stmt(db, 'SELECT path FROM folders WHERE id = ?').pluck().get(id) as string | undefined;
    stmt(db, 'UPDATE folders SET removing_at = ? WHERE id = ?').run(Date.now(), id);
    recordOperations(db, null, [{ op: 'folder.remove', value: { id, path: path ?? null } }]);
  })();
}

/**
 * Delete photos from the catalogue (inside the caller's transaction), in order, while `more()`
 * allows; returns how many went and adds their thumbnails to `thumbs`. Each is recorded as an
 * asset.remove, named by the folder and path it had.
 */
export function deleteAssets(db: Db, ids: readonly number[], more: () => boolean, thumbs: Set<string>): number {
  const del = stmt(
    db,
    'DELETE FROM assets WHERE id = ? RETURNING thumb, rel_path, content_hash, (SELECT path FROM folders f WHERE f.id = assets.folder_id) AS folder',
  );
  const gone: Operation[] = [];
  let n = 0;
  for (const id of ids) {
    const row = del.get(id) as { thumb: string | null; rel_path: string; content_hash: string | null; folder: string | null } | undefined;
    n++;
    if (row) {
      if (row.thumb) thumbs.add(row.thumb);
      gone.push({ op: 'asset.remove', assetId: id, identity: { folder: row.folder, path: row.rel_path, hash: row.content_hash } });
    }
    if (!more()) break;
  }
  recordOperations(db, null, gone);
  return n;
}

/** Delete a folder whose photos have all gone. */
export function deleteFolderRow(db: Db, id: number): void {
  stmt(db, 'DELETE FROM folders WHERE id = ?').run(id);
}

/**
 * A photo another member of the studio removed from the library, deleted here too (the caller
 * records that member's change). Returns its thumbnail, for the caller to let go.
 */
export function removeAssetRow(db: Db, id: number): string | null {
  const row = stmt(db, 'DELETE FROM assets WHERE id = ? RETURNING thumb').get(id) as { thumb: string | null } | undefined;
  return row?.thumb ?? null;
}

/** A folder another member removed from the library: it leaves the folder list here (its photos go by their own changes). */
export function markFolderRemovedRemotely(db: Db, id: number): void {
  stmt(db, 'UPDATE folders SET removing_at = ? WHERE id = ?').run(Date.now(), id);
}

/** Whether this machine reaches a folder now (per machine: not recorded as a change). */
export function setFolderOnline(db: Db, id: number, online: boolean): void {
  stmt(db, 'UPDATE folders SET online = ? WHERE id = ?').run(online ? 1 : 0, id);
}
