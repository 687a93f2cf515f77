import { stmt, type Db } from './statements';

// Collections and their members as the library's edits write them. Each caller logs what it did
// (collection.* operations through logLibraryEdit; membership as an edit of the photos'
// `collection:N` field, recorded as add / remove / move).

/** Make a collection; returns its id. */
export function insertCollection(db: Db, c: { name: string; kind: string; parentId: number | null; query: string | null }): number {
  return Number(stmt(db, 'INSERT INTO collections (name, kind, parent_id, query, created_at) VALUES (?, ?, ?, ?, ?)').run(c.name, c.kind, c.parentId, c.query, Date.now()).lastInsertRowid);
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
