import sharp from 'sharp';
import type { Db } from '../db';
import type { LibraryCtx } from '../context';
import { thumbAbsPath } from '../thumbs';
import { FINGERPRINT_VERSION, type Fingerprint } from './fingerprint';
import { fingerprintOffThread } from '../media/pixel-pool';

// The catalogue's fingerprints (migration 17): written by the scan beside the thumbnail it
// comes from, back-filled from the cached thumbnails of pictures catalogued before (or whose
// thumbnail already existed), and read by grouping and "find similar".

export interface StoredFingerprint extends Fingerprint {
  assetId: number;
}

interface Row {
  asset_id: number;
  phash_hi: number;
  phash_lo: number;
  colour: Buffer;
  sharpness: number | null;
}

/** Bumped on every write: the in-memory index (nearest.ts) is rebuilt when it moved. */
const generations = new WeakMap<Db, number>();
export const fingerprintGeneration = (db: Db): number => generations.get(db) ?? 0;
const bump = (db: Db): void => {
  generations.set(db, fingerprintGeneration(db) + 1);
};

/** Record one asset's fingerprint (null: its picture could not be read) for its content. */
export function saveFingerprint(db: Db, assetId: number, contentHash: string, fp: Fingerprint | null): void {
  db.prepare(
    `INSERT INTO asset_fingerprints (asset_id, content_hash, version, phash_hi, phash_lo, colour, sharpness, computed_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (asset_id) DO UPDATE SET content_hash = excluded.content_hash, version = excluded.version,
       phash_hi = excluded.phash_hi, phash_lo = excluded.phash_lo, colour = excluded.colour,
       sharpness = excluded.sharpness, computed_at = excluded.computed_at`,
  ).run(assetId, contentHash, FINGERPRINT_VERSION, fp ? fp.hi : null, fp ? fp.lo : null, fp ? Buffer.from(fp.colour) : null, fp ? fp.sharpness : null, Date.now());
  bump(db);
}

const MISSING_SQL = `
  FROM assets a LEFT JOIN asset_fingerprints f ON f.asset_id = a.id
  WHERE a.removed_at IS NULL AND a.kind IN ('image', 'video') AND a.thumb IS NOT NULL AND a.content_hash IS NOT NULL
    AND (f.asset_id IS NULL OR f.content_hash <> a.content_hash OR f.version <> ${FINGERPRINT_VERSION})`;

/** The live pictures still lacking a fingerprint for their current content, by id. */
export function missingFingerprintIds(db: Db): number[] {
  return db.prepare<[number, number], { id: number }>(`SELECT a.id ${MISSING_SQL} ${IN_FOLDER} ORDER BY a.id`).all(-1, -1).map((r) => r.id);
}

/** How many live pictures still lack a fingerprint for their current content. */
export function countMissingFingerprints(db: Db, assetIds?: readonly number[], folderId?: number): number {
  if (assetIds) return missingAmong(db, assetIds).length;
  return db.prepare<[number, number], { n: number }>(`SELECT COUNT(*) AS n ${MISSING_SQL} ${IN_FOLDER}`).get(folderId ?? -1, folderId ?? -1)!.n;
}

const IN_FOLDER = 'AND (? = -1 OR a.folder_id = ?)';

function missingAmong(db: Db, assetIds: readonly number[]): { id: number; thumb: string; content_hash: string }[] {
  const stmt = db.prepare<[number], { id: number; thumb: string; content_hash: string }>(`SELECT a.id, a.thumb, a.content_hash ${MISSING_SQL} AND a.id = ?`);
  return assetIds.flatMap((id) => stmt.all(id));
}

/** Fingerprint of a cached thumbnail (a ~400 px JPEG: a small decode, not the original's). */
export async function fingerprintOfThumb(ctx: LibraryCtx, thumbRel: string): Promise<Fingerprint | null> {
  try {
    const { data, info } = await sharp(thumbAbsPath(ctx, thumbRel)).flatten({ background: '#ffffff' }).raw().toBuffer({ resolveWithObject: true });
    return await fingerprintOffThread({ data, width: info.width, height: info.height, channels: info.channels });
  } catch {
    return null;
  }
}

export interface FillOptions {
  signal?: AbortSignal;
  /** Only these assets (else every live picture still missing one). */
  assetIds?: readonly number[];
  /** Only this folder's. */
  folderId?: number;
  onProgress?: (done: number, total: number) => void;
}

/**
 * Back-fill: fingerprints computed from the cached thumbnails, a few at a time, each one
 * committed as it is made, so a stopped pass resumes where it was (what is done is no longer
 * "missing"). Returns the ids filled.
 */
export async function fillMissingFingerprints(ctx: LibraryCtx, opts: FillOptions = {}): Promise<number[]> {
  const { db } = ctx;
  const done: number[] = [];
  const page = 200;
  const total = countMissingFingerprints(db, opts.assetIds, opts.folderId);
  const folder = opts.folderId ?? -1;
  const seen = new Set<number>();
  for (;;) {
    if (opts.signal?.aborted) break;
    const rows = (opts.assetIds
      ? missingAmong(db, opts.assetIds)
      : db.prepare<[number, number], { id: number; thumb: string; content_hash: string }>(`SELECT a.id, a.thumb, a.content_hash ${MISSING_SQL} ${IN_FOLDER} ORDER BY a.id LIMIT ${page * 2}`).all(folder, folder)
    ).filter((r) => !seen.has(r.id)).slice(0, page);
    if (rows.length === 0) break;
    for (let i = 0; i < rows.length && !opts.signal?.aborted; i += 4) {
      const batch = rows.slice(i, i + 4);
      const fps = await Promise.all(batch.map((r) => fingerprintOfThumb(ctx, r.thumb)));
      db.transaction(() => batch.forEach((r, k) => saveFingerprint(db, r.id, r.content_hash, fps[k])))();
      for (const r of batch) {
        seen.add(r.id);
        done.push(r.id);
      }
      opts.onProgress?.(done.length, total);
    }
  }
  return done;
}

/** Every live picture's fingerprint (or those of the given assets). */
export function loadFingerprints(db: Db, assetIds?: readonly number[]): StoredFingerprint[] {
  const sql = `SELECT f.asset_id, f.phash_hi, f.phash_lo, f.colour, f.sharpness
    FROM asset_fingerprints f JOIN assets a ON a.id = f.asset_id
    WHERE a.removed_at IS NULL AND f.phash_hi IS NOT NULL AND f.content_hash = a.content_hash AND f.version = ${FINGERPRINT_VERSION}`;
  const toFp = (r: Row): StoredFingerprint => ({
    assetId: r.asset_id, hi: r.phash_hi >>> 0, lo: r.phash_lo >>> 0, colour: new Uint8Array(r.colour), sharpness: r.sharpness ?? 0,
  });
  if (!assetIds) return db.prepare<[], Row>(sql).all().map(toFp);
  const one = db.prepare<[number], Row>(`${sql} AND f.asset_id = ?`);
  return assetIds.flatMap((id) => one.all(id)).map(toFp);
}
