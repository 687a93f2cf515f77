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
//   decodes go one at a time.
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

/** One decode at a time (memory, see above). */
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
      const width = img.get_width();
      const height = img.get_height();
      if (width * height > maxPixels) throw new HeifDecodeError(`The image is too large to decode safely (${width} x ${height} px).`);
      const picture = { width, height };
      const primary = img.handle.$$.ptr;
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
