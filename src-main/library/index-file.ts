import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { exiftoolUsable, isToolMissing, missingToolReason, type ToolName } from '../core/tools';
import type { LibraryCtx } from './context';
import { FULL_HASH_LIMIT, hashBuffer, hashFile, sampledHash } from './hash';
import { mediaHashOfFile } from './media-hash';
import { emptyMetadata, formatTakenAt, readMetadata, type FileMetadata } from '../metadata/reader';
import type { Fingerprint } from './similarity/fingerprint';
import { pictureSize } from './media/decode';
import { digestOffThread, hashesOffThread } from './media/pixel-pool';
import { firstPicture, type ThumbState } from './preview-thumbs';
import { probe } from './video';
import type { WalkedFile } from './walk';

/** Audio and video files up to this size are read whole by a worker thread (its reused buffer), larger ones streamed here. */
const AV_OFF_THREAD_LIMIT = 64 * 1024 * 1024;

// Everything the scan learns about one new or changed file, gathered asynchronously and
// without touching the database; the scan then writes a whole batch in one transaction.

export type ErrorStage = 'read' | 'metadata' | 'thumbnail' | 'video' | 'hash';

export interface FileProblem {
  stage: ErrorStage;
  reason: string;
  /** The problem is a missing tool, not the file: recorded so the next scan reads the file again. */
  missingTool?: ToolName;
}

export interface IndexedFile {
  file: WalkedFile;
  /**
   * sha256 of every byte. Null for a file that could not be read, and for a picture whose hash
   * was left to the pass after the grid (`deferHash`): its full-thumbnail job takes it
   * (thumb-queue.ts, catalogue/asset-hashes.ts).
   */
  hash: string | null;
  /**
   * Content without metadata (see media-hash.ts); the content hash where no parser applies.
   * Null for a picture owed its full thumbnail: that job takes it (thumb-queue.ts).
   */
  mediaHash: string | null;
  meta: FileMetadata;
  /** Displayed size (orientation applied). */
  width: number | null;
  height: number | null;
  durationS: number | null;
  videoCodec: string | null;
  audioCodec: string | null;
  thumb: string | null;
  /** Which picture `thumb` is; 'preview' and 'pending' are owed a full thumbnail (thumb-queue.ts). */
  thumbState: ThumbState;
  /** Computed from the thumbnail's decode; absent when the thumbnail was reused (back-filled later). */
  fingerprint?: Fingerprint;
  problems: FileProblem[];
}

function readReason(err: unknown): string {
  const code = typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : '';
  if (code === 'EACCES' || code === 'EPERM') return 'Tagsmith is not allowed to read this file. Check its permissions.';
  if (code === 'ENOENT') return 'The file disappeared while it was being read.';
  if (code === 'EISDIR') return 'This is a folder with a file-like name; it was skipped.';
  return 'This file could not be read from the disk.';
}

/**
 * The name a picture's embedded preview is stored under while its content hash is not taken
 * yet: this version of this file ('p' + sha256 of its path, size and time), never shared with
 * another file.
 */
export function provisionalKey(file: WalkedFile): string {
  return 'p' + createHash('sha256').update(`${file.absPath}\0${file.size}\0${file.mtimeMs}`).digest('hex');
}

export interface IndexOptions {
  /**
   * Leave the content hash (and the media hash) of a picture the browser shows itself (JPEG,
   * PNG, WebP, GIF) to its full-thumbnail job, after the grid is whole: of a JPEG only the
   * metadata head is read now. The scan asks it unless the file could be a moved one (a
   * vanished or removed row of the same size), whose hash finds its old row.
   */
  deferHash?: boolean;
}

export async function indexFile(ctx: LibraryCtx, file: WalkedFile, sidecarPath: string | null, opts: IndexOptions = {}): Promise<IndexedFile> {
  const out: IndexedFile = {
    file, hash: null, mediaHash: null, meta: emptyMetadata(), width: null, height: null, durationS: null,
    videoCodec: null, audioCodec: null, thumb: null, thumbState: null, problems: [],
  };
  if (file.size === 0) {
    out.problems.push({ stage: 'read', reason: 'The file is empty (0 bytes).' });
    return out;
  }

  // Images up to 256 MB are read once; the same Buffer feeds the hash, exifr and sharp.
  // Audio/video are streamed through the hash instead of being held in memory.
  // Pictures are read and hashed in a worker thread, which hands the bytes over without a
  // copy: the main thread only parses the metadata.
  let buf: Buffer | null = null;
  /** `buf` holds only a JPEG's metadata segments (its image data stayed in the worker). */
  let headOnly = false;
  /** Read by the worker: the media hash may be left to the full thumbnail's job. */
  let offThread = false;
  /** The content hash is left to the full thumbnail's job (deferHash, and the workers run). */
  let deferred = false;
  /** Audio or video hashed in a worker thread. */
  let avHashes: { hash: string; mediaHash: string | null } | undefined;
  try {
    if (file.size > FULL_HASH_LIMIT) {
      out.hash = await sampledHash(file.absPath, file.size);
    } else if (file.format.kind === 'image') {
      const defer = opts.deferHash === true && file.format.browserViewable && !file.format.isRaw;
      const d = await digestOffThread(file.absPath, file.format.format, { hash: !defer });
      if (d) {
        buf = d.buf;
        headOnly = d.head;
        out.hash = d.hash;
        deferred = d.hash === null;
        offThread = true;
      } else {
        buf = await readFile(file.absPath);
        out.hash = await hashBuffer(buf);
      }
    } else if (file.size <= AV_OFF_THREAD_LIMIT && (avHashes = await hashesOffThread(file.absPath, file.format.format))) {
      // A clip read once in a worker thread for both hashes: the main thread parses metadata.
      out.hash = avHashes.hash;
      out.mediaHash = avHashes.mediaHash ?? avHashes.hash;
    } else {
      out.hash = await hashFile(file.absPath);
    }
  } catch (err) {
    out.problems.push({ stage: 'read', reason: readReason(err) });
    return out;
  }

  const { kind, format, isRaw } = file.format;
  /** The media hash, unless the full thumbnail's job takes it (out.mediaHash stays null: owed). */
  const takeMediaHash = async (): Promise<void> => {
    try {
      out.mediaHash = await mediaHashOfFile(file.absPath, format, headOnly ? null : buf);
    } catch {
      // A file whose structure cannot be walked simply keeps its content hash as media hash.
    }
    out.mediaHash ??= out.hash;
  };
  if (kind !== 'image' && !avHashes) await takeMediaHash();
  try {
    out.meta = await readMetadata(file.absPath, {
      format, buf, sidecarPath, isRaw: file.format.isRaw,
      // A sidecar that could not be read is said, never dropped silently; one blocked by a
      // missing tool is read again by the next scan once the tool is there.
      onSidecarProblem: (err) => out.problems.push(isToolMissing(err)
        ? { stage: 'metadata', reason: missingToolReason(err.tool, `The XMP sidecar ${basename(sidecarPath!)} cannot be read`), missingTool: err.tool }
        : { stage: 'metadata', reason: `The XMP sidecar ${basename(sidecarPath!)} could not be read, so its keywords, caption and rating are not in the catalogue. It may be damaged.` }),
    });
  } catch {
    const tool = exiftoolUsable();
    out.problems.push(tool
      ? { stage: 'metadata', reason: missingToolReason(tool), missingTool: tool }
      : { stage: 'metadata', reason: 'The information stored in this file (date, camera, keywords) could not be read.' });
  }

  if (kind === 'image') {
    // The grid shows the file now with the preview it carries; the full thumbnail (and the
    // decoded size, and the fingerprint) follow in the background (thumb-queue.ts).
    // A picture not hashed yet stores its preview under a name of its own (never a full
    // thumbnail's, so the cache's full thumbnail of the same content is not looked for).
    const first = await firstPicture(ctx, out.hash ?? provisionalKey(file), { path: file.absPath, format, isRaw, buf, orientation: out.meta.orientation });
    out.thumb = first.thumb;
    out.thumbState = first.state;
    // A picture owed its full thumbnail gets its media hash in the same background job (which
    // reads the file anyway): while the grid fills, every byte is hashed once, not twice.
    if (!(offThread && (first.state === 'preview' || first.state === 'pending'))) await takeMediaHash();
    // Not hashed yet: never the content hash's stand-in (none), the job takes both.
    if (deferred) out.mediaHash = null;
    const w = out.meta.width;
    const h = out.meta.height;
    if ((w === null || h === null) && buf && !isRaw) {
      // The header's size (no pixel decoded), already upright.
      const size = await pictureSize(headOnly ? file.absPath : buf);
      if (size) return { ...out, width: size.width, height: size.height };
    }
    const swap = out.meta.orientation !== null && out.meta.orientation >= 5;
    out.width = swap ? h : w;
    out.height = swap ? w : h;
    return out;
  }

  try {
    const p = await probe(file.absPath);
    out.durationS = p.durationS;
    out.width = p.width;
    out.height = p.height;
    out.videoCodec = p.videoCodec;
    out.audioCodec = p.audioCodec;
    if (!out.meta.takenAt && p.createdAt) out.meta.takenAt = formatTakenAt(p.createdAt);
  } catch (err) {
    if (isToolMissing(err)) {
      out.problems.push({ stage: 'video', reason: err.message, missingTool: err.tool });
      return out;
    }
    out.problems.push({
      stage: 'video',
      reason: kind === 'video' ? 'This video could not be read. It may be damaged or use a format this system cannot play.' : 'This audio file could not be read. It may be damaged.',
    });
    return out;
  }
  // A video's poster frame is its full thumbnail, made in the background like a photo's.
  if (kind === 'video' && out.videoCodec) out.thumbState = 'pending';
  return out;
}
