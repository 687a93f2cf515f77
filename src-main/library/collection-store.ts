import { setMemberRow } from '../catalogue/collections';
import type { CollectionKind, SmartQuery } from '../../src-preload/contract';
import { ApiError } from '../core/errors';
import { prepared, type Db } from './db';

// The collections tables (migration 18) as rows: what search.ts needs to resolve a collection
// filter and edits.ts to write and undo memberships. The collection commands (create, list
// with counts, add, reorder) are in collections.ts, above the search.

export interface CollectionRow {
  id: number;
  name: string;
  kind: CollectionKind;
  parent_id: number | null;
  query: string | null;
}

export function collectionRow(db: Db, id: number): CollectionRow | undefined {
  return prepared(db, 'SELECT id, name, kind, parent_id, query FROM collections WHERE id = ?').get(id) as CollectionRow | undefined;
}

export function collectionRows(db: Db): CollectionRow[] {
  return prepared(db, 'SELECT id, name, kind, parent_id, query FROM collections ORDER BY name COLLATE NOCASE').all() as CollectionRow[];
}

export const smartQueryOf = (row: CollectionRow): SmartQuery => (row.query ? (JSON.parse(row.query) as SmartQuery) : {});

/** The collections inside a set, at any depth. */
export function descendants(db: Db, id: number): CollectionRow[] {
  return prepared(
    db,
    `WITH RECURSIVE under(id) AS (SELECT id FROM collections WHERE parent_id = ? UNION SELECT c.id FROM collections c JOIN under u ON c.parent_id = u.id)
     SELECT c.id, c.name, c.kind, c.parent_id, c.query FROM collections c JOIN under u ON u.id = c.id`,
  ).all(id) as CollectionRow[];
}

/** A manual collection's live members, in its custom order. */
export function memberIds(db: Db, id: number): number[] {
  return prepared(
    db,
    `SELECT ca.asset_id FROM collection_assets ca JOIN assets a ON a.id = ca.asset_id AND a.removed_at IS NULL
     WHERE ca.collection_id = ? ORDER BY ca.position, ca.asset_id`,
  )
    .pluck()
    .all(id) as number[];
}

/** Where an asset is in a manual collection's order, or null when it is not in it. */
export function membership(db: Db, collectionId: number, assetId: number): number | null {
  const p = prepared(db, 'SELECT position FROM collection_assets WHERE collection_id = ? AND asset_id = ?').pluck().get(collectionId, assetId);
  return typeof p === 'number' ? p : null;
}

/** Put an asset at `position` in a manual collection, or take it out (null). A deleted collection is left alone (undo after delete). */
export function setMembership(db: Db, collectionId: number, assetId: number, position: number | null): void {
  if (position !== null && !collectionRow(db, collectionId)) return;
  setMemberRow(db, collectionId, assetId, position);
}

/** The names of the collections an asset is a member of (manual ones; `show --json`). */
export function collectionNamesOf(db: Db, assetId: number): string[] {
  return prepared(
    db,
    'SELECT c.name FROM collection_assets ca JOIN collections c ON c.id = ca.collection_id WHERE ca.asset_id = ? ORDER BY c.name COLLATE NOCASE',
  )
    .pluck()
    .all(assetId) as string[];
}

export function notFound(): ApiError {
  return new ApiError('not_found', 'That collection no longer exists. It may have been deleted; pick another one.');
}
