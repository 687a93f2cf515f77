import { createRequire } from 'node:module';
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

