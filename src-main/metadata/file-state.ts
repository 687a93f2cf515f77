import type { LibraryCtx } from '../library/context';
import { prepared } from '../library/db';
import type { FieldConflict } from './field-merge';
import { FIELD_NAMES, OPTIONAL_FIELDS, sameField, type FieldName, type ManagedFields } from './managed-fields';
import { withSynonyms } from '../library/keyword-list';
import { EXTENDED_FIELDS, parseExtended } from './extended-fields';

// file_state (migration 4): per asset, what its file holds for the managed fields as last
// read or written, the outcome of the last write, and unresolved merge conflicts. The
// library's values live in `assets`; the status a user sees is derived from both.

export type SyncStatus = 'in_sync' | 'unsaved' | 'written' | 'failed' | 'unknown';

export interface AssetSyncState {
  assetId: number;
  /**
   * in_sync: the library equals what the file held when last read; written: equals what
   * Tagsmith last wrote; unsaved: the library has changes not yet in the file; failed: the
   * last write failed (`error` says why); unknown: never compared (the rescan records it).
   */
  status: SyncStatus;
  error: string | null;
  /** Fields whose library value differs from the recorded file value. */
  unsavedFields: FieldName[];
  conflicts: FieldConflict[];
  writtenAt: number | null;
}

interface FileStateRow {
  asset_id: number;
  fields: string | null;
  status: 'read' | 'written' | 'failed';
  error: string | null;
  conflicts: string | null;
  checked_at: number;
  written_at: number | null;
}

interface LibraryRow {
  keywords_text: string;
  caption: string | null;
  title: string | null;
  rating: number;
  flag: string | null;
  headline: string | null;
  creator: string | null;
  copyright: string | null;
  credit: string | null;
  city: string | null;
  country: string | null;
  color_label: string | null;
  iptc_extended: string | null;
}

function stateRow(ctx: LibraryCtx, assetId: number): FileStateRow | null {
  return (prepared(ctx.db, 'SELECT * FROM file_state WHERE asset_id = ?').get(assetId) as FileStateRow | undefined) ?? null;
}

/** The file's managed values as last recorded (the merge base), or null. */
export function getFileSnapshot(ctx: LibraryCtx, assetId: number): Partial<ManagedFields> | null {
  const row = stateRow(ctx, assetId);
  return row?.fields ? (JSON.parse(row.fields) as Partial<ManagedFields>) : null;
}

/**
 * What the library wants in the file. Optional fields that are empty in the library are left
 * alone (undefined) unless the file held a value when last recorded: then the user cleared
 * it, and it is cleared in the file too.
 */
export function libraryFields(ctx: LibraryCtx, assetId: number, base: Partial<ManagedFields> | null = getFileSnapshot(ctx, assetId)): ManagedFields | null {
  const r = prepared(
    ctx.db,
    'SELECT keywords_text, caption, title, rating, flag, headline, creator, copyright, credit, city, country, color_label, iptc_extended FROM assets WHERE id = ?',
  ).get(assetId) as LibraryRow | undefined;
  if (!r) return null;
  const out: ManagedFields = {
    // With the keywords' synonyms when the user exports them (keyword-list.ts).
    keywords: withSynonyms(ctx, r.keywords_text ? r.keywords_text.split('\n') : []),
    caption: r.caption,
    title: r.title,
    rating: r.rating,
  };
  if (r.flag === 'reject') out.rejected = true;
  else if (r.flag === 'pick' || base?.rejected) out.rejected = false;
  for (const f of ['headline', 'creator', 'copyright', 'credit', 'city', 'country'] as const) {
    if (r[f] !== null && r[f].trim() !== '') out[f] = r[f];
    else if (base?.[f]) out[f] = null;
  }
  if (r.color_label !== null && r.color_label.trim() !== '') out.label = r.color_label;
  else if (base?.label) out.label = null;
  // Template fields: the library's values, and null for one the file had that the user cleared.
  const ext = parseExtended(r.iptc_extended);
  const extended: NonNullable<ManagedFields['extended']> = {};
  for (const f of EXTENDED_FIELDS) {
    if (ext[f] !== undefined) extended[f] = ext[f];
    else if (base?.extended?.[f]) extended[f] = null;
  }
  if (Object.keys(extended).length) out.extended = extended;
  return out;
}

/** After reading a file (index, rescan, successful merge): it and the library agree on `fields`. */
export function recordFileRead(ctx: LibraryCtx, assetId: number, fields: Partial<ManagedFields>, conflicts: FieldConflict[] = []): void {
  prepared(
    ctx.db,
    `INSERT INTO file_state (asset_id, fields, status, error, conflicts, checked_at) VALUES (?, ?, 'read', NULL, ?, ?)
     ON CONFLICT (asset_id) DO UPDATE SET fields = excluded.fields, status = 'read', error = NULL, conflicts = excluded.conflicts, checked_at = excluded.checked_at`,
  ).run(assetId, JSON.stringify(fields), conflicts.length ? JSON.stringify(conflicts) : null, Date.now());
}

export function recordFileWritten(ctx: LibraryCtx, assetId: number, fields: Partial<ManagedFields>): void {
  const now = Date.now();
  prepared(
    ctx.db,
    `INSERT INTO file_state (asset_id, fields, status, error, conflicts, checked_at, written_at) VALUES (?, ?, 'written', NULL, NULL, ?, ?)
     ON CONFLICT (asset_id) DO UPDATE SET fields = excluded.fields, status = 'written', error = NULL, conflicts = NULL,
       checked_at = excluded.checked_at, written_at = excluded.written_at`,
  ).run(assetId, JSON.stringify(fields), now, now);
}

/** A failed write keeps the last known file values (the original was not changed). */
export function recordFileFailed(ctx: LibraryCtx, assetId: number, error: string): void {
  prepared(
    ctx.db,
    `INSERT INTO file_state (asset_id, fields, status, error, checked_at) VALUES (?, NULL, 'failed', ?, ?)
     ON CONFLICT (asset_id) DO UPDATE SET status = 'failed', error = excluded.error, checked_at = excluded.checked_at`,
  ).run(assetId, error, Date.now());
}

export function getSyncState(ctx: LibraryCtx, assetId: number): AssetSyncState {
  const row = stateRow(ctx, assetId);
  const empty: AssetSyncState = { assetId, status: 'unknown', error: null, unsavedFields: [], conflicts: [], writtenAt: null };
  if (!row) return empty;
  const conflicts = row.conflicts ? (JSON.parse(row.conflicts) as FieldConflict[]) : [];
  const base = row.fields ? (JSON.parse(row.fields) as Partial<ManagedFields>) : null;
  const lib = libraryFields(ctx, assetId, base);
  const unsavedFields = base && lib
    ? FIELD_NAMES.filter((f) => lib[f] !== undefined && !(OPTIONAL_FIELDS.includes(f) && base[f] === undefined && !lib[f]) && !sameField(f, base[f] ?? (f === 'keywords' ? [] : null), lib[f]))
    : [];
  const common = { assetId, error: row.error, unsavedFields, conflicts, writtenAt: row.written_at };
  if (row.status === 'failed') return { ...common, status: 'failed' };
  if (!base) return { ...common, status: 'unknown' };
  if (unsavedFields.length > 0) return { ...common, status: 'unsaved' };
  return { ...common, status: row.status === 'written' ? 'written' : 'in_sync' };
}
