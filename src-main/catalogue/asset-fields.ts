import { stmt, type Db } from './statements';

// The scalar fields of a photo as an edit writes them (caption, title, rating, flag, colour
// label, the rights fields): one fixed statement per field, so no SQL is ever built from input.
// The edit that calls this logs the change (edit-log.ts).

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
