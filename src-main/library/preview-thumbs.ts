import { existsSync } from 'node:fs';
import sharp from 'sharp';
import type { LibraryCtx } from './context';
import { embeddedPicture, type EmbeddedPicture, type EmbeddedSource } from './media/embedded';
import { orient } from './media/decode';
import { jpegSegments } from './media-hash-parts';
import { sharedExifTool } from '../metadata/reader';
import { EMBEDDED_SUFFIX } from './thumb-names';
import { thumbAbsPath, thumbRelPath, writeAtomic, writeAtomicSync } from './thumbs';

// The grid picture a scan shows before the full thumbnail exists: the preview embedded in
// the file, oriented and stored beside the full thumbnails under its own name
// ('<hash>.embedded.jpg'). Its own name is also its own URL, so a cell swapping to the full
// thumbnail never shows a cached copy of the other picture.

const THUMB_SIZE = 400;

export type ThumbState = 'full' | 'preview' | 'pending' | null;

export function embeddedThumbRelPath(hash: string): string {
  return thumbRelPath(hash).replace(/\.jpg$/, EMBEDDED_SUFFIX);
}


/** Start-of-frame markers every browser decodes: baseline, extended and progressive Huffman. */
const BROWSER_FRAMES = new Set([0xc0, 0xc1, 0xc2]);

/**
 * Whether an embedded picture can be stored as it is: a whole JPEG (its tables before its image
 * data) already upright, no bigger than a grid thumbnail, 8-bit grey or colour in a frame
 * every browser decodes (no CMYK, no arithmetic coding). Only its header is read, here, in
 * JavaScript: a scan asks this of every photo.
 */
export function usableAsItIs(pic: EmbeddedPicture): boolean {
  if (pic.raw || pic.orientation !== 1 || pic.input.length > 256 * 1024) return false;
  const buf = pic.input;
  let frameOk = false;
  let tables = 0;
  for (const { marker, at, end } of jpegSegments(buf)) {
    if (marker === 0xda) return frameOk && tables === 3; // the image data, after every header
    if (marker === 0xdb) tables |= 1;
    else if (marker === 0xc4) tables |= 2;
    else if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc8 && marker !== 0xcc) {
      if (!BROWSER_FRAMES.has(marker) || end - at < 10) return false;
      const precision = buf[at + 4];
      const height = buf.readUInt16BE(at + 5);
      const width = buf.readUInt16BE(at + 7);
      const components = buf[at + 9];
      frameOk = precision === 8 && width > 0 && height > 0 && width <= THUMB_SIZE && height <= THUMB_SIZE && (components === 1 || components === 3);
      if (!frameOk) return false;
    }
  }
  return false;
}

export interface FirstPicture {
  /** Relative to the cache dir, or null: the cell shows the placeholder until the full thumbnail. */
  thumb: string | null;
  state: ThumbState;
}

/**
 * What the grid can show of a new file right away: its full thumbnail when the cache already
 * has it (the same content seen before), else its embedded preview, else nothing yet. Never
 * fails: a file whose preview cannot be read just waits for its full thumbnail.
 */
export async function firstPicture(ctx: LibraryCtx, hash: string, src: Omit<EmbeddedSource, 'extractTag'>): Promise<FirstPicture> {
  const full = thumbRelPath(hash);
  if (existsSync(thumbAbsPath(ctx, full))) return { thumb: full, state: 'full' };
  const rel = embeddedThumbRelPath(hash);
  const abs = thumbAbsPath(ctx, rel);
  if (existsSync(abs)) return { thumb: rel, state: 'preview' };
  try {
    const pic = await embeddedPicture({ ...src, extractTag: (tag, path) => sharedExifTool().extractBinaryTagToBuffer(tag, path) });
    if (!pic) return { thumb: null, state: 'pending' };
    if (usableAsItIs(pic)) {
      // An upright EXIF thumbnail (a small baseline JPEG) is shown as the camera stored it:
      // decoding and re-encoding it would only cost time for every file of a first scan.
      writeAtomicSync(abs, pic.input);
      return { thumb: rel, state: 'preview' };
    }
    const img = pic.raw ? sharp(pic.input, { raw: pic.raw }) : sharp(pic.input, { failOn: 'none' });
    await writeAtomic(abs, (tmp) => orient(img, pic.orientation)
      .resize(THUMB_SIZE, THUMB_SIZE, { fit: 'inside', withoutEnlargement: true })
      .flatten({ background: '#ffffff' })
      .jpeg({ quality: 80, mozjpeg: false })
      .toFile(tmp));
    return { thumb: rel, state: 'preview' };
  } catch {
    return { thumb: null, state: 'pending' };
  }
}
