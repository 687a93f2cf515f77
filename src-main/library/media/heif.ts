import { createRequire } from 'node:module';

// HEIC/HEIF pictures decoded by libheif compiled to WebAssembly (the `libheif-js` package):
// sharp's prebuilt libvips reads HEIF containers but carries no HEVC decoder, and a user
// cannot add one. The decoder ships inside the package, so no system codec is involved.
//
// Two facts shape this module:
// - libheif's WebAssembly memory grows to ~200 MB for a 12 MP photo and never shrinks, and
//   its decode runs synchronously on the calling thread: decodes go one at a time.
// - libheif applies the file's own transforms (irot/imir properties). A phone that rotated
//   its photo with irot also records EXIF Orientation for old readers; applying both would
//   turn the picture twice. EXIF orientation is applied only when the file has no transform.

/** The part of libheif-js's API this module uses (the package ships no types for its bundle). */
interface HeifImageHandle {
  /** The embind handle; its raw pointer serves the C functions libheif-js does not wrap (thumbnails). */
  handle: { $$: { ptr: number } };
  get_width(): number;
  get_height(): number;
  is_primary(): boolean;
  free(): void;
  display(target: { data: Uint8ClampedArray; width: number; height: number }, done: (out: { data: Uint8ClampedArray } | null) => void): void;
}
interface HeifDecoderInstance {
  decode(buf: Uint8Array): HeifImageHandle[];
  decoder: { delete?: () => void } | null;
}
interface LibHeif {
  ready?: Promise<unknown>;
  HeifDecoder: new () => HeifDecoderInstance;
  // libheif's C API as the bundle exports it (pointers are numbers into HEAPU8/HEAPU32).
  HEAPU8: Uint8Array;
  HEAPU32: Uint32Array;
  HEAP32: Int32Array;
  _malloc(size: number): number;
  _free(ptr: number): void;
  _heif_image_handle_get_number_of_thumbnails(handle: number): number;
  _heif_image_handle_get_list_of_thumbnail_IDs(handle: number, ids: number, count: number): number;
  /** heif_error is returned through its first argument (a 16-byte struct, code first). */
  _heif_image_handle_get_thumbnail(err: number, handle: number, id: number, out: number): void;
  _heif_image_handle_get_width(handle: number): number;
  _heif_image_handle_get_height(handle: number): number;
  _heif_image_handle_release(handle: number): void;
  _heif_decode_image(err: number, handle: number, out: number, colorspace: number, chroma: number, options: number): void;
  _heif_image_get_plane_readonly2(image: number, channel: number, stride: number): number;
  _heif_image_release(image: number): void;
}

// libheif's enum values (heif.h): RGB colour space, interleaved RGBA chroma and channel.
const HEIF_COLORSPACE_RGB = 1;
const HEIF_CHROMA_INTERLEAVED_RGBA = 11;
const HEIF_CHANNEL_INTERLEAVED = 10;

let libheif: LibHeif | null = null;

/** Loaded on the first HEIF picture: the bundle carries 1.4 MB of WebAssembly. */
async function loadLibheif(): Promise<LibHeif> {
  if (!libheif) {
    const req = createRequire(import.meta.url);
    const lib = req('libheif-js/wasm-bundle') as LibHeif;
    await lib.ready;
    libheif = lib;
  }
  return libheif;
}

/** One decode at a time in the whole process (memory and the main thread, see above). */
let queue: Promise<unknown> = Promise.resolve();
function oneAtATime<T>(task: () => Promise<T>): Promise<T> {
  const run = queue.then(task, task);
  queue = run.catch(() => undefined);
  return run;
}

export interface HeifPixels {
  /** RGBA, 4 channels, width * height * 4 bytes, file transforms (irot/imir) applied. */
  data: Buffer;
  width: number;
  height: number;
}

export class HeifDecodeError extends Error {}

/**
 * libheif-js reports its errors with console.log, which would land in the CLI's --json
 * output: while it works, its messages (they start with the words below) are taken as the
 * error's reason instead, and everything else passes through.
 */
const LIBHEIF_MESSAGE = /^(Could not|Error loading|No images found|Decoding image failed)/;
async function quietly<T>(work: (messages: string[]) => T | Promise<T>): Promise<T> {
  const messages: string[] = [];
  const log = console.log;
  console.log = (...args: unknown[]) => {
    if (typeof args[0] === 'string' && LIBHEIF_MESSAGE.test(args[0])) messages.push(args.filter((a) => typeof a === 'string').join(' '));
    else log(...args);
  };
  try {
    return await work(messages);
  } finally {
    console.log = log;
  }
}

function withPrimary<T>(lib: LibHeif, buf: Buffer, use: (img: HeifImageHandle) => Promise<T>): Promise<T> {
  return quietly(async (messages) => {
    const decoder = new lib.HeifDecoder();
    const images = decoder.decode(buf);
    const free = () => {
      for (const img of images) img.free();
      decoder.decoder?.delete?.();
    };
    if (images.length === 0) {
      free();
      throw new HeifDecodeError(messages.join('; ') || 'no picture was found in this HEIF file');
    }
    // Burst, bracketed and HDR files hold several top-level pictures; the primary one is the
    // photo every viewer shows.
    const primary = images.find((img) => img.is_primary()) ?? images[0];
    try {
      return await use(primary);
    } finally {
      free();
    }
  });
}

/** Size of the primary picture as displayed by libheif (transforms applied), without decoding it. */
export function heifSize(buf: Buffer): Promise<{ width: number; height: number }> {
  return oneAtATime(async () => {
    const lib = await loadLibheif();
    return withPrimary(lib, buf, async (img) => ({ width: img.get_width(), height: img.get_height() }));
  });
}

/**
 * Decode the primary picture to RGBA. `maxPixels` refuses a decompression bomb from its
 * header before any pixel is decoded.
 */
export function decodeHeif(buf: Buffer, maxPixels: number): Promise<HeifPixels> {
  return oneAtATime(async () => {
    const lib = await loadLibheif();
    return withPrimary(lib, buf, async (img) => {
      const width = img.get_width();
      const height = img.get_height();
      if (width * height > maxPixels) throw new HeifDecodeError(`The image is too large to decode safely (${width} x ${height} px).`);
      const data = await new Promise<Uint8ClampedArray>((resolve, reject) => {
        img.display({ data: new Uint8ClampedArray(width * height * 4), width, height }, (out) => {
          if (out) resolve(out.data);
          else reject(new HeifDecodeError('the HEVC picture data could not be decoded'));
        });
      });
      return { data: Buffer.from(data.buffer, data.byteOffset, data.byteLength), width, height };
    });
  });
}

/**
 * The thumbnail a camera or phone stored beside the primary picture (a `thmb` item, typically
 * 320 px wide), decoded to RGBA with the file's transforms applied: a picture for the grid at
 * once, long before the 12 MP primary image is decoded. Null when the file has none.
 */
export function heifThumbnail(buf: Buffer): Promise<HeifPixels | null> {
  return oneAtATime(async () => {
    const lib = await loadLibheif();
    return withPrimary(lib, buf, async (primary) => decodeThumbnail(lib, primary.handle.$$.ptr));
  });
}

function decodeThumbnail(lib: LibHeif, handle: number): HeifPixels | null {
  const count = lib._heif_image_handle_get_number_of_thumbnails(handle);
  if (count < 1) return null;
  const scratch = lib._malloc(16 + 4 * count + 4 + 4 + 8);
  const err = scratch;
  const ids = scratch + 16;
  const outHandle = ids + 4 * count;
  const outImage = outHandle + 4;
  const stride = outImage + 4;
  let thumb = 0;
  let image = 0;
  try {
    lib._heif_image_handle_get_list_of_thumbnail_IDs(handle, ids, count);
    lib._heif_image_handle_get_thumbnail(err, handle, lib.HEAPU32[ids >> 2], outHandle);
    if (lib.HEAP32[err >> 2] !== 0) return null;
    thumb = lib.HEAPU32[outHandle >> 2];
    const width = lib._heif_image_handle_get_width(thumb);
    const height = lib._heif_image_handle_get_height(thumb);
    if (width < 1 || height < 1 || width * height > 4096 * 4096) return null;
    lib._heif_decode_image(err, thumb, outImage, HEIF_COLORSPACE_RGB, HEIF_CHROMA_INTERLEAVED_RGBA, 0);
    if (lib.HEAP32[err >> 2] !== 0) return null;
    image = lib.HEAPU32[outImage >> 2];
    const plane = lib._heif_image_get_plane_readonly2(image, HEIF_CHANNEL_INTERLEAVED, stride);
    const rowBytes = lib.HEAPU32[stride >> 2];
    if (!plane || rowBytes < width * 4) return null;
    // Copied out row by row: the plane lives in WebAssembly memory, freed below.
    const data = Buffer.alloc(width * height * 4);
    for (let y = 0; y < height; y++) data.set(lib.HEAPU8.subarray(plane + y * rowBytes, plane + y * rowBytes + width * 4), y * width * 4);
    return { data, width, height };
  } finally {
    if (image) lib._heif_image_release(image);
    if (thumb) lib._heif_image_handle_release(thumb);
    lib._free(scratch);
  }
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

interface Box {
  type: string;
  start: number;
  body: number;
  end: number;
}

function* boxes(buf: Buffer, from: number, to: number): Generator<Box> {
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

function child(buf: Buffer, parent: Box, type: string, skip = 0): Box | null {
  for (const b of boxes(buf, parent.body + skip, parent.end)) if (b.type === type) return b;
  return null;
}

/**
 * True when the file declares a rotation or mirror of its own (irot/imir item properties),
 * which libheif applies while decoding. Then the EXIF orientation only repeats it.
 */
export function heifHasTransform(buf: Buffer): boolean {
  let meta: Box | null = null;
  for (const b of boxes(buf, 0, buf.length)) {
    if (b.type === 'meta') {
      meta = b;
      break;
    }
  }
  if (!meta) return false;
  const iprp = child(buf, meta, 'iprp', 4); // meta is a full box: 4 bytes of version and flags
  const ipco = iprp ? child(buf, iprp, 'ipco') : null;
  if (!ipco) return false;
  for (const prop of boxes(buf, ipco.body, ipco.end)) {
    if (prop.type === 'imir') return true;
    if (prop.type === 'irot' && prop.body < prop.end && (buf[prop.body] & 0x03) !== 0) return true;
  }
  return false;
}

function uint(buf: Buffer, pos: number, size: number): number {
  return size === 0 ? 0 : size === 2 ? buf.readUInt16BE(pos) : size === 4 ? buf.readUInt32BE(pos) : Number(buf.readBigUInt64BE(pos));
}

/** Where the item's bytes lie in the file (iloc, construction method 0), or null. */
function itemExtent(buf: Buffer, iloc: Box, itemId: number): [number, number] | null {
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
    p += 2;
    const base = uint(buf, p, baseSize);
    p += baseSize;
    const extents = buf.readUInt16BE(p);
    p += 2;
    const first = p + indexSize;
    p += extents * (indexSize + offsetSize + lengthSize);
    if (id !== itemId) continue;
    if (method !== 0 || extents < 1) return null;
    const start = base + uint(buf, first, offsetSize);
    const length = uint(buf, first + offsetSize, lengthSize) || buf.length - start;
    return start + length <= buf.length ? [start, start + length] : null;
  }
  return null;
}

/** The ID of the first item of the given type (iinf/infe version 2 or 3), or null. */
function itemOfType(buf: Buffer, iinf: Box, type: string): number | null {
  const version = buf[iinf.body];
  const skip = 4 + (version === 0 ? 2 : 4);
  for (const infe of boxes(buf, iinf.body + skip, iinf.end)) {
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
    let meta: Box | null = null;
    for (const b of boxes(buf, 0, buf.length)) if (b.type === 'meta') meta = meta ?? b;
    if (!meta) return null;
    const iinf = child(buf, meta, 'iinf', 4);
    const iloc = child(buf, meta, 'iloc', 4);
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
