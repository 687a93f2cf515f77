import { Worker } from 'node:worker_threads';
import { workerEntry } from '../../core/worker-entry';
import { HeifDecodeError, type HeifPixels } from './heif-types';
import type { HeifReply, HeifRequest } from './heif-worker';

export { HeifDecodeError, type HeifPixels } from './heif-types';

// HEIC/HEIF pictures: the container is read here (boxes, orientation, transforms: cheap),
// the pixels are decoded by libheif in WebAssembly in a worker thread (heif-decode.ts, run by
// heif-worker.ts), so a decode that takes a second never freezes the main thread. One
// worker, started on the first HEIF picture and ended after a minute without work (its
// WebAssembly memory grows to ~200 MB for a 12 MP photo and never shrinks otherwise).

const IDLE_MS = 60_000;

interface Waiting {
  resolve: (r: HeifReply) => void;
  reject: (e: Error) => void;
}

let worker: Worker | null = null;
const waiting = new Map<number, Waiting>();
let nextId = 1;
let idleTimer: ReturnType<typeof setTimeout> | null = null;

function failAll(err: Error): void {
  for (const w of waiting.values()) w.reject(err);
  waiting.clear();
}

function startWorker(): Worker {
  const entry = workerEntry(import.meta.url, { source: './heif-worker.ts', built: 'heif-worker.js', what: 'The HEIF decoder' });
  const w = new Worker(entry.url, { eval: entry.eval ?? false });
  w.on('message', (reply: HeifReply) => {
    const job = waiting.get(reply.id);
    waiting.delete(reply.id);
    job?.resolve(reply);
    if (waiting.size === 0) idle(w);
  });
  w.on('error', (err) => {
    if (worker === w) worker = null;
    failAll(new HeifDecodeError(`the HEIF decoder stopped: ${err.message}`));
  });
  w.on('exit', (code) => {
    if (worker === w) worker = null;
    if (waiting.size > 0) failAll(new HeifDecodeError(`the HEIF decoder stopped (exit code ${code})`));
  });
  return w;
}

/** Nothing waiting: the worker must not keep a CLI process alive, and ends after a while. */
function idle(w: Worker): void {
  w.unref();
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = setTimeout(() => {
    idleTimer = null;
    if (worker === w && waiting.size === 0) {
      worker = null;
      void w.terminate();
    }
  }, IDLE_MS);
  idleTimer.unref();
}

function call(op: HeifRequest['op'], buf: Buffer, maxPixels = 0, fitInside = 0): Promise<HeifReply> {
  worker ??= startWorker();
  const w = worker;
  w.ref(); // a decode in flight keeps the process alive until it answers
  if (idleTimer) {
    clearTimeout(idleTimer);
    idleTimer = null;
  }
  const id = nextId++;
  return new Promise<HeifReply>((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    // Copied, not transferred: the caller keeps its Buffer (the scan hashes and reads it too).
    w.postMessage({ id, op, buf, maxPixels, fitInside } satisfies HeifRequest);
  }).then((reply) => {
    if ('error' in reply) throw new HeifDecodeError(reply.error);
    return reply;
  });
}

const pixelsOf = (reply: HeifReply): HeifPixels | null => {
  if (!('pixels' in reply) || !reply.pixels) return null;
  const p = reply.pixels;
  // Structured clone hands a Uint8Array over; callers expect a Buffer on the same memory.
  const data = Buffer.from(p.data.buffer, p.data.byteOffset, p.data.byteLength);
  return { ...p, data };
};

/** Size of the primary picture as displayed by libheif (transforms applied), without decoding it. */
export async function heifSize(buf: Buffer): Promise<{ width: number; height: number }> {
  const reply = await call('size', buf);
  if (!('size' in reply)) throw new HeifDecodeError('no size was found in this HEIF file');
  return reply.size;
}

/**
 * Decode the primary picture to RGB (RGBA with alpha). `maxPixels` refuses a decompression
 * bomb from its header before any pixel is decoded. With `fitInside` (a grid thumbnail's
 * box), the picture comes back already shrunk to fit inside that square, decoded from a
 * thumbnail item of the file when it is big enough: a 24 MP picture never crosses threads.
 */
export async function decodeHeif(buf: Buffer, maxPixels: number, fitInside = 0): Promise<HeifPixels> {
  const px = pixelsOf(await call('decode', buf, maxPixels, fitInside));
  if (!px) throw new HeifDecodeError('the HEVC picture data could not be decoded');
  return px;
}

/**
 * The thumbnail a camera or phone stored beside the primary picture (a `thmb` item, typically
 * 320 px wide), decoded to RGB (RGBA with alpha) with the file's transforms applied. Null when it has none.
 */
export async function heifThumbnail(buf: Buffer): Promise<HeifPixels | null> {
  return pixelsOf(await call('thumbnail', buf));
}

// ---------------------------------------------------------------------------- container

const HEIF_BRANDS = new Set(['heic', 'heix', 'heim', 'heis', 'hevc', 'hevx', 'mif1', 'msf1', 'avif', 'avis', 'mif2', 'MiHE', 'MiHB']);

/** True when the bytes start an ISO-BMFF file whose brands say HEIF (HEIC, HEIF, AVIF). */
export function looksLikeHeif(head: Buffer): boolean {
  if (head.length < 16 || head.toString('latin1', 4, 8) !== 'ftyp') return false;
  const size = Math.min(head.readUInt32BE(0), head.length);
  if (HEIF_BRANDS.has(head.toString('latin1', 8, 12))) return true;
  for (let i = 16; i + 4 <= size; i += 4) if (HEIF_BRANDS.has(head.toString('latin1', i, i + 4))) return true;
  return false;
}

/** One ISO-BMFF box: where it starts, where its body (after the header) starts, where it ends. */
export interface HeifBox {
  type: string;
  start: number;
  body: number;
  end: number;
}

/** The boxes laid one after another between `from` and `to` (stops at the first that does not fit). */
export function* heifBoxes(buf: Buffer, from: number, to: number): Generator<HeifBox> {
  let pos = from;
  while (pos + 8 <= to) {
    let size = buf.readUInt32BE(pos);
    const type = buf.toString('latin1', pos + 4, pos + 8);
    let header = 8;
    if (size === 1) {
      if (pos + 16 > to) return;
      size = Number(buf.readBigUInt64BE(pos + 8));
      header = 16;
    } else if (size === 0) {
      size = to - pos;
    }
    if (size < header || pos + size > to) return;
    yield { type, start: pos, body: pos + header, end: pos + size };
    pos += size;
  }
}

/** The first child box of that type; `skip` passes a full box's version and flags (4 bytes). */
export function heifChild(buf: Buffer, parent: HeifBox, type: string, skip = 0): HeifBox | null {
  for (const b of heifBoxes(buf, parent.body + skip, parent.end)) if (b.type === type) return b;
  return null;
}

/**
 * True when the file declares a rotation or mirror of its own (irot/imir item properties),
 * which libheif applies while decoding. Then the EXIF orientation only repeats it.
 */
export function heifHasTransform(buf: Buffer): boolean {
  let meta: HeifBox | null = null;
  for (const b of heifBoxes(buf, 0, buf.length)) {
    if (b.type === 'meta') {
      meta = b;
      break;
    }
  }
  if (!meta) return false;
  const iprp = heifChild(buf, meta, 'iprp', 4); // meta is a full box: 4 bytes of version and flags
  const ipco = iprp ? heifChild(buf, iprp, 'ipco') : null;
  if (!ipco) return false;
  for (const prop of heifBoxes(buf, ipco.body, ipco.end)) {
    if (prop.type === 'imir') return true;
    if (prop.type === 'irot' && prop.body < prop.end && (buf[prop.body] & 0x03) !== 0) return true;
  }
  return false;
}

function uint(buf: Buffer, pos: number, size: number): number {
  return size === 0 ? 0 : size === 2 ? buf.readUInt16BE(pos) : size === 4 ? buf.readUInt32BE(pos) : Number(buf.readBigUInt64BE(pos));
}

/** A field of `size` bytes (0, 2, 4 or 8) at `at`, as iloc stores its offsets and lengths. */
export interface IlocField {
  at: number;
  size: number;
}

/** One item of an iloc box: where its base offset and each extent's offset and length are stored. */
export interface IlocItem {
  id: number;
  /** construction method: 0 = bytes of this file */
  method: number;
  base: IlocField;
  extents: { offset: IlocField; length: IlocField }[];
}

/** Every item an iloc box locates (versions 0 to 2), with where its numbers are stored. */
export function* ilocItems(buf: Buffer, iloc: HeifBox): Generator<IlocItem> {
  let p = iloc.body;
  const version = buf[p];
  p += 4;
  const offsetSize = buf[p] >> 4;
  const lengthSize = buf[p] & 0x0f;
  const baseSize = buf[p + 1] >> 4;
  const indexSize = version >= 1 ? buf[p + 1] & 0x0f : 0;
  p += 2;
  const count = version < 2 ? buf.readUInt16BE(p) : buf.readUInt32BE(p);
  p += version < 2 ? 2 : 4;
  for (let i = 0; i < count; i++) {
    const id = version < 2 ? buf.readUInt16BE(p) : buf.readUInt32BE(p);
    p += version < 2 ? 2 : 4;
    let method = 0;
    if (version >= 1) {
      method = buf.readUInt16BE(p) & 0x0f;
      p += 2;
    }
    p += 2; // data_reference_index
    const base = { at: p, size: baseSize };
    p += baseSize;
    const extentCount = buf.readUInt16BE(p);
    p += 2;
    const extents: IlocItem['extents'] = [];
    for (let e = 0; e < extentCount; e++) {
      p += indexSize;
      extents.push({ offset: { at: p, size: offsetSize }, length: { at: p + offsetSize, size: lengthSize } });
      p += offsetSize + lengthSize;
    }
    yield { id, method, base, extents };
  }
}

/** The number an iloc field holds. */
export const ilocValue = (buf: Buffer, f: IlocField): number => uint(buf, f.at, f.size);

/** Where the item's bytes lie in the file (iloc, construction method 0), or null. */
function itemExtent(buf: Buffer, iloc: HeifBox, itemId: number): [number, number] | null {
  let item: IlocItem | undefined;
  for (const it of ilocItems(buf, iloc)) {
    if (it.id === itemId) {
      item = it;
      break;
    }
  }
  if (!item || item.method !== 0 || item.extents.length < 1) return null;
  const start = ilocValue(buf, item.base) + ilocValue(buf, item.extents[0].offset);
  const length = ilocValue(buf, item.extents[0].length) || buf.length - start;
  return start + length <= buf.length ? [start, start + length] : null;
}

/** The ID of the first item of the given type (iinf/infe version 2 or 3), or null. */
function itemOfType(buf: Buffer, iinf: HeifBox, type: string): number | null {
  const version = buf[iinf.body];
  const skip = 4 + (version === 0 ? 2 : 4);
  for (const infe of heifBoxes(buf, iinf.body + skip, iinf.end)) {
    if (infe.type !== 'infe' || buf[infe.body] < 2) continue;
    const v = buf[infe.body];
    const idSize = v === 2 ? 2 : 4;
    const at = infe.body + 4;
    if (buf.toString('latin1', at + idSize + 2, at + idSize + 6) === type) return uint(buf, at, idSize);
  }
  return null;
}

/** IFD0 Orientation of a TIFF block, or null. */
function tiffOrientation(t: Buffer): number | null {
  if (t.length < 8) return null;
  const le = t.toString('latin1', 0, 2) === 'II';
  if (!le && t.toString('latin1', 0, 2) !== 'MM') return null;
  const u16 = (o: number) => (le ? t.readUInt16LE(o) : t.readUInt16BE(o));
  const u32 = (o: number) => (le ? t.readUInt32LE(o) : t.readUInt32BE(o));
  const ifd = u32(4);
  if (ifd + 2 > t.length) return null;
  const n = u16(ifd);
  for (let i = 0; i < n; i++) {
    const e = ifd + 2 + i * 12;
    if (e + 12 > t.length) return null;
    if (u16(e) === 0x0112) {
      const v = u16(e + 8);
      return v >= 1 && v <= 8 ? v : null;
    }
  }
  return null;
}

/**
 * The EXIF Orientation stored in a HEIF file's Exif item, or null. Read here rather than by
 * a metadata library so every caller of the decoder (scan, previews, service derivatives)
 * agrees without a catalogue row, and so the Exif items some encoders write (which exifr
 * declines as malformed) still count.
 */
export function heifExifOrientation(buf: Buffer): number | null {
  try {
    let meta: HeifBox | null = null;
    for (const b of heifBoxes(buf, 0, buf.length)) if (b.type === 'meta') meta = meta ?? b;
    if (!meta) return null;
    const iinf = heifChild(buf, meta, 'iinf', 4);
    const iloc = heifChild(buf, meta, 'iloc', 4);
    if (!iinf || !iloc) return null;
    const id = itemOfType(buf, iinf, 'Exif');
    if (id === null) return null;
    const ext = itemExtent(buf, iloc, id);
    if (!ext) return null;
    const item = buf.subarray(ext[0], ext[1]);
    if (item.length < 4) return null;
    const tiffAt = 4 + item.readUInt32BE(0);
    return tiffOrientation(item.subarray(tiffAt));
  } catch {
    return null; // a structure this reader does not follow: no orientation, like a file without one
  }
}
