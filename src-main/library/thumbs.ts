import { existsSync, mkdirSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { mkdir, rename, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import sharp from 'sharp';
import type { LibraryCtx } from './context';
import { formatForExt } from './formats';
import { jpegSegments } from './media-hash-parts';
import { openImage, PictureError, type OpenedImage } from './media/decode';
import { exiftoolUsable, missingToolReason, type ToolName } from '../core/tools';
import { sharedExifTool } from '../metadata/reader';
import type { Fingerprint } from './similarity/fingerprint';
import { fingerprintOffThread } from './media/pixel-pool';

// Thumbnails (400 px, for the grid) and large previews (2048 px, for formats a browser cannot
// show). Both are keyed by content hash, so duplicates share one file and a moved file keeps
// its thumbnail. Files are written to a temp name and renamed, so a killed scan never leaves
// a half-written thumbnail that a later scan would reuse.

/** A grid thumbnail's longer side, in pixels. */
export const THUMB_SIZE = 400;
const PREVIEW_SIZE = 2048;

export interface ThumbResult {
  /** Path relative to ctx.paths.cacheDir ('thumbs/ab/<hash>.jpg'), null when none could be made. */
  thumb: string | null;
  /** Decoded pixel size as stored (before EXIF orientation), when the image could be read. */
  width: number | null;
  height: number | null;
  /** Size as displayed, when the image could be read (HEIF files may rotate themselves). */
  displayed?: { width: number; height: number } | null;
  /** The reason is a missing tool (perl for exiftool), not the file: the next scan tries again. */
  missingTool?: ToolName;
  /** A plain-language reason when something went wrong (a thumbnail may still exist). */
  problem: string | null;
  /**
   * Perceptual fingerprint and sharpness of the thumbnail's pixels, computed from the same
   * decode. Absent when the thumbnail already existed (the back-fill reads it from there).
   */
  fingerprint?: Fingerprint;
}

const safeName = (hash: string): string => hash.replace(/[^0-9a-zA-Z]/g, '_');

export function thumbRelPath(hash: string): string {
  const name = safeName(hash);
  const shard = name.startsWith('s_') ? name.slice(2, 4) : name.slice(0, 2);
  return `thumbs/${shard}/${name}.jpg`;
}

/** Absolute path of a stored thumbnail (assets.thumb is relative to the cache dir). */
export function thumbAbsPath(ctx: LibraryCtx, rel: string): string {
  return join(ctx.paths.cacheDir, rel);
}

/** A temp name beside `abs`, unique to this process and write. */
const tempFor = (abs: string): string => `${abs}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;

/** Renders into a temp name beside `abs` and renames it into place (a reader never sees half a file). */
export async function writeAtomic(abs: string, render: (tmp: string) => Promise<unknown>): Promise<void> {
  await mkdir(dirname(abs), { recursive: true });
  const tmp = tempFor(abs);
  try {
    await render(tmp);
    await rename(tmp, abs);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
}

/**
 * writeAtomic for a small file already in memory, synchronously: a scan stores one per photo,
 * a few kilobytes into the page cache, where five round trips through the thread pool (mkdir,
 * open, write, close, rename) cost more than the writes themselves. The folder is made on the
 * first ENOENT.
 */
export function writeAtomicSync(abs: string, data: Buffer): void {
  const tmp = tempFor(abs);
  try {
    try {
      writeFileSync(tmp, data);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      mkdirSync(dirname(abs), { recursive: true });
      writeFileSync(tmp, data);
    }
    renameSync(tmp, abs);
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {
      // never written
    }
    throw err;
  }
}

const errText = (err: unknown): string => (err instanceof Error ? err.message : String(err));
const looksTruncated = (msg: string): boolean => /truncat|premature end|corrupt|damaged|unexpected end|read error|VipsJpeg/i.test(msg);

export interface RenderInput {
  input: Buffer | string;
  format: string;
  /** Orientation to apply by hand; null means "use the input's own EXIF orientation". */
  forceOrientation?: number | null;
  /** Compute the picture's fingerprint from the rendered pixels (grid thumbnails). */
  fingerprint?: boolean;
}

/**
 * Decode defensively: the header is read first so a decompression bomb is refused with its
 * size, then a strict decode; if that fails on a truncated/damaged file, a lenient decode
 * ('failOn: none') still gives the user whatever part of the picture survived, with a reason.
 */
export async function renderImage(src: RenderInput, outAbs: string, size: number, quality: number): Promise<ThumbResult & { rendered: boolean }> {
  let img: OpenedImage;
  try {
    // The pipeline below shrinks into a size x size box: a HEIF decoder may hand it over shrunk.
    img = await openImage(src.input, { forceOrientation: src.forceOrientation, fitInside: size });
  } catch (err) {
    const tooLarge = err instanceof PictureError && err.kind === 'too-large';
    return { thumb: null, width: null, height: null, problem: tooLarge ? errText(err) : unreadableReason(src.format, errText(err)), rendered: false };
  }
  const resized = (failOn: 'truncated' | 'none') => img.pipeline(failOn)
    .resize(size, size, { fit: 'inside', withoutEnlargement: true })
    .flatten({ background: '#ffffff' });
  let fingerprint: Fingerprint | undefined;
  // With a fingerprint wanted, the resized pixels are taken once as raw RGB: the fingerprint
  // is computed from them and they are encoded to the JPEG, so the original is decoded once.
  const render = async (failOn: 'truncated' | 'none', tmp: string): Promise<unknown> => {
    if (!src.fingerprint) return resized(failOn).jpeg({ quality, mozjpeg: false }).toFile(tmp);
    const { data, info } = await resized(failOn).raw().toBuffer({ resolveWithObject: true });
    // The fingerprint is computed in a worker thread while libvips encodes the JPEG.
    const [fp] = await Promise.all([
      fingerprintOffThread({ data, width: info.width, height: info.height, channels: info.channels }),
      sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } }).jpeg({ quality, mozjpeg: false }).toFile(tmp),
    ]);
    fingerprint = fp;
    return undefined;
  };
  const done = { width: img.storedWidth || null, height: img.storedHeight || null, displayed: { width: img.width, height: img.height }, rendered: true };
  if (existsSync(outAbs)) return { thumb: outAbs, problem: null, ...done };
  try {
    await writeAtomic(outAbs, (tmp) => render('truncated', tmp));
    return { thumb: outAbs, problem: null, ...done, ...(fingerprint ? { fingerprint } : {}) };
  } catch (err) {
    // The strict decode's message cannot decide alone: libvips reports errors through a
    // shared buffer, so under concurrent decodes a truncated JPEG can fail with "Unknown
    // error". Whatever the message, a lenient decode that succeeds proves the file is
    // damaged but partly readable.
    const msg = errText(err);
    try {
      await writeAtomic(outAbs, (tmp) => render('none', tmp));
      return { thumb: outAbs, problem: 'The file is incomplete or damaged; the thumbnail may show only part of the picture.', ...done, ...(fingerprint ? { fingerprint } : {}) };
    } catch (lenientErr) {
      const problem = looksTruncated(msg) || looksTruncated(errText(lenientErr))
        ? 'The file is damaged and its picture could not be read.'
        : unreadableReason(src.format, msg);
      return { thumb: null, width: done.width, height: done.height, problem, rendered: false };
    }
  }
}

function unreadableReason(format: string, msg: string): string {
  if (/^The HEIF picture/.test(msg)) return msg;
  if (/pixel limit|too large/i.test(msg)) return 'The image is too large to decode safely.';
  if (/unsupported image format|bad seek|not a known file format/i.test(msg)) {
    return `This file could not be read as a ${format.toUpperCase()} image. It may be damaged or not really a picture.`;
  }
  return 'The picture in this file could not be read. It may be damaged.';
}

/**
 * Whether a JPEG stream stands on its own: it has quantization tables before its image data.
 * A JPEG-compressed TIFF strip (which exiftool reports as a DNG's or CR2's PreviewImage when
 * IFD0 holds the picture itself) keeps its tables in the TIFF's JPEGTables tag, so alone it
 * cannot be decoded: that is the file's own picture, for libvips to read, not a preview.
 */
export function isCompleteJpeg(buf: Buffer): boolean {
  for (const { marker } of jpegSegments(buf)) if (marker === 0xdb) return true;
  return false;
}

/**
 * The biggest JPEG a camera embedded in its RAW file. Decoding the RAW itself would need a
 * RAW converter and take seconds; every camera stores a preview for exactly this purpose.
 */
export async function embeddedPreview(path: string): Promise<Buffer | null> {
  const et = sharedExifTool();
  let best: Buffer | null = null;
  for (const tag of ['JpgFromRaw', 'PreviewImage', 'OtherImage', 'ThumbnailImage']) {
    try {
      const buf = await et.extractBinaryTagToBuffer(tag, path);
      if (isCompleteJpeg(buf) && (!best || buf.length > best.length)) best = buf;
    } catch {
      // This camera does not write that tag; try the next.
    }
    if (best && best.length > 200_000) break;
  }
  return best;
}

export interface ThumbRequest {
  /** Absolute path of the original. */
  path: string;
  format: string;
  isRaw: boolean;
  hash: string;
  /** Content already in memory (small files), else null. */
  buf: Buffer | null;
  /** The RAW's EXIF orientation, applied to its embedded preview. */
  orientation: number | null;
  /** Take the fingerprint from the rendered pixels (default); false leaves it to be taken from the thumbnail later. */
  fingerprint?: boolean;
}

/** Make (or reuse) the grid thumbnail of one image. */
export async function makeImageThumb(ctx: LibraryCtx, req: ThumbRequest): Promise<ThumbResult> {
  const rel = thumbRelPath(req.hash);
  const abs = thumbAbsPath(ctx, rel);
  if (req.isRaw) {
    const preview = await embeddedPreview(req.path);
    if (preview) {
      const r = await renderImage({ input: preview, format: 'jpeg', forceOrientation: req.orientation ?? 1, fingerprint: req.fingerprint ?? true }, abs, THUMB_SIZE, 80);
      // The preview's size is not the RAW's; the caller keeps the RAW's own dimensions.
      return { thumb: r.thumb ? rel : null, width: null, height: null, problem: r.problem, ...fp(r) };
    }
    // No embedded preview (some DNGs): libvips can still read TIFF-based RAWs.
    const r = await renderImage({ input: req.buf ?? req.path, format: req.format, fingerprint: req.fingerprint ?? true }, abs, THUMB_SIZE, 80);
    if (r.thumb) return { thumb: rel, width: r.width, height: r.height, problem: null, ...fp(r) };
    // Without perl (or exiftool) no preview can be taken out of any RAW: say that, not "none".
    const tool = exiftoolUsable();
    return tool
      ? { thumb: null, width: r.width, height: r.height, problem: missingToolReason(tool, 'RAW previews cannot be read'), missingTool: tool }
      : { thumb: null, width: r.width, height: r.height, problem: 'This RAW file has no embedded preview, so no thumbnail could be made.' };
  }
  const r = await renderImage({ input: req.buf ?? req.path, format: req.format, fingerprint: req.fingerprint ?? true }, abs, THUMB_SIZE, 80);
  // HEIF files may rotate themselves (irot) whatever their EXIF says: their decoded size is
  // the displayed one. Other formats keep the catalogue's reading of their orientation.
  const displayed = HEIF_FORMATS.has(req.format) ? r.displayed ?? null : null;
  return { thumb: r.thumb ? rel : null, width: r.width, height: r.height, displayed, problem: r.problem, ...fp(r) };
}

const fp = (r: ThumbResult): { fingerprint?: Fingerprint } => (r.thumb && r.fingerprint ? { fingerprint: r.fingerprint } : {});

const HEIF_FORMATS = new Set(['heic', 'heif', 'avif']);

/** Thumbnail from a video's poster frame (already a JPEG in memory); `fingerprint` as for makeImageThumb. */
export async function makePosterThumb(ctx: LibraryCtx, hash: string, frame: Buffer, opts: { fingerprint?: boolean } = {}): Promise<ThumbResult> {
  const rel = thumbRelPath(hash);
  const r = await renderImage({ input: frame, format: 'jpeg', fingerprint: opts.fingerprint ?? true }, thumbAbsPath(ctx, rel), THUMB_SIZE, 80);
  return { thumb: r.thumb ? rel : null, width: null, height: null, problem: r.problem, ...fp(r) };
}

interface PreviewRow {
  folder_path: string;
  rel_path: string;
  ext: string;
  kind: string;
  is_raw: number;
  orientation: number | null;
  content_hash: string | null;
}

/**
 * A 2048 px JPEG for formats a browser cannot show (HEIC, TIFF, RAW), made on first view and
 * cached. Null for formats the browser shows itself, for non-images, and when the original
 * cannot be decoded (a damaged file): the grid thumbnail is all there is.
 */
export async function ensurePreview(ctx: LibraryCtx, assetId: number): Promise<string | null> {
  const row = ctx.db
    .prepare<[number], PreviewRow>(
      `SELECT f.path AS folder_path, a.rel_path, a.ext, a.kind, a.is_raw, a.orientation, a.content_hash
         FROM assets a JOIN folders f ON f.id = a.folder_id WHERE a.id = ?`,
    )
    .get(assetId);
  if (!row || row.kind !== 'image' || !row.content_hash) return null;
  const fmt = formatForExt(row.ext);
  if (!fmt || fmt.browserViewable) return null;
  const name = safeName(row.content_hash);
  const abs = join(ctx.paths.previewsDir, name.slice(0, 2), `${name}.jpg`);
  if (existsSync(abs)) return abs;
  const original = join(row.folder_path, ...row.rel_path.split('/'));
  if (!existsSync(original)) return null;
  let input: Buffer | string = original;
  let forceOrientation: number | null = null;
  if (row.is_raw) {
    const preview = await embeddedPreview(original);
    if (preview) {
      input = preview;
      forceOrientation = row.orientation ?? 1;
    }
  }
  const r = await renderImage({ input, format: fmt.format, forceOrientation }, abs, PREVIEW_SIZE, 85);
  return r.thumb ? abs : null;
}

/** The picture shown at 100 % (the loupe, compare and survey) and where it came from. */
export interface FullImageSource {
  /** Absolute path of what to show: the original itself, or a full-size JPEG rendered from it. */
  path: string | null;
  source: 'original' | 'rendered' | 'embedded-preview' | null;
  /** Why there is no full-size picture (or why it is less than the file's own pixels). */
  note: string | null;
}

/**
 * Every pixel of an image for 1:1 viewing. A browser shows JPEG, PNG, WebP and GIF itself, so
 * those are their own full-size picture. HEIC and TIFF are rendered once at their own size
 * (a JPEG at quality 92, cached by content hash beside the 2048 px previews). A RAW has no
 * decoder here: its biggest embedded JPEG is what the camera made for viewing, and the note
 * says so.
 */
export async function ensureFullImage(ctx: LibraryCtx, assetId: number): Promise<FullImageSource> {
  const row = ctx.db
    .prepare<[number], PreviewRow>(
      `SELECT f.path AS folder_path, a.rel_path, a.ext, a.kind, a.is_raw, a.orientation, a.content_hash
         FROM assets a JOIN folders f ON f.id = a.folder_id WHERE a.id = ?`,
    )
    .get(assetId);
  if (!row) return { path: null, source: null, note: 'This file is no longer in the library.' };
  if (row.kind !== 'image') return { path: null, source: null, note: 'Only photos can be viewed at 100 %.' };
  const original = join(row.folder_path, ...row.rel_path.split('/'));
  if (!existsSync(original)) return { path: null, source: null, note: 'The original file cannot be found (is its folder offline?).' };
  const fmt = formatForExt(row.ext);
  if (!fmt) return { path: null, source: null, note: 'This file type cannot be shown.' };
  if (fmt.browserViewable) return { path: original, source: 'original', note: null };
  if (!row.content_hash) return { path: null, source: null, note: 'This file has not been indexed yet.' };
  const name = safeName(row.content_hash);
  const abs = join(ctx.paths.previewsDir, 'full', name.slice(0, 2), `${name}.jpg`);
  let input: Buffer | string = original;
  let forceOrientation: number | null = null;
  let source: FullImageSource['source'] = 'rendered';
  if (row.is_raw) {
    const preview = await embeddedPreview(original);
    if (preview) {
      input = preview;
      forceOrientation = row.orientation ?? 1;
      source = 'embedded-preview';
    }
  }
  const note = source === 'embedded-preview' ? 'RAW file: shown at the full size of the preview the camera embedded in it.' : null;
  if (existsSync(abs)) return { path: abs, source, note };
  const r = await renderImage({ input, format: source === 'embedded-preview' ? 'jpeg' : fmt.format, forceOrientation }, abs, FULL_SIZE_LIMIT, 92);
  return r.thumb ? { path: abs, source, note } : { path: null, source: null, note: r.problem ?? 'The picture in this file could not be read.' };
}

/** Above any camera's sensor: resize() with withoutEnlargement keeps the picture's own size. */
const FULL_SIZE_LIMIT = 100_000;
