import { createRequire } from 'node:module';
import sharp from 'sharp';
import { HeifDecodeError, type HeifPixels } from './heif-types';

// HEIC/HEIF pictures decoded by libheif compiled to WebAssembly (the `libheif-js` package):
// sharp's prebuilt libvips reads HEIF containers but carries no HEVC decoder, and a user
// cannot add one. The decoder ships inside the package, so no system codec is involved.
//
// This module runs in a worker thread of its own (heif-worker.ts; heif.ts is the callers'
// side): libheif decodes synchronously, a 12 MP photo for a second or more, which on the
// main thread would freeze every IPC call and thumbnail request of the app meanwhile.
//
// Two facts shape this module:
// - libheif's WebAssembly memory grows to ~200 MB for a 12 MP photo and never shrinks:
//   decodes go one at a time in each thread, and heif.ts ends the threads after a batch.
// - phones write their photos as grids of 512 x 512 tiles, each its own HEVC picture: heif.ts
//   shares the rows of tiles among the decoder threads (decodeHeifBand), each thread writing
//   its band into one shared canvas. (libheif's own tile-by-tile decode was measured at ~50%
//   more CPU time than decoding the same tiles as a grid, so bands of the grid it is.)
// - libheif applies the file's own transforms (irot/imir properties). A phone that rotated
//   its photo with irot also records EXIF Orientation for old readers; applying both would
//   turn the picture twice. EXIF orientation is applied only when the file has no transform.
//
// Where the time goes (24 MP, measured in CPU time): libde265's HEVC decode in WebAssembly is
// nearly all of it, ~2.6 s; colour conversion to RGB (bilinear or nearest chroma upsampling
// alike) measures within the noise of that, the copies and sharp's shrink ~50 ms each. The
// decode cannot be shortened from here (HEVC has no reduced-resolution decode, this build
// has no threads or SIMD). What is around it is kept small: pixels are decoded
// straight to interleaved RGB (RGBA only when the picture has alpha) through libheif's C API,
// with no intermediate JavaScript copies; a grid thumbnail is shrunk here, in this thread,
// from a view of the WebAssembly memory, so only ~400 px of pixels cross threads; and a
// thumbnail item the file carries (`thmb`) is used instead when it is big enough.

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
  _heif_image_handle_has_alpha_channel(handle: number): number;
  _heif_decode_image(err: number, handle: number, out: number, colorspace: number, chroma: number, options: number): void;
  _heif_image_get_plane_readonly2(image: number, channel: number, stride: number): number;
  _heif_image_release(image: number): void;
  /** heif_image_tiling (libheif >= 1.19): returned through `out`, the error through the first argument. */
  _heif_image_handle_get_image_tiling(err: number, handle: number, processTransformations: number, out: number): void;
}

// libheif's enum values (heif.h): RGB colour space, interleaved RGB / RGBA chroma and channel.
const HEIF_COLORSPACE_RGB = 1;
const HEIF_CHROMA_INTERLEAVED_RGB = 10;
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

/** One decode at a time in this thread (memory, see above); heif.ts runs one such thread per core. */
let queue: Promise<unknown> = Promise.resolve();
function oneAtATime<T>(task: () => Promise<T>): Promise<T> {
  const run = queue.then(task, task);
  queue = run.catch(() => undefined);
  return run;
}

/**
 * libheif-js reports its errors with console.log, which would land in the CLI's --json
 * output. This thread does nothing but decode, one file at a time, so its console.log is
 * replaced once (never swapped to and fro across an await): libheif's messages (they start
 * with the words below) become the current decode's reason, everything else passes through.
 */
const LIBHEIF_MESSAGE = /^(Could not|Error loading|No images found|Decoding image failed)/;
let currentMessages: string[] | null = null;

/** Called once by the worker thread (heif-worker.ts) before any decode. */
export function captureLibheifMessages(): void {
  const log = console.log.bind(console);
  console.log = (...args: unknown[]) => {
    if (typeof args[0] === 'string' && LIBHEIF_MESSAGE.test(args[0])) currentMessages?.push(args.filter((a) => typeof a === 'string').join(' '));
    else log(...args);
  };
}

async function quietly<T>(work: (messages: string[]) => T | Promise<T>): Promise<T> {
  const messages: string[] = [];
  currentMessages = messages;
  try {
    return await work(messages);
  } finally {
    currentMessages = null;
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

/** The primary picture's size and handle, refused before any pixel is decoded when it is larger than `maxPixels` (a decompression bomb). */
function checkedPrimary(img: HeifImageHandle, maxPixels: number): { picture: { width: number; height: number }; primary: number } {
  const width = img.get_width();
  const height = img.get_height();
  if (width * height > maxPixels) throw new HeifDecodeError(`The image is too large to decode safely (${width} x ${height} px).`);
  return { picture: { width, height }, primary: img.handle.$$.ptr };
}

/**
 * Decode the primary picture to RGB (RGBA when it has alpha). `maxPixels` refuses a
 * decompression bomb from its header before any pixel is decoded. With `fitInside`, the
 * caller only needs the picture shrunk to fit inside a square box of that side (a grid
 * thumbnail): it is shrunk here, or taken from the file's own thumbnail item when that is at
 * least that big, and `picture` still gives the primary picture's size.
 */
export function decodeHeif(buf: Buffer, maxPixels: number, fitInside = 0): Promise<HeifPixels> {
  return oneAtATime(async () => {
    const lib = await loadLibheif();
    return withPrimary(lib, buf, async (img) => {
      const { picture, primary } = checkedPrimary(img, maxPixels);
      const { width, height } = picture;
      if (fitInside > 0 && Math.max(width, height) > fitInside) {
        const thumb = largeEnoughThumbnail(lib, primary, picture, fitInside);
        if (thumb) {
          try {
            const px = await withDecoded(lib, thumb, (d) => shrunk(d, fitInside));
            if (px) return { ...px, picture, source: 'thumbnail' as const };
          } finally {
            lib._heif_image_handle_release(thumb);
          }
        }
        const px = await withDecoded(lib, primary, (d) => shrunk(d, fitInside));
        if (!px) throw new HeifDecodeError('the HEVC picture data could not be decoded');
        return { ...px, picture, source: 'primary' as const };
      }
      const px = await withDecoded(lib, primary, async (d) => copied(d));
      if (!px) throw new HeifDecodeError('the HEVC picture data could not be decoded');
      return { ...px, picture, source: 'primary' as const };
    });
  });
}

/**
 * The thumbnail a camera or phone stored beside the primary picture (a `thmb` item, typically
 * 320 px wide), decoded with the file's transforms applied: a picture for the grid at once,
 * long before the 12 MP primary image is decoded. Null when the file has none.
 */
export function heifThumbnail(buf: Buffer): Promise<HeifPixels | null> {
  return oneAtATime(async () => {
    const lib = await loadLibheif();
    return withPrimary(lib, buf, async (primary) => {
      const thumb = thumbnailHandles(lib, primary.handle.$$.ptr)[0];
      if (!thumb) return null;
      try {
        const w = lib._heif_image_handle_get_width(thumb);
        const h = lib._heif_image_handle_get_height(thumb);
        if (w < 1 || h < 1 || w * h > 4096 * 4096) return null;
        const px = await withDecoded(lib, thumb, async (d) => copied(d));
        return px ? { ...px, picture: { width: primary.get_width(), height: primary.get_height() }, source: 'thumbnail' as const } : null;
      } finally {
        lib._heif_image_handle_release(thumb);
      }
    });
  });
}

/** The handles of the primary picture's thumbnail items (the caller releases each). */
function thumbnailHandles(lib: LibHeif, handle: number): number[] {
  const count = lib._heif_image_handle_get_number_of_thumbnails(handle);
  if (count < 1) return [];
  const scratch = lib._malloc(16 + 4 * count + 4);
  const err = scratch;
  const ids = scratch + 16;
  const out = ids + 4 * count;
  const handles: number[] = [];
  try {
    lib._heif_image_handle_get_list_of_thumbnail_IDs(handle, ids, count);
    for (let i = 0; i < count; i++) {
      lib._heif_image_handle_get_thumbnail(err, handle, lib.HEAPU32[(ids >> 2) + i], out);
      if (lib.HEAP32[err >> 2] === 0) handles.push(lib.HEAPU32[out >> 2]);
    }
  } finally {
    lib._free(scratch);
  }
  return handles;
}

/**
 * A thumbnail item that can stand for the primary picture at `fitInside`: at least that big
 * on its long side and of the same shape (orientation and aspect ratio), so the grid shows the
 * same picture. Null when there is none; the others are released here.
 */
function largeEnoughThumbnail(lib: LibHeif, primary: number, picture: { width: number; height: number }, fitInside: number): number | null {
  let chosen: number | null = null;
  for (const t of thumbnailHandles(lib, primary)) {
    const w = lib._heif_image_handle_get_width(t);
    const h = lib._heif_image_handle_get_height(t);
    const sameShape = w > 0 && h > 0 && Math.abs(w / h - picture.width / picture.height) <= 0.02 * (picture.width / picture.height);
    if (chosen === null && sameShape && Math.max(w, h) >= fitInside && w * h <= 4096 * 4096) chosen = t;
    else lib._heif_image_handle_release(t);
  }
  return chosen;
}

interface Decoded {
  lib: LibHeif;
  /** Byte offset of the first row in the WebAssembly memory. */
  plane: number;
  stride: number;
  width: number;
  height: number;
  channels: 3 | 4;
}

/**
 * Decode one image handle to interleaved RGB(A) and hand its plane, still in WebAssembly
 * memory, to `use` (which must not let it escape: the image is released afterwards). Null
 * when libheif could not decode it.
 */
async function withDecoded<T>(lib: LibHeif, handle: number, use: (d: Decoded) => Promise<T>): Promise<T | null> {
  const channels = lib._heif_image_handle_has_alpha_channel(handle) ? 4 : 3;
  const scratch = lib._malloc(16 + 4 + 4);
  const err = scratch;
  const outImage = scratch + 16;
  const strideAt = outImage + 4;
  let image = 0;
  try {
    lib._heif_decode_image(err, handle, outImage, HEIF_COLORSPACE_RGB, channels === 4 ? HEIF_CHROMA_INTERLEAVED_RGBA : HEIF_CHROMA_INTERLEAVED_RGB, 0);
    if (lib.HEAP32[err >> 2] !== 0) return null;
    image = lib.HEAPU32[outImage >> 2];
    const plane = lib._heif_image_get_plane_readonly2(image, HEIF_CHANNEL_INTERLEAVED, strideAt);
    const stride = lib.HEAPU32[strideAt >> 2];
    const width = lib._heif_image_handle_get_width(handle);
    const height = lib._heif_image_handle_get_height(handle);
    if (!plane || width < 1 || height < 1 || stride < width * channels) return null;
    return await use({ lib, plane, stride, width, height, channels });
  } finally {
    if (image) lib._heif_image_release(image);
    lib._free(scratch);
  }
}

/** The decoded rows as one tight Buffer of JavaScript memory (one copy out of WebAssembly). */
function copied(d: Decoded): Omit<HeifPixels, 'picture' | 'source'> {
  const row = d.width * d.channels;
  const heap = d.lib.HEAPU8;
  const data = Buffer.allocUnsafeSlow(row * d.height); // its own ArrayBuffer (never the pool): it is transferred
  if (d.stride === row) data.set(heap.subarray(d.plane, d.plane + row * d.height));
  else for (let y = 0; y < d.height; y++) data.set(heap.subarray(d.plane + y * d.stride, d.plane + y * d.stride + row), y * row);
  return { data, width: d.width, height: d.height, channels: d.channels };
}

/**
 * The decoded picture shrunk to fit inside a `side` x `side` box, by sharp (libvips) reading
 * the WebAssembly memory in place when the rows are tight. Nothing else runs in this thread's
 * WebAssembly meanwhile (one decode at a time), so the memory cannot move under it.
 */
async function shrunk(d: Decoded, side: number): Promise<Omit<HeifPixels, 'picture' | 'source'>> {
  const row = d.width * d.channels;
  const input = d.stride === row ? Buffer.from(d.lib.HEAPU8.buffer, d.lib.HEAPU8.byteOffset + d.plane, row * d.height) : copied(d).data;
  const { data, info } = await sharp(input, { raw: { width: d.width, height: d.height, channels: d.channels } })
    .resize(side, side, { fit: 'inside', withoutEnlargement: true })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: d.channels };
}

// ---------------------------------------------------------------------------- tiled pictures

/** How a tiled primary picture (a phone's grid of tiles) is laid out, before its transforms. */
export interface HeifTiling {
  columns: number;
  rows: number;
  tileWidth: number;
  tileHeight: number;
  /** The picture's size before its transforms (irot/imir): the grid's own output size. */
  width: number;
  height: number;
}

/**
 * The tile layout of the primary picture when it is a grid of at least two tiles that can be
 * decoded one by one into RGB (no alpha: an alpha plane is a separate grid), else null.
 */
function tilingOf(lib: LibHeif, handle: number): HeifTiling | null {
  if (lib._heif_image_handle_has_alpha_channel(handle)) return null;
  const scratch = lib._malloc(16 + 128);
  try {
    lib.HEAPU8.fill(0, scratch, scratch + 16 + 128);
    const out = scratch + 16;
    lib._heif_image_handle_get_image_tiling(scratch, handle, 0, out);
    if (lib.HEAP32[scratch >> 2] !== 0) return null;
    const u = (i: number) => lib.HEAPU32[(out >> 2) + i];
    // struct heif_image_tiling: version, num_columns, num_rows, tile_width, tile_height, image_width, image_height, ...
    const t = { columns: u(1), rows: u(2), tileWidth: u(3), tileHeight: u(4), width: u(5), height: u(6) };
    if (t.columns * t.rows < 2 || t.tileWidth < 1 || t.tileHeight < 1 || t.width < 1 || t.height < 1) return null;
    if (t.columns * t.tileWidth < t.width || t.rows * t.tileHeight < t.height) return null;
    return t;
  } finally {
    lib._free(scratch);
  }
}

/**
 * The primary picture's tile layout when it is tiled (see tilingOf), after the same checks a
 * decode makes (the decompression-bomb cap), or null: the caller then decodes it whole. When
 * `fitInside` is given and the file carries a thumbnail item big enough for it, null too: that
 * small item is cheaper than every tile.
 */
export function heifTiling(buf: Buffer, maxPixels: number, fitInside = 0): Promise<HeifTiling | null> {
  return oneAtATime(async () => {
    const lib = await loadLibheif();
    return withPrimary(lib, buf, async (img) => {
      const { picture, primary } = checkedPrimary(img, maxPixels);
      const { width, height } = picture;
      if (fitInside > 0 && Math.max(width, height) > fitInside) {
        const thumb = largeEnoughThumbnail(lib, primary, picture, fitInside);
        if (thumb) {
          lib._heif_image_handle_release(thumb);
          return null;
        }
      }
      return tilingOf(lib, primary);
    });
  });
}

/** A band of whole rows of tiles to decode, and where it goes in the shared canvas (RGB rows of `width`). */
export interface BandWork {
  canvas: SharedArrayBuffer;
  width: number;
  height: number;
  /** The canvas row the band's first row goes to. */
  top: number;
}

/**
 * Decode the primary picture of `buf` (a copy of the file narrowed by heif.ts to one band of
 * its grid's rows, its transforms neutralised) and write it into the shared canvas at `top`.
 * Other threads write the other bands of the same canvas at the same time; the rows never
 * overlap.
 */
export function decodeHeifBand(buf: Buffer, work: BandWork): Promise<void> {
  return oneAtATime(async () => {
    const lib = await loadLibheif();
    await withPrimary(lib, buf, async (img) => {
      const canvas = new Uint8Array(work.canvas);
      if (canvas.length !== work.width * work.height * 3) throw new HeifDecodeError('the canvas for the picture has the wrong size');
      const done = await withDecoded(lib, img.handle.$$.ptr, async (d) => {
        if (d.channels !== 3 || d.width !== work.width || work.top + d.height > work.height) return false;
        const row = d.width * 3;
        const heap = d.lib.HEAPU8;
        for (let y = 0; y < d.height; y++) {
          const from = d.plane + y * d.stride;
          canvas.set(heap.subarray(from, from + row), (work.top + y) * row);
        }
        return true;
      });
      if (!done) throw new HeifDecodeError('the HEVC picture data could not be decoded');
    });
  });
}
