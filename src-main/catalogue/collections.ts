import { stmt, type Db } from './statements';

// Collections and their members as the library's edits write them. Each caller logs what it did
// (collection.* operations through logLibraryEdit; membership as an edit of the photos'
// `collection:N` field, recorded as add / remove / move).

/** Make a collection; returns its id. */
export function insertCollection(db: Db, c: { name: string; kind: string; parentId: number | null; query: string | null }): number {
  return Number(stmt(db, 'INSERT INTO collections (name, kind, parent_id, query, created_at) VALUES (?, ?, ?, ?, ?)').run(c.name, c.kind, c.parentId, c.query, Date.now()).lastInsertRowid);
}

/** Rename a collection, move it into a set (null: the top level), or change a smart collection's search. */
export function updateCollectionRow(db: Db, id: number, changes: { name?: string; parentId?: number | null; query?: string }): void {
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
