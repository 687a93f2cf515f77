import { open, readFile } from 'node:fs/promises';
import sharp, { type Sharp } from 'sharp';
import { decodeHeif, heifExifOrientation, heifHasTransform, HeifDecodeError, heifSize, looksLikeHeif } from './heif';
import { decodeHeifNative } from './heif-native';

// The one door through which a picture's pixels are read: grid thumbnails, large previews
// (the loupe), the derivatives sent to the service and editing sources all open pictures
// here. sharp (libvips) decodes what it can; HEIC/HEIF, whose HEVC codec sharp's prebuilt
// libvips lacks, go through libheif in WebAssembly (heif.ts) and reach sharp as raw RGBA.
// Either way the caller gets an upright picture: EXIF orientation applied (or the one a
// caller forces, for a RAW's embedded preview).

/** The scan runs ~4 images at once; one libvips thread each keeps 2 cores responsive. */
sharp.concurrency(1);
sharp.cache(false);

/** A 268 MP cap: beyond it a "picture" is more likely a decompression bomb than a photo. */
export const MAX_INPUT_PIXELS = 268_402_689;

export type FailOn = 'truncated' | 'none';

export interface OpenedImage {
  /** Size as displayed (orientation applied). */
  width: number;
  height: number;
  /** Size of the pixels as the file stores them, before EXIF orientation. */
  storedWidth: number;
  storedHeight: number;
  /** A new sharp pipeline of the upright picture; `failOn` matters for files libvips decodes. */
  pipeline(failOn: FailOn): Sharp;
}

/** Why a picture could not be opened, in words for the user. */
export class PictureError extends Error {
  constructor(message: string, readonly kind: 'unreadable' | 'too-large' | 'damaged') {
    super(message);
  }
}

export interface OpenOptions {
  /** Orientation to apply by hand; undefined/null means "the file's own". */
  forceOrientation?: number | null;
  /** Defaults to MAX_INPUT_PIXELS. */
  maxPixels?: number;
  /**
   * The caller only shrinks the picture to fit inside a square box of this side (a grid
   * thumbnail). A HEIF picture then comes already shrunk from its decoder thread (or from the
   * file's own thumbnail item when that is big enough); the sizes reported stay the picture's.
   */
  fitInside?: number;
}

/** Apply an orientation that lives outside the pixels' own EXIF (a RAW's embedded preview). */
export function orient(img: Sharp, o: number | null | undefined): Sharp {
  switch (o) {
    case 2: return img.flop();
    case 3: return img.rotate(180);
    case 4: return img.flip();
    // sharp mirrors before it rotates, so transpose is flop-then-rotate(270).
    case 5: return img.rotate(270).flop();
    case 6: return img.rotate(90);
    case 7: return img.rotate(90).flop();
    case 8: return img.rotate(270);
    default: return img;
  }
}

const swaps = (o: number | null | undefined): boolean => o !== null && o !== undefined && o >= 5 && o <= 8;
const errText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

async function head(input: Buffer | string): Promise<Buffer> {
  if (Buffer.isBuffer(input)) return input.subarray(0, 64);
  const fh = await open(input, 'r');
  try {
    const buf = Buffer.alloc(64);
    const { bytesRead } = await fh.read(buf, 0, 64, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

/** True when the picture needs the HEIF decoder (HEVC inside); AVIF is decoded by libvips itself. */
async function needsHeifDecoder(input: Buffer | string): Promise<boolean> {
  if (!looksLikeHeif(await head(input))) return false;
  try {
    const meta = await sharp(input, { failOn: 'none', limitInputPixels: false }).metadata();
    return meta.compression !== 'av1';
  } catch {
    return true;
  }
}

/** EXIF orientation of a HEIF file, unless the file rotates itself (irot/imir). */
function heifOrientation(buf: Buffer): number {
  if (heifHasTransform(buf)) return 1;
  return heifExifOrientation(buf) ?? 1;
}

/**
 * Open a picture for rendering. The header is read first so a decompression bomb is refused
 * with its size before any pixel is decoded. Throws PictureError with a plain reason.
 */
export async function openImage(input: Buffer | string, opts: OpenOptions = {}): Promise<OpenedImage> {
  const maxPixels = opts.maxPixels ?? MAX_INPUT_PIXELS;
  const forced = opts.forceOrientation ?? null;
  if (await needsHeifDecoder(input)) {
    const buf = Buffer.isBuffer(input) ? input : await readFile(input);
    let px;
    try {
      // The bundled ffmpeg's native HEVC decoder first; libheif (WebAssembly) for what it does not take.
      px = (await decodeHeifNative(buf, maxPixels, opts.fitInside ?? 0)) ?? (await decodeHeif(buf, maxPixels, opts.fitInside ?? 0));
    } catch (err) {
      if (err instanceof HeifDecodeError && /too large/.test(err.message)) throw new PictureError(err.message, 'too-large');
      throw new PictureError(`The HEIF picture could not be decoded (${errText(err)}). The file may be damaged.`, 'unreadable');
    }
    const o = forced ?? heifOrientation(buf);
    const raw = { width: px.width, height: px.height, channels: px.channels };
    const { width, height } = px.picture;
    return {
      width: swaps(o) ? height : width,
      height: swaps(o) ? width : height,
      storedWidth: width,
      storedHeight: height,
      pipeline: () => orient(sharp(px.data, { raw }), o),
    };
  }
  let meta;
  try {
    meta = await sharp(input, { limitInputPixels: false, failOn: 'none', sequentialRead: true }).metadata();
  } catch (err) {
    throw new PictureError(errText(err), 'unreadable');
  }
  const w = meta.width ?? 0;
  const h = meta.height ?? 0;
  if (w * h > maxPixels) throw new PictureError(`The image is too large to decode safely (${w} x ${h} px).`, 'too-large');
  const o = forced ?? meta.orientation ?? 1;
  return {
    width: swaps(o) ? h : w,
    height: swaps(o) ? w : h,
    storedWidth: w,
    storedHeight: h,
    pipeline: (failOn) => {
      const img = sharp(input, { limitInputPixels: maxPixels, failOn });
      return forced === null ? img.rotate() : orient(img, forced);
    },
  };
}

/**
 * The displayed size of a picture from its header alone (no pixel decoded), or null when it
 * cannot be read.
 */
export async function pictureSize(input: Buffer | string): Promise<{ width: number; height: number } | null> {
  try {
    if (await needsHeifDecoder(input)) {
      const buf = Buffer.isBuffer(input) ? input : await readFile(input);
      const s = await heifSize(buf);
      const o = heifOrientation(buf);
      return swaps(o) ? { width: s.height, height: s.width } : s;
    }
    const meta = await sharp(input, { failOn: 'none' }).metadata();
    if (!meta.width || !meta.height) return null;
    return swaps(meta.orientation) ? { width: meta.height, height: meta.width } : { width: meta.width, height: meta.height };
  } catch {
    return null;
  }
}
