import { createHash } from 'node:crypto';
import { readSync } from 'node:fs';
import { open, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { LibraryCtx } from './context';
import type { Db } from './db';
import { rekeyResults } from '../jobs/result-cache';
import { FULL_HASH_LIMIT, hashBuffer } from './hash';
import { hashesOffThread, mediaHashOffThread } from './media/pixel-pool';
import { recordContentHash } from '../catalogue/asset-hashes';
import { setOwedMediaHash } from '../catalogue/scanned-assets';
import { sharedExifTool } from '../metadata/reader';
import { hasImageParts, isoBoxes, MEDIA_HASH_PREFIX, mediaHashParts } from './media-hash-parts';

export { jpegImageParts, pngImageParts, tiffImageParts, webpImageParts } from './media-hash-parts';

// The media hash identifies a picture's or a clip's CONTENT independent of its metadata: the
// JPEG scan data, the PNG image chunks, the WebP bitstream, the TIFF/DNG strips and tiles, the
// MP4/MOV media data, and for HEIC/HEIF/AVIF (and TIFFs too large to hold in memory)
// exiftool's ImageDataHash (the image data it finds through the HEIF item locations: a HEIC
// keeps its EXIF and XMP inside `mdat`, so the MP4 way would not do). Writing keywords into a file changes
// its content hash but not its media hash, so the service's result cache (keyed by it) still
// knows the picture: keywording it again after export costs nothing. Formats without a
// parser here use the content hash, which is always correct, just less forgiving.
//
// Measured on a 24 MP picture on the 2-core CI machine class: exiftool's ImageDataHash takes
// ~1.4 s for an uncompressed 72 MB TIFF (perl reading every strip; hashing the strips here
// from the Buffer the scan already holds is a hash of the same bytes, no extra read) and
// ~0.5 s for an 18 MB HEIC; hashing decoded pixels instead would cost a full decode (seconds
// for that HEIC). exiftool finds no image data in a TIFF with JPEG-compressed strips in IFD0,
// which the parser here reads.

const PREFIX = MEDIA_HASH_PREFIX;

/** Formats whose media hash is exiftool's ImageDataHash (file formats Tagsmith writes into). */
export const IMAGE_DATA_HASHED: ReadonlySet<string> = new Set(['tiff', 'dng', 'heic', 'heif', 'avif']);

/** exiftool's SHA-256 of the image data alone, or null when it finds none (e.g. JPEG-compressed TIFF strips). */
export async function imageDataHash(path: string): Promise<string | null> {
  const tags = await sharedExifTool().readRaw(path, { readArgs: ['-ImageDataHash', '-api', 'ImageHashType=SHA256'] }) as { ImageDataHash?: unknown };
  const h = tags.ImageDataHash;
  return typeof h === 'string' && /^[0-9a-f]{64}$/.test(h) ? PREFIX + h : null;
}

/**
 * The media hash of a file (`buf` its content when already in memory), or null when no
 * parser applies (the caller then uses the content hash). Without `buf`, a picture up to
 * FULL_HASH_LIMIT is read and hashed in a worker thread.
 */
export async function mediaHashOfFile(path: string, format: string, buf: Buffer | null): Promise<string | null> {
  if (buf) {
    const fromBuffer = await mediaHashOfBuffer(buf, format);
    if (fromBuffer) return fromBuffer;
  } else if (hasImageParts(format) && (await stat(path)).size <= FULL_HASH_LIMIT) {
    const offThread = await mediaHashOffThread(path, format);
    const fromFile = offThread === undefined ? await mediaHashOfBuffer(await readFile(path), format) : offThread;
    if (fromFile) return fromFile;
  }
  if (format === 'mp4' || format === 'mov') return isoMediaHash(path);
  if (IMAGE_DATA_HASHED.has(format)) return imageDataHash(path);
  return null;
}

/** For a file already in memory; null when the format has no parser (use the content hash). */
export async function mediaHashOfBuffer(buf: Buffer, format: string): Promise<string | null> {
  const parts = mediaHashParts(buf, format);
  if (!parts) return null;
  if (parts.length === 1) return PREFIX + (await hashBuffer(buf.subarray(parts[0][0], parts[0][1])));
  const joined = Buffer.concat(parts.map(([a, b]) => buf.subarray(a, b)));
  return PREFIX + (await hashBuffer(joined));
}

const SAMPLE_LIMIT = 256 * 1024 * 1024;
const SAMPLE_COUNT = 16;
const SAMPLE_SIZE = 64 * 1024;

/**
 * MP4/MOV: the payload of the top-level `mdat` boxes (the audio and video samples), read
 * from disk. Metadata lives in `moov`/`udta`/`uuid` boxes, which a writer may rewrite and
 * move. Large media data is sampled, as the content hash is for large files.
 */
export async function isoMediaHash(path: string): Promise<string | null> {
  const fh = await open(path, 'r');
  try {
    const size = (await fh.stat()).size;
    const header = Buffer.alloc(16);
    // A handful of 16-byte reads, one per top-level box, from the page cache.
    const boxes = [...isoBoxes(size, (pos) => header.subarray(0, readSync(fh.fd, header, 0, 16, pos)))].filter((b) => b.type === 'mdat');
    if (boxes.length === 0) return null;
    const h = createHash('sha256');
    for (const b of boxes) await hashRange(fh, b.payload, b.end - b.payload, h);
    return PREFIX + h.digest('hex');
  } finally {
    await fh.close();
  }
}

async function hashRange(fh: Awaited<ReturnType<typeof open>>, start: number, length: number, h: ReturnType<typeof createHash>): Promise<void> {
  const chunk = Buffer.alloc(1024 * 1024);
  if (length > SAMPLE_LIMIT) {
    h.update(`sampled:${length};`);
    const span = length - SAMPLE_SIZE;
    for (let k = 0; k < SAMPLE_COUNT; k++) {
      const { bytesRead } = await fh.read(chunk, 0, SAMPLE_SIZE, start + Math.floor((span * k) / (SAMPLE_COUNT - 1)));
      h.update(chunk.subarray(0, bytesRead));
    }
    return;
  }
  let done = 0;
  while (done < length) {
    const { bytesRead } = await fh.read(chunk, 0, Math.min(chunk.length, length - done), start + done);
    if (bytesRead === 0) break;
    h.update(chunk.subarray(0, bytesRead));
    done += bytesRead;
  }
}

/**
 * Record the media hash of a picture the scan showed before taking it (a new file owed its
 * full thumbnail, whose job takes it), unless the row has one already or its file changed
 * since (another content hash). Answers cached under the content hash, which stood in for it
 * meanwhile, answer for the media hash too. Call inside a transaction.
 */
export function recordOwedMediaHash(db: Db, assetId: number, contentHash: string, mediaHash: string): void {
  if (setOwedMediaHash(db, assetId, contentHash, mediaHash)) rekeyResults(db, assetId, contentHash, mediaHash);
}

/** The media hash of a file owed one: its own, else (no parser, unreadable structure) its content hash. */
export async function owedMediaHash(path: string, format: string, contentHash: string): Promise<string> {
  return (await mediaHashOfFile(path, format, null).catch(() => null)) ?? contentHash;
}

/** A picture the scan showed before taking its content hash (scan.ts, time to grid). */
export interface UnhashedPicture {
  id: number;
  path: string;
  format: string;
  size: number;
  mtimeMs: number;
}

/**
 * Take the content hash and the media hash of a picture the scan left unhashed, from one read
 * of the file (in a worker thread), and record both. Null when the file is gone or is no longer
 * the one the row describes (another size or time): the next scan reads it again.
 */
export async function takeOwedHashes(ctx: LibraryCtx, p: UnhashedPicture): Promise<{ hash: string; mediaHash: string } | null> {
  const same = async (): Promise<boolean> => {
    try {
      const st = await stat(p.path);
      return st.size === p.size && Math.floor(st.mtimeMs) === p.mtimeMs;
    } catch {
      return false;
    }
  };
  if (!(await same())) return null;
  let got: { hash: string; mediaHash: string | null } | undefined;
  try {
    got = await hashesOffThread(p.path, p.format);
    if (got === undefined) {
      const buf = await readFile(p.path);
      got = { hash: await hashBuffer(buf), mediaHash: await mediaHashOfBuffer(buf, p.format).catch(() => null) };
    }
  } catch {
    return null; // unreadable now: the next scan reads it again
  }
  // Written while it was read: its row is out of date, the next scan reads it again.
  if (!(await same())) return null;
  const hash = got.hash;
  const mediaHash = got.mediaHash ?? hash;
  const recorded = ctx.db.transaction(() => {
    if (!recordContentHash(ctx.db, p.id, p, hash)) return false;
    recordOwedMediaHash(ctx.db, p.id, hash, mediaHash);
    return true;
  })();
  return recorded ? { hash, mediaHash } : null;
}

/**
 * Take the media hashes still owed among these assets now, before a service run keys its
 * answers by them: a run started on a file the scan has only just shown must use the same key
 * as every later run (never paid for twice). A picture not hashed at all yet gets both hashes.
 */
export async function settleMediaHashes(ctx: LibraryCtx, assetIds: readonly number[]): Promise<void> {
  const unhashed = ctx.db
    .prepare<[string], { id: number; folder_path: string; rel_path: string; format: string; size: number; mtime_ms: number }>(
      `SELECT a.id, f.path AS folder_path, a.rel_path, a.format, a.size, a.mtime_ms FROM assets a JOIN folders f ON f.id = a.folder_id
        WHERE a.id IN (SELECT value FROM json_each(?)) AND a.content_hash IS NULL AND a.kind = 'image' AND a.removed_at IS NULL
          AND a.thumb_state IN ('preview', 'pending')`,
    )
    .all(JSON.stringify(assetIds));
  for (const r of unhashed) {
    await takeOwedHashes(ctx, { id: r.id, path: join(r.folder_path, ...r.rel_path.split('/')), format: r.format, size: r.size, mtimeMs: r.mtime_ms });
  }
  const owed = ctx.db
    .prepare<[], { id: number; folder_path: string; rel_path: string; format: string; content_hash: string }>(
      `SELECT a.id, f.path AS folder_path, a.rel_path, a.format, a.content_hash FROM assets a JOIN folders f ON f.id = a.folder_id
        WHERE a.media_hash IS NULL AND a.content_hash IS NOT NULL AND a.removed_at IS NULL`,
    )
    .all();
  if (owed.length === 0) return;
  const wanted = new Set(assetIds);
  for (const r of owed) {
    if (!wanted.has(r.id)) continue;
    const media = await owedMediaHash(join(r.folder_path, ...r.rel_path.split('/')), r.format, r.content_hash);
    ctx.db.transaction(() => recordOwedMediaHash(ctx.db, r.id, r.content_hash, media))();
  }
}
