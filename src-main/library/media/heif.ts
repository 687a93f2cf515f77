import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import sharp, { type Sharp } from 'sharp';
import { workerEntry } from '../../core/worker-entry';
import type { HeifTiling } from './heif-decode';
import { HeifDecodeError, type HeifPixels } from './heif-types';
import type { HeifReply, HeifRequest } from './heif-worker';

export { HeifDecodeError, type HeifPixels } from './heif-types';

// HEIC/HEIF pictures: the container is read here (boxes, orientation, transforms: cheap),
// the pixels are decoded by libheif in WebAssembly in worker threads (heif-decode.ts, run by
// heif-worker.ts), so a decode that takes a second never freezes the main thread.
//
// - One decoder thread per core, started as work arrives; each decodes one thing at a time.
//   A batch of photos keeps every core busy.
// - A phone's photo is a grid of 512 x 512 tiles, each its own HEVC picture: when threads
//   stand idle, its rows of tiles are shared among them, each writing its band into one
//   shared canvas, so a single photo (the loupe, the thumbnail the user is waiting on) is
//   decoded by every core at once. In a batch each thread decodes pictures of its own.
//   The file's transforms (irot/imir) are applied here to the whole, afterwards.
// - A thread ends after IDLE_MS without work: libheif's WebAssembly memory grows to the
//   largest picture decoded and never shrinks otherwise, so the memory goes back after a batch.

let idleMs = 5_000;

/** How long an idle decoder thread lives (tests shorten it; the batch's end is what matters). */
export function setHeifIdleMs(ms: number): void {
  idleMs = ms;
}

const POOL = Math.max(1, availableParallelism());

/** How many decoder threads run at most (one per core). */
export const heifThreadLimit = (): number => POOL;

type Request = Omit<HeifRequest, 'id'>;

interface Job {
  req: Request;
  resolve: (r: HeifReply) => void;
  reject: (e: Error) => void;
}

interface Slot {
  worker: Worker;
  id: number;
  job: Job | null;
  idleTimer: ReturnType<typeof setTimeout> | null;
}

const slots: Slot[] = [];
const pending: Job[] = [];
let nextId = 1;

/** Decoder threads alive now (tests: they end after a batch). */
export const heifThreads = (): number => slots.length;

function startSlot(): Slot {
  const entry = workerEntry(import.meta.url, { source: './heif-worker.ts', built: 'heif-worker.js', what: 'The HEIF decoder' });
  const slot: Slot = { worker: new Worker(entry.url, { eval: entry.eval ?? false }), id: 0, job: null, idleTimer: null };
  const w = slot.worker;
  const gone = (why: string) => {
    const at = slots.indexOf(slot);
    if (at >= 0) slots.splice(at, 1);
    if (slot.idleTimer) clearTimeout(slot.idleTimer);
    // Only the picture this thread was decoding fails; the others go on in other threads.
    const job = slot.job;
    slot.job = null;
    job?.reject(new HeifDecodeError(why));
    dispatch();
  };
  w.on('message', (reply: HeifReply) => {
    const job = slot.job;
    if (!job || reply.id !== slot.id) return;
    slot.job = null;
    job.resolve(reply);
    dispatch();
  });
  w.on('error', (err) => gone(`the HEIF decoder stopped: ${err.message}`));
  w.on('exit', (code) => gone(`the HEIF decoder stopped (exit code ${code})`));
  slots.push(slot);
  return slot;
}

function run(slot: Slot, job: Job): void {
  if (slot.idleTimer) {
    clearTimeout(slot.idleTimer);
    slot.idleTimer = null;
  }
  slot.job = job;
  slot.id = nextId++;
  slot.worker.ref(); // a decode in flight keeps the process alive until it answers
  // The file is copied, not transferred: the caller keeps its Buffer (the scan hashes it too).
  slot.worker.postMessage({ ...job.req, id: slot.id } satisfies HeifRequest);
}

/** Nothing to do: the thread must not keep a CLI process alive, and ends after a while. */
function idle(slot: Slot): void {
  slot.worker.unref();
  if (slot.idleTimer) clearTimeout(slot.idleTimer);
  slot.idleTimer = setTimeout(() => {
    slot.idleTimer = null;
    if (slot.job) return;
    const at = slots.indexOf(slot);
    if (at >= 0) slots.splice(at, 1);
    slot.worker.removeAllListeners('exit');
    slot.worker.removeAllListeners('error');
    slot.worker.on('error', () => undefined);
    void slot.worker.terminate();
  }, idleMs);
  slot.idleTimer.unref();
}

function dispatch(): void {
  for (const slot of slots) {
    if (slot.job) continue;
    const job = pending.shift();
    if (job) run(slot, job);
  }
  while (pending.length > 0 && slots.length < POOL) run(startSlot(), pending.shift() as Job);
  for (const slot of slots) if (!slot.job && !slot.idleTimer) idle(slot);
}

function call(req: Request): Promise<HeifReply> {
  return new Promise<HeifReply>((resolve, reject) => {
    pending.push({ req, resolve, reject });
    dispatch();
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
  const reply = await call({ op: 'size', buf, maxPixels: 0 });
  if (!('size' in reply)) throw new HeifDecodeError('no size was found in this HEIF file');
  return reply.size;
}

export interface HeifDecodeOptions {
  /** Decode a tiled picture tile by tile in every thread (default); false decodes it whole in one thread. */
  tiles?: boolean;
}

/**
 * Decode the primary picture to RGB (RGBA with alpha). `maxPixels` refuses a decompression
 * bomb from its header before any pixel is decoded. With `fitInside` (a grid thumbnail's
 * box), the picture comes back already shrunk to fit inside that square, decoded from a
 * thumbnail item of the file when it is big enough: a 24 MP picture never crosses threads.
 * A tiled picture (a phone's) is decoded by every decoder thread at once.
 */
export async function decodeHeif(buf: Buffer, maxPixels: number, fitInside = 0, opts: HeifDecodeOptions = {}): Promise<HeifPixels> {
  // Only a grid is asked for its tiling: any other picture goes straight to one decode. And
  // only when threads stand idle (the loupe, the one thumbnail the user waits on): in a batch
  // every thread already has a picture of its own, and bands would only add their overhead.
  const idle = POOL - slots.filter((s) => s.job).length - pending.length;
  const transforms = opts.tiles === false || idle < 2 || !heifPrimaryIsGrid(buf) ? null : heifPrimaryTransforms(buf);
  if (transforms) {
    const reply = await call({ op: 'tiling', buf, maxPixels, fitInside });
    const tiling = 'tiling' in reply ? reply.tiling : null;
    // A band that fails (a tile's data cut short) leaves the picture to libheif's whole
    // decode, which shows what it can of a damaged grid, as before bands existed.
    const px = tiling ? await decodeTiled(buf, tiling, transforms, maxPixels, fitInside).catch((err: unknown) => {
      if (err instanceof HeifDecodeError && /too large/.test(err.message)) throw err;
      return null;
    }) : null;
    if (px) return px;
  }
  const px = pixelsOf(await call({ op: 'decode', buf, maxPixels, fitInside }));
  if (!px) throw new HeifDecodeError('the HEVC picture data could not be decoded');
  return px;
}

/**
 * The grid's rows of tiles shared among the threads (one band of rows each, decoded by libheif
 * as a grid of its own: heifGridBand), written into one shared canvas, then shrunk and turned
 * here. Falls back to one whole decode when the file cannot be narrowed to bands.
 */
async function decodeTiled(buf: Buffer, tiling: HeifTiling, transforms: HeifTransform[], maxPixels: number, fitInside: number): Promise<HeifPixels | null> {
  const parts = Math.min(tiling.rows, POOL);
  const bands: { file: Buffer; top: number }[] = [];
  for (let p = 0; p < parts; p++) {
    const from = Math.floor((p * tiling.rows) / parts);
    const to = Math.floor(((p + 1) * tiling.rows) / parts);
    const file = heifGridBand(buf, tiling, from, to);
    if (!file) return null;
    bands.push({ file, top: from * tiling.tileHeight });
  }
  if (tiling.width * tiling.height > maxPixels) throw new HeifDecodeError(`The image is too large to decode safely (${tiling.width} x ${tiling.height} px).`);
  const canvas = new SharedArrayBuffer(tiling.width * tiling.height * 3);
  const size = { canvas, width: tiling.width, height: tiling.height };
  const done = await Promise.allSettled(bands.map((b) => call({ op: 'band', buf: b.file, maxPixels, band: { ...size, top: b.top } })));
  const failed = done.find((d): d is PromiseRejectedResult => d.status === 'rejected');
  if (failed) throw failed.reason instanceof Error ? failed.reason : new HeifDecodeError(String(failed.reason));

  return shapedPixels(Buffer.from(canvas), tiling.width, tiling.height, transforms, fitInside, tiling);
}

/**
 * A decoded picture's RGB (before its transforms, `picture` its full size then) shrunk to fit
 * inside `fitInside` when given and turned by the file's transforms, as the decoder answers it.
 */
export async function shapedPixels(
  pixels: Buffer,
  pixelsWidth: number,
  pixelsHeight: number,
  transforms: readonly HeifTransform[],
  fitInside: number,
  picture: { width: number; height: number },
): Promise<HeifPixels> {
  let data = pixels;
  let width = pixelsWidth;
  let height = pixelsHeight;
  const raw = () => ({ raw: { width, height, channels: 3 as const } });
  const step = async (img: Sharp) => {
    const out = await img.raw().toBuffer({ resolveWithObject: true });
    data = out.data;
    width = out.info.width;
    height = out.info.height;
  };
  // Shrinking first is the same as after: the box is square and every transform keeps the scale.
  if (fitInside > 0 && Math.max(width, height) > fitInside) await step(sharp(data, raw()).resize(fitInside, fitInside, { fit: 'inside', withoutEnlargement: true }));
  for (const t of transforms) {
    if (t.type === 'irot') {
      if (t.angle !== 0) await step(sharp(data, raw()).rotate(360 - 90 * t.angle));
    } else {
      // libheif: axis 0 mirrors top to bottom, axis 1 left to right.
      await step(t.axis === 0 ? sharp(data, raw()).flip() : sharp(data, raw()).flop());
    }
  }
  const quarter = transforms.filter((t) => t.type === 'irot' && t.angle % 2 === 1).length % 2 === 1;
  const shown = quarter ? { width: picture.height, height: picture.width } : { width: picture.width, height: picture.height };
  return { data, width, height, channels: 3, picture: shown, source: 'primary' };
}

/**
 * The thumbnail a camera or phone stored beside the primary picture (a `thmb` item, typically
 * 320 px wide), decoded to RGB (RGBA with alpha) with the file's transforms applied. Null when it has none.
 */
export async function heifThumbnail(buf: Buffer): Promise<HeifPixels | null> {
  return pixelsOf(await call({ op: 'thumbnail', buf, maxPixels: 0 }));
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

/** The type of the item with that ID (iinf/infe version 2 or 3), or null. */
function typeOfItem(buf: Buffer, iinf: HeifBox, itemId: number): string | null {
  const version = buf[iinf.body];
  const skip = 4 + (version === 0 ? 2 : 4);
  for (const infe of heifBoxes(buf, iinf.body + skip, iinf.end)) {
    if (infe.type !== 'infe' || buf[infe.body] < 2) continue;
    const idSize = buf[infe.body] === 2 ? 2 : 4;
    const at = infe.body + 4;
    if (uint(buf, at, idSize) === itemId) return buf.toString('latin1', at + idSize + 2, at + idSize + 6);
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

/** A transform the primary picture declares, in the order the file lists it (libheif applies them in that order). */
export type HeifTransform = { type: 'irot'; angle: number } | { type: 'imir'; axis: 0 | 1 };

/**
 * The primary picture's rotations and mirrors (irot, imir) in their order, or null when this
 * reader cannot tell them all: a crop (clap), or a structure it does not follow. Then libheif
 * decodes the picture whole and applies them itself.
 */
export function heifPrimaryTransforms(buf: Buffer): HeifTransform[] | null {
  try {
    let meta: HeifBox | null = null;
    for (const b of heifBoxes(buf, 0, buf.length)) if (b.type === 'meta') meta = meta ?? b;
    if (!meta) return null;
    const pitm = heifChild(buf, meta, 'pitm', 4);
    const iprp = heifChild(buf, meta, 'iprp', 4);
    const ipco = iprp ? heifChild(buf, iprp, 'ipco') : null;
    const ipma = iprp ? heifChild(buf, iprp, 'ipma') : null;
    if (!pitm || !ipco || !ipma) return null;
    const primary = buf[pitm.body] === 0 ? buf.readUInt16BE(pitm.body + 4) : buf.readUInt32BE(pitm.body + 4);
    const props = [...heifBoxes(buf, ipco.body, ipco.end)];
    const out: HeifTransform[] = [];
    for (const index of itemProperties(buf, ipma, primary)) {
      const prop = props[index - 1];
      if (!prop) continue;
      if (prop.type === 'clap') return null;
      if (prop.type === 'irot') out.push({ type: 'irot', angle: prop.body < prop.end ? buf[prop.body] & 0x03 : 0 });
      if (prop.type === 'imir') out.push({ type: 'imir', axis: prop.body < prop.end ? ((buf[prop.body] & 0x01) as 0 | 1) : 0 });
    }
    return out;
  } catch {
    return null;
  }
}

/**
 * A copy of the file whose primary grid is narrowed to its rows of tiles [from, to), with its
 * rotations and mirrors neutralised (the caller turns the whole picture once): libheif then
 * decodes that band as a grid of its own, at the same cost per tile as the whole. Every edit
 * keeps each box's size, so no offset moves: the grid's row count and height (grid data and
 * ispe), its dimg references (the band's tiles, the rest moved to references of an unknown
 * type that readers ignore), irot set to 0° and imir turned into such an irot. Null when the
 * file is not laid out as this expects.
 */
export function heifGridBand(buf: Buffer, tiling: HeifTiling, from: number, to: number): Buffer | null {
  try {
    const out = Buffer.from(buf);
    let meta: HeifBox | null = null;
    for (const b of heifBoxes(out, 0, out.length)) if (b.type === 'meta') meta = meta ?? b;
    if (!meta) return null;
    const pitm = heifChild(out, meta, 'pitm', 4);
    const iinf = heifChild(out, meta, 'iinf', 4);
    const iref = heifChild(out, meta, 'iref', 4);
    const iloc = heifChild(out, meta, 'iloc', 4);
    const iprp = heifChild(out, meta, 'iprp', 4);
    const ipco = iprp ? heifChild(out, iprp, 'ipco') : null;
    const ipma = iprp ? heifChild(out, iprp, 'ipma') : null;
    if (!pitm || !iinf || !iref || !iloc || !ipco || !ipma) return null;
    const primary = out[pitm.body] === 0 ? out.readUInt16BE(pitm.body + 4) : out.readUInt32BE(pitm.body + 4);
    if (typeOfItem(out, iinf, primary) !== 'grid') return null;
    const bandRows = to - from;
    const bandHeight = Math.min(tiling.height - from * tiling.tileHeight, bandRows * tiling.tileHeight);
    if (bandRows < 1 || bandHeight < 1) return null;

    // dimg: the band's tiles first, in a box of their own; the other IDs fill references of unknown types.
    const idSize = out[iref.body] === 0 ? 2 : 4;
    const readId = (at: number) => (idSize === 2 ? out.readUInt16BE(at) : out.readUInt32BE(at));
    const writeId = (at: number, v: number) => (idSize === 2 ? out.writeUInt16BE(v, at) : out.writeUInt32BE(v, at));
    let dimg: HeifBox | null = null;
    for (const r of heifBoxes(out, iref.body + 4, iref.end)) if (r.type === 'dimg' && readId(r.body) === primary) dimg = r;
    if (!dimg) return null;
    const count = out.readUInt16BE(dimg.body + idSize);
    if (count !== tiling.columns * tiling.rows || dimg.body + idSize + 2 + count * idSize !== dimg.end) return null;
    const ids = Array.from({ length: count }, (_, i) => readId(dimg.body + idSize + 2 + i * idSize));
    const band = ids.slice(from * tiling.columns, to * tiling.columns);
    const rest = ids.filter((_, i) => i < from * tiling.columns || i >= to * tiling.columns);
    const header = 8 + idSize + 2;
    let spare = (dimg.end - dimg.start) - (header + band.length * idSize);
    const fillers: number[] = []; // how many IDs each filler reference holds
    for (let f = 1; f <= 4 && fillers.length === 0; f++) {
      const left = spare - f * header;
      if (left >= 0 && left % idSize === 0) {
        const n = left / idSize;
        for (let i = 0; i < f; i++) fillers.push(i === 0 ? n : 0);
      }
    }
    if (fillers.length === 0 || fillers[0] > rest.length) return null;
    let at = dimg.start;
    const reference = (type: string, list: number[]) => {
      out.writeUInt32BE(header + list.length * idSize, at);
      out.write(type, at + 4, 'latin1');
      writeId(at + 8, primary);
      out.writeUInt16BE(list.length, at + 8 + idSize);
      list.forEach((id, i) => writeId(at + header + i * idSize, id));
      at += header + list.length * idSize;
    };
    reference('dimg', band);
    fillers.forEach((n, i) => reference(`tgs${i}`, i === 0 ? rest.slice(0, n) : []));
    spare = dimg.end - at;
    if (spare !== 0) return null;

    // The grid's own data: rows and output height.
    const ext = itemData(out, meta, iloc, primary);
    if (!ext || ext[1] - ext[0] < 8) return null;
    const wide = (out[ext[0] + 1] & 1) === 1;
    if (ext[1] - ext[0] < (wide ? 12 : 8) || out[ext[0] + 2] + 1 !== tiling.rows || out[ext[0] + 3] + 1 !== tiling.columns) return null;
    out[ext[0] + 2] = bandRows - 1;
    if (wide) out.writeUInt32BE(bandHeight, ext[0] + 8);
    else out.writeUInt16BE(bandHeight, ext[0] + 6);

    // Its properties: ispe's height; no rotation, no mirror.
    const props = [...heifBoxes(out, ipco.body, ipco.end)];
    for (const index of itemProperties(out, ipma, primary)) {
      const prop = props[index - 1];
      if (!prop) continue;
      if (prop.type === 'ispe') out.writeUInt32BE(bandHeight, prop.body + 8);
      if (prop.type === 'irot') out[prop.body] = 0;
      if (prop.type === 'imir') {
        out.write('irot', prop.start + 4, 'latin1');
        out[prop.body] = 0;
      }
      if (prop.type === 'clap') return null;
    }
    return out;
  } catch {
    return null;
  }
}

/** Every item's property indices (1-based, into ipco) from ipma, each in its order. */
export function itemPropertyMap(buf: Buffer, ipma: HeifBox): Map<number, number[]> {
  const out = new Map<number, number[]>();
  const version = buf[ipma.body];
  const wide = (buf.readUInt32BE(ipma.body) & 1) === 1;
  let p = ipma.body + 4;
  const entries = buf.readUInt32BE(p);
  p += 4;
  for (let i = 0; i < entries && p < ipma.end; i++) {
    const id = version < 1 ? buf.readUInt16BE(p) : buf.readUInt32BE(p);
    p += version < 1 ? 2 : 4;
    const n = buf[p++];
    const list: number[] = [];
    for (let k = 0; k < n; k++) {
      list.push(wide ? buf.readUInt16BE(p) & 0x7fff : buf[p] & 0x7f);
      p += wide ? 2 : 1;
    }
    if (!out.has(id)) out.set(id, list);
  }
  return out;
}

/** The property indices (1-based, into ipco) an item is associated with in ipma, in order. */
function itemProperties(buf: Buffer, ipma: HeifBox, itemId: number): number[] {
  return itemPropertyMap(buf, ipma).get(itemId) ?? [];
}

/** Where an item's bytes are: in the file (iloc method 0) or in meta's idat (method 1), one extent. */
function itemData(buf: Buffer, meta: HeifBox, iloc: HeifBox, itemId: number): [number, number] | null {
  for (const it of ilocItems(buf, iloc)) {
    if (it.id !== itemId || it.extents.length !== 1) continue;
    const offset = ilocValue(buf, it.base) + ilocValue(buf, it.extents[0].offset);
    const length = ilocValue(buf, it.extents[0].length);
    if (it.method === 0) return offset + length <= buf.length && length > 0 ? [offset, offset + length] : null;
    if (it.method === 1) {
      const idat = heifChild(buf, meta, 'idat', 4);
      if (!idat || idat.body + offset + length > idat.end || length < 1) return null;
      return [idat.body + offset, idat.body + offset + length];
    }
  }
  return null;
}

/** True when the primary picture is a grid of tiles (a phone's photo), read from the container alone. */
export function heifPrimaryIsGrid(buf: Buffer): boolean {
  try {
    let meta: HeifBox | null = null;
    for (const b of heifBoxes(buf, 0, buf.length)) if (b.type === 'meta') meta = meta ?? b;
    if (!meta) return false;
    const pitm = heifChild(buf, meta, 'pitm', 4);
    const iinf = heifChild(buf, meta, 'iinf', 4);
    if (!pitm || !iinf) return false;
    const primary = buf[pitm.body] === 0 ? buf.readUInt16BE(pitm.body + 4) : buf.readUInt32BE(pitm.body + 4);
    return typeOfItem(buf, iinf, primary) === 'grid';
  } catch {
    return false;
  }
}
