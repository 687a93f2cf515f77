import { stat } from 'node:fs/promises';
import { setAssetColumn } from '../catalogue/asset-fields';
import { setBlockDisagreement, setFileFacts } from '../catalogue/file-facts';
import { notFound } from '../core/errors';
import { assetPath, getAssetRow } from '../library/assets';
import type { LibraryCtx } from '../library/context';
import { FULL_HASH_LIMIT, hashFile, sampledHash } from '../library/hash';
import { setAssetKeywords } from '../library/keywords';
import { sameField, type FieldName, type FileFields, type ManagedFields } from './managed-fields';
import { MetadataWriteError, writeFileMetadata, type FileWriteResult, type WriteFileOptions } from './file-writer';
import { getFileSnapshot, libraryFields, recordFileFailed, recordFileWritten } from './file-state';
import { targetsFor } from './targets';
import { holdFile } from './file-hold';

export { MetadataWriteError, removeStaleTemps, writeFileMetadata, type FileWriteResult, type WriteFileOptions } from './file-writer';

// Writing one asset's library values into its file(s): the file itself when it can be written
// in place, its XMP sidecar otherwise (see targets.ts), then recording the outcome in
// file_state. A failure is a result, not an exception, so a batch carries on.

export interface WriteResult {
  assetId: number;
  /** written: at least one file changed; in_sync: nothing needed writing; failed: see `error`. */
  status: 'written' | 'in_sync' | 'failed';
  files: (FileWriteResult & { role: 'file' | 'sidecar' })[];
  /** Fields that changed in any file. */
  changedFields: FieldName[];
  /** IPTC values that had to be shortened ("IPTC Keywords: “…” shortened to 64 bytes"). */
  warnings: string[];
  /** Why the write failed, in words for the user; the file was left as it was. */
  error: string | null;
}

export type WriteAssetOptions = Pick<WriteFileOptions, 'beforeCommit' | 'tamperReadBack'> & {
  /** a studio member: how long to wait while another member writes the file (then FileBusy) */
  leaseWaitS?: number;
};

/**
 * file_state for a file read together with its sidecar: the catalogue read both, so the
 * recorded values are the library's (what the two together now say).
 */
function sidecarSnapshot(desired: ManagedFields, after: FileFields): ManagedFields {
  const out: ManagedFields = { ...after };
  for (const [k, v] of Object.entries(desired)) if (v !== undefined) (out as unknown as Record<string, unknown>)[k] = v;
  return out;
}

/**
 * The template fields as file_state may record them: only those the library holds. The index
 * does not take a file's template values (usage terms, rights URL, locations) into the
 * library, so recording one the library never had would read, at the next export, as the
 * user having cleared it, and that export would delete the file's value (found on a
 * Lightroom export whose rights URL vanished on the second export).
 */
function recordable(snapshot: ManagedFields, desired: ManagedFields): ManagedFields {
  if (!snapshot.extended) return snapshot;
  const held = Object.entries(snapshot.extended).filter(([f]) => typeof desired.extended?.[f as keyof typeof desired.extended] === 'string');
  const { extended: _dropped, ...rest } = snapshot;
  return held.length ? { ...rest, extended: Object.fromEntries(held) } : rest;
}

const ADOPTED_TEXT = ['caption', 'title', 'headline', 'creator', 'copyright', 'credit', 'city', 'country'] as const;

/**
 * After a write the file holds the user's changes plus what it already had that the catalogue
 * had not seen (a caption in a block the old reading missed, another program's keywords): the
 * catalogue takes those values too, so it shows what the file holds and the next write starts
 * from the same place. Returns whether anything changed.
 */
function adoptFileValues(ctx: LibraryCtx, assetId: number, library: ManagedFields, after: FileFields): boolean {
  // Keywords are only ever added this way (the file's foreign ones); the library's own list,
  // the user's removals included, stays as it is, and keywords read from a sidecar stay too.
  const have = new Set(library.keywords.map((k) => k.normalize('NFC').toLocaleLowerCase()));
  const foreign = after.keywords.filter((k) => !have.has(k.normalize('NFC').toLocaleLowerCase()));
  const keywords = foreign.length > 0 && !sameField('keywords', library.keywords, [...library.keywords, ...foreign]);
  // A value the file lacks is not adopted as "none": the library may have read it elsewhere (the sidecar).
  const text = ADOPTED_TEXT.filter((f) => library[f] !== undefined && after[f] !== null && !sameField(f, library[f], after[f]));
  const rating = after.rating !== 0 && !sameField('rating', library.rating, after.rating);
  if (!keywords && !text.length && !rating) return false;
  ctx.db.transaction(() => {
    if (keywords) setAssetKeywords(ctx.db, assetId, [...library.keywords, ...foreign]);
    for (const f of text) setAssetColumn(ctx.db, assetId, f, after[f]);
    if (rating) setAssetColumn(ctx.db, assetId, 'rating', after.rating);
  })();
  return true;
}

export async function writeAssetMetadata(ctx: LibraryCtx, assetId: number, opts: WriteAssetOptions = {}): Promise<WriteResult> {
  // A studio member writes only while it holds the file's lease (file-hold.ts).
  const release = await holdFile(ctx, assetId, opts.leaseWaitS);
  try {
    return await writeHeld(ctx, assetId, opts);
  } finally {
    await release?.();
  }
}

async function writeHeld(ctx: LibraryCtx, assetId: number, opts: WriteAssetOptions): Promise<WriteResult> {
  const row = getAssetRow(ctx, assetId);
  if (!row) throw notFound('That photo');
  const result: WriteResult = { assetId, status: 'in_sync', files: [], changedFields: [], warnings: [], error: null };
  const failed = (error: string): WriteResult => {
    recordFileFailed(ctx, assetId, error);
    return { ...result, status: 'failed', error };
  };
  if (row.online !== 1) return failed('The folder holding this file is offline. Reconnect the drive, then write again.');
  const base = getFileSnapshot(ctx, assetId);
  const desired = libraryFields(ctx, assetId, base);
  if (!desired) throw notFound('That photo');
  const path = assetPath(row);

  let snapshot: FileFields | null = null;
  let inPlace = false;
  try {
    for (const target of await targetsFor(path)) {
      // The file as it is now, with only what the user changed applied (metadata/field-merge.ts desiredForWrite).
      const r = await writeFileMetadata(target.path, desired, { ...opts, caps: target.caps, base });
      result.files.push({ ...r, role: target.role });
      for (const f of r.changedFields) if (!result.changedFields.includes(f)) result.changedFields.push(f);
      result.warnings.push(...r.warnings.filter((w) => !result.warnings.includes(w)));
      snapshot ??= r.after;
      if (result.files.length === 1) inPlace = target.role === 'file';
      if (target.role === 'file' && r.tags.length > 0) await refreshFileFacts(ctx, assetId, target.path);
    }
  } catch (e) {
    const why = e instanceof MetadataWriteError ? e.message : 'Writing the metadata failed; the file was left as it was.';
    return failed(why);
  }
  // A RAW's sidecar holds only part of what the catalogue read (the RAW's own tags are the rest).
  const adopted = snapshot !== null && inPlace && adoptFileValues(ctx, assetId, desired, snapshot);
  if (adopted) ctx.events.emit('libraryChanged', { reason: 'edit', assetIds: [assetId] });
  if (inPlace && result.files[0]) {
    const d = result.files[0].blockDisagreement;
    setBlockDisagreement(ctx.db, assetId, d ? JSON.stringify(d) : null);
  }
  // One file holds everything the catalogue read: record what it holds. A file with a sidecar
  // (or a RAW's sidecar alone) holds it between them: record the library's values, which are
  // what the two say together.
  const libraryNow = adopted ? (libraryFields(ctx, assetId, base) ?? desired) : desired;
  recordFileWritten(ctx, assetId, recordable(snapshot ? (inPlace && result.files.length === 1 ? snapshot : sidecarSnapshot(libraryNow, snapshot)) : desired, libraryNow));
  return { ...result, status: result.files.some((f) => f.tags.length > 0) ? 'written' : 'in_sync' };
}

/**
 * The rewritten file has a new size, mtime and content hash: record them so the next scan does
 * not take Tagsmith's own write for an outside change and re-index the file.
 */
async function refreshFileFacts(ctx: LibraryCtx, assetId: number, path: string): Promise<void> {
  const st = await stat(path);
  const hash = st.size <= FULL_HASH_LIMIT ? await hashFile(path) : await sampledHash(path, st.size);
  setFileFacts(ctx.db, assetId, st.size, Math.floor(st.mtimeMs), hash);
}
