import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { jpegSegments, MEDIA_HASH_PREFIX, mediaHashParts } from '../media-hash-parts';
import { fingerprintPixels, type Fingerprint } from '../similarity/fingerprint';

// The worker threads of a scan's per-file work (pixel-pool.ts starts them and sends the
// work), each of which would otherwise stall the main thread once per file:
// - 'digest': read a picture whole, take its content hash, and hand the bytes back by transfer
//   (no copy) for the metadata reader and the embedded preview: of a JPEG its head before the
//   image data, of a PNG its chunks but the image data, else the whole file.
//   With `hash: false` (a scan that leaves the content hash to the background pass) nothing is
//   hashed, and of a JPEG only its metadata head is read: the grid needs no other byte;
// - 'media-hash': read a picture whole and take its media hash (the image data alone,
//   media-hash-parts.ts); the scan leaves it to the background thumbnail job, so that each
//   byte is hashed once while the grid is being filled;
// - 'hashes': read a picture whole once and take both its content hash and its media hash
//   (the background pass after a scan that deferred them);
// - 'fingerprint': the perceptual fingerprint of a thumbnail's pixels (~10 ms each).

export type PixelRequest =
  | { id: number; op: 'fingerprint'; data: Uint8Array; width: number; height: number; channels: number }
  | { id: number; op: 'digest'; path: string; format: string; hash: boolean }
  | { id: number; op: 'media-hash'; path: string; format: string }
  | { id: number; op: 'hashes'; path: string; format: string };

export type PixelReply =
  | { id: number; fingerprint: Fingerprint }
  | { id: number; digest: { buf: Uint8Array; head: boolean; hash: string | null } }
  | { id: number; mediaHash: string | null }
  | { id: number; hashes: { hash: string; mediaHash: string | null } }
  | { id: number; error: string; code?: string };

/** Up to `size` bytes from the start of an open file into `buf` (a view of what was read). */
function readInto(fd: number, buf: Buffer, size: number): Buffer {
  let off = 0;
  while (off < size) {
    const n = readSync(fd, buf, off, size - off, off);
    if (n === 0) break; // the file shrank meanwhile: what was there is what is hashed
    off += n;
  }
  return off === buf.length ? buf : buf.subarray(0, off);
}

/** Up to `size` bytes from the start of an open file, in a buffer of its own (transferable, not zero-filled first). */
function readStart(fd: number, size: number): Buffer {
  return readInto(fd, Buffer.allocUnsafeSlow(size), size);
}

/** The whole file in a buffer of its own (transferable), read in one go. */
function readWhole(path: string): Buffer {
  const fd = openSync(path, 'r');
  try {
    return readStart(fd, fstatSync(fd).size);
  } finally {
    closeSync(fd);
  }
}

/** Files up to this size are read into one reused buffer when no byte of them leaves the worker. */
const REUSED_MAX = 64 * 1024 * 1024;
let reused = Buffer.allocUnsafeSlow(0);

/**
 * The whole file, for work done here (hashing, walking chunks): in a buffer reused from file to
 * file, a view valid until the next call (never transferred). A fresh buffer per file costs
 * the kernel a page fault per 4 KB of it, more than reading the file from the cache.
 */
function readForWork(path: string): Buffer {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    if (size > REUSED_MAX) return readStart(fd, size);
    if (reused.length < size) reused = Buffer.allocUnsafeSlow(Math.min(REUSED_MAX, Math.max(size, reused.length * 2)));
    return readInto(fd, reused, size);
  } finally {
    closeSync(fd);
  }
}

/**
 * A JPEG's metadata head is read first, in two tries: most heads (EXIF with its 160 px
 * thumbnail, XMP, IPTC) fit in the first; a longer one (a big XMP packet, an MPF preview
 * before the image data) gets the second. Its image data is then hashed through `scratch`
 * (never held whole).
 */
const HEAD_READS = [64 * 1024, 256 * 1024];
const headScratch = Buffer.allocUnsafeSlow(HEAD_READS[HEAD_READS.length - 1]);
const scratch = Buffer.allocUnsafeSlow(1024 * 1024);

/**
 * A JPEG whose metadata (EXIF with its thumbnail, XMP, IPTC: everything before its image data)
 * is in its first 256 KB: that head alone, and the hash of every byte, the image data
 * streamed through a small reused buffer. Null when the head is longer (the caller reads whole).
 */
function digestJpeg(path: string, hash: boolean): { buf: Uint8Array; head: boolean; hash: string | null } | null {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    let start: Buffer = headScratch.subarray(0, 0);
    let sos = -1;
    for (const want of HEAD_READS) {
      start = readInto(fd, headScratch, Math.min(size, want));
      for (const seg of jpegSegments(start)) if (seg.marker === 0xda) sos = seg.at;
      if (sos >= 0 || start.length < want) break;
    }
    if (sos < 0) return null;
    // A copy in a buffer of its own (transferred to the main thread), never the scratch.
    const head = new Uint8Array(start.subarray(0, sos));
    if (!hash) return { buf: head, head: true, hash: null };
    const h = createHash('sha256').update(start);
    for (let pos = start.length; pos < size;) {
      const n = readSync(fd, scratch, 0, scratch.length, pos);
      if (n === 0) break; // the file shrank meanwhile
      h.update(scratch.subarray(0, n));
      pos += n;
    }
    return { buf: head, head: true, hash: h.digest('hex') };
  } finally {
    closeSync(fd);
  }
}

/** Chunks of a PNG's image data: megabytes the metadata reader never needs. */
const PNG_IMAGE_DATA = new Set(['IDAT', 'fdAT']);
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * A PNG's metadata alone: a PNG of its signature and every chunk but the image data (IHDR,
 * the text, EXIF and colour chunks, in their order, before or after the image data), so the
 * main thread's metadata reader walks a few KB, not megabytes. Null when the file's chunks
 * do not parse to IEND (a damaged file is handed over whole, as before).
 */
function pngMetadataOnly(buf: Buffer): Uint8Array | null {
  if (buf.length < 8 || !buf.subarray(0, 8).equals(PNG_SIGNATURE)) return null;
  const kept: [number, number][] = [];
  let bytes = 8;
  for (let i = 8; i + 12 <= buf.length;) {
    const end = i + 12 + buf.readUInt32BE(i);
    if (end > buf.length) return null;
    if (!PNG_IMAGE_DATA.has(buf.toString('latin1', i + 4, i + 8))) {
      kept.push([i, end]);
      bytes += end - i;
    }
    if (buf.toString('latin1', i + 4, i + 8) === 'IEND') {
      const out = new Uint8Array(bytes);
      out.set(PNG_SIGNATURE, 0);
      let at = 8;
      for (const [a, b] of kept) {
        out.set(buf.subarray(a, b), at);
        at += b - a;
      }
      return out;
    }
    i = end;
  }
  return null;
}

function digest(path: string, format: string, hash: boolean): { buf: Uint8Array; head: boolean; hash: string | null } {
  // A JPEG's metadata all comes before its image data: only that head goes to the main
  // thread, not megabytes of compressed pixels it never reads; of a PNG, every chunk but its
  // image data.
  const jpeg = format === 'jpeg' ? digestJpeg(path, hash) : null;
  if (jpeg) return jpeg;
  if (format === 'png') {
    const whole = readForWork(path);
    const png = pngMetadataOnly(whole);
    if (png) return { buf: png, head: true, hash: hash ? createHash('sha256').update(whole).digest('hex') : null };
  }
  const buf = readWhole(path);
  return { buf, head: false, hash: hash ? createHash('sha256').update(buf).digest('hex') : null };
}

/** 'm:' + sha256 of the image data alone, or null when the format has no parser or the file no image data. */
function mediaHash(path: string, format: string, whole?: Buffer): string | null {
  const buf = whole ?? readForWork(path);
  const parts = mediaHashParts(buf, format);
  if (!parts) return null;
  const h = createHash('sha256');
  for (const [a, b] of parts) h.update(buf.subarray(a, b));
  return MEDIA_HASH_PREFIX + h.digest('hex');
}

const port = parentPort;
port?.on('message', (req: PixelRequest) => {
  try {
    if (req.op === 'hashes') {
      const buf = readForWork(req.path);
      const hashes = { hash: createHash('sha256').update(buf).digest('hex'), mediaHash: mediaHash(req.path, req.format, buf) };
      port.postMessage({ id: req.id, hashes } satisfies PixelReply);
      return;
    }
    if (req.op === 'digest') {
      const d = digest(req.path, req.format, req.hash);
      port.postMessage({ id: req.id, digest: d } satisfies PixelReply, [d.buf.buffer as ArrayBuffer]);
      return;
    }
    if (req.op === 'media-hash') {
      port.postMessage({ id: req.id, mediaHash: mediaHash(req.path, req.format) } satisfies PixelReply);
      return;
    }
    const fingerprint = fingerprintPixels({ data: req.data, width: req.width, height: req.height, channels: req.channels });
    port.postMessage({ id: req.id, fingerprint } satisfies PixelReply);
  } catch (err) {
    const code = typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : undefined;
    port.postMessage({ id: req.id, error: err instanceof Error ? err.message : String(err), code } satisfies PixelReply);
  }
});
