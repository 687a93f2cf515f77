import { randomUUID } from 'node:crypto';
import { stmt, type Db } from './statements';

// Collections and their members as the library's edits write them. Each caller logs what it did
// (collection.* operations through logLibraryEdit; membership as an edit of the photos'
// `collection:N` field, recorded as add / remove / move).

/** Make a collection; returns its id. `uid`: its id across a studio's replicas (a new one when not given). */
export function insertCollection(db: Db, c: { name: string; kind: string; parentId: number | null; query: string | null; uid?: string }): number {
  const id = Number(stmt(db, 'INSERT INTO collections (name, kind, parent_id, query, created_at) VALUES (?, ?, ?, ?, ?)').run(c.name, c.kind, c.parentId, c.query, Date.now()).lastInsertRowid);
  stmt(db, 'INSERT OR REPLACE INTO collection_uids (id, uid) VALUES (?, ?)').run(id, c.uid ?? randomUUID().replaceAll('-', ''));
  return id;
}

/** A collection's id across the replicas of a studio (kept after the collection is deleted, so undo brings back the same one). */
export function collectionUid(db: Db, id: number): string | null {
  return (stmt(db, 'SELECT uid FROM collection_uids WHERE id = ?').pluck().get(id) as string | undefined) ?? null;
}

/** The collection this library holds under a studio-wide id (null: none, or deleted). */
export function collectionByUid(db: Db, uid: string): number | null {
  return (stmt(db, 'SELECT c.id FROM collection_uids u JOIN collections c ON c.id = u.id WHERE u.uid = ?').pluck().get(uid) as number | undefined) ?? null;
}

/** Rename a collection, move it into a set (null: the top level), or change a smart collection's search. */
export function updateCollectionRow(db: Db, id: number, changes: { name?: string; parentId?: number | null; query?: string | null }): void {
  if (changes.name !== undefined) stmt(db, 'UPDATE collections SET name = ? WHERE id = ?').run(changes.name, id);
  if (changes.parentId !== undefined) stmt(db, 'UPDATE collections SET parent_id = ? WHERE id = ?').run(changes.parentId, id);
  if (changes.query !== undefined) stmt(db, 'UPDATE collections SET query = ? WHERE id = ?').run(changes.query, id);
}

/** Delete a collection (what is inside it goes with it: ON DELETE CASCADE). */
export function deleteCollectionRow(db: Db, id: number): void {
  stmt(db, 'DELETE FROM collections WHERE id = ?').run(id);
}

/** Put a photo at `position` in a manual collection, or take it out (null). */
export function setMemberRow(db: Db, collectionId: number, assetId: number, position: number | null): void {
  if (position === null) {
    stmt(db, 'DELETE FROM collection_assets WHERE collection_id = ? AND asset_id = ?').run(collectionId, assetId);
    return;
  }
  stmt(
    db,
    'INSERT INTO collection_assets (collection_id, asset_id, position) VALUES (?, ?, ?) ON CONFLICT (collection_id, asset_id) DO UPDATE SET position = excluded.position',
  ).run(collectionId, assetId, position);
}

/** A deleted collection made again with its id (undo of a delete); one there already is kept. */
export function reinsertCollection(db: Db, c: { id: number; name: string; kind: string; parent_id: number | null; query: string | null; created_at: number }): void {
  stmt(db, 'INSERT OR IGNORE INTO collections (id, name, kind, parent_id, query, created_at) VALUES (?, ?, ?, ?, ?, ?)').run(c.id, c.name, c.kind, c.parent_id, c.query, c.created_at);
}

/** A member put back (undo of a delete), unless the photo has left the catalogue since. */
export function reinsertMember(db: Db, m: { collection_id: number; asset_id: number; position: number }): void {
  stmt(
    db,
    'INSERT OR IGNORE INTO collection_assets (collection_id, asset_id, position) SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM assets WHERE id = ?)',
  ).run(m.collection_id, m.asset_id, m.position, m.asset_id);
}
