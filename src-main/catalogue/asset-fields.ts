import { stmt, type Db } from './statements';

// The scalar fields of a photo as an edit writes them (caption, title, rating, flag, colour
// label, the rights fields): one fixed statement per field, so no SQL is ever built from input.
// The edit that calls this logs the change (edit-log.ts); the file writer's adoption of what a
// file holds (metadata/writer.ts) is the scan's kind of change, not recorded.

const COLUMN_UPDATE = {
  caption: 'UPDATE assets SET caption = ? WHERE id = ?',
  title: 'UPDATE assets SET title = ? WHERE id = ?',
  rating: 'UPDATE assets SET rating = ? WHERE id = ?',
  flag: 'UPDATE assets SET flag = ? WHERE id = ?',
  label: 'UPDATE assets SET color_label = ? WHERE id = ?',
  headline: 'UPDATE assets SET headline = ? WHERE id = ?',
  creator: 'UPDATE assets SET creator = ? WHERE id = ?',
  copyright: 'UPDATE assets SET copyright = ? WHERE id = ?',
  credit: 'UPDATE assets SET credit = ? WHERE id = ?',
  city: 'UPDATE assets SET city = ? WHERE id = ?',
  country: 'UPDATE assets SET country = ? WHERE id = ?',
} as const;

/** A scalar field of a photo stored in its own column. */
export type ColumnField = keyof typeof COLUMN_UPDATE;

/** Write one scalar field of one photo (inside the edit's transaction). */
export function setAssetColumn(db: Db, assetId: number, field: ColumnField, value: string | number | null): void {
  stmt(db, COLUMN_UPDATE[field]).run(value, assetId);
}

/** A photo's IPTC Extension fields, stored as one JSON object (null: none). */
export function setExtendedJson(db: Db, assetId: number, json: string | null): void {
  stmt(db, 'UPDATE assets SET iptc_extended = ? WHERE id = ?').run(json, assetId);
}

const STOCK_UPSERT = {
  editorial: 'INSERT INTO asset_stock (asset_id, editorial) VALUES (?, ?) ON CONFLICT(asset_id) DO UPDATE SET editorial = excluded.editorial',
  releases: 'INSERT INTO asset_stock (asset_id, releases) VALUES (?, ?) ON CONFLICT(asset_id) DO UPDATE SET releases = excluded.releases',
  categories: 'INSERT INTO asset_stock (asset_id, categories) VALUES (?, ?) ON CONFLICT(asset_id) DO UPDATE SET categories = excluded.categories',
} as const;

/** One agency field of a photo as stored: editorial 0/1, releases and categories as JSON lists. */
export function setStockColumn(db: Db, assetId: number, field: keyof typeof STOCK_UPSERT, stored: number | string): void {
  stmt(db, STOCK_UPSERT[field]).run(assetId, stored);
}

/**
 * A keyword spelled anew across the library (the vocabulary is case-insensitive for ASCII): the
 * row `from` (matched as the vocabulary matches) takes the spelling `to`. The rename or merge
 * that calls this records it (keyword.rename / keyword.merge) and each photo's keywords.
 */
export function respellKeyword(db: Db, from: string, to: string): void {
  if (from === to) stmt(db, 'UPDATE keywords SET name = ? WHERE name = ? AND name <> ? COLLATE BINARY').run(to, to, to);
  else stmt(db, 'UPDATE keywords SET name = ? WHERE name = ?').run(to, from);
}
