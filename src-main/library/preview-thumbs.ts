import { existsSync } from 'node:fs';
import { mkdir, rename, unlink, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import sharp from 'sharp';
import type { LibraryCtx } from './context';
import { embeddedPicture, type EmbeddedPicture, type EmbeddedSource } from './media/embedded';
import { orient } from './media/decode';
import { sharedExifTool } from './metadata';
import { EMBEDDED_SUFFIX } from './thumb-names';
import { thumbAbsPath, thumbRelPath } from './thumbs';

// The grid picture a scan shows before the full thumbnail exists: the preview embedded in
// the file, oriented and stored beside the full thumbnails under its own name
// ('<hash>.embedded.jpg'). Its own name is also its own URL, so a cell swapping to the full
// thumbnail never shows a cached copy of the other picture.

const THUMB_SIZE = 400;

export type ThumbState = 'full' | 'preview' | 'pending' | null;

export function embeddedThumbRelPath(hash: string): string {
  return thumbRelPath(hash).replace(/\.jpg$/, EMBEDDED_SUFFIX);
}


/**
 * Whether an embedded picture can be stored as it is: a JPEG already upright, no bigger than a
 * grid thumbnail, in RGB or grey (what every browser shows alike). Only its header is read.
 */
async function usableAsItIs(pic: EmbeddedPicture): Promise<boolean> {
  if (pic.raw || pic.orientation !== 1 || pic.input.length > 256 * 1024) return false;
  try {
    const m = await sharp(pic.input).metadata();
    return m.format === 'jpeg' && !!m.width && !!m.height && m.width <= THUMB_SIZE && m.height <= THUMB_SIZE &&
      (m.space === 'srgb' || m.space === 'b-w') && !m.hasAlpha;
  } catch {
    return false;
  }
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
    await mkdir(dirname(abs), { recursive: true });
    const tmp = `${abs}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    try {
      if (await usableAsItIs(pic)) {
        // An upright EXIF thumbnail (a small baseline JPEG) is shown as the camera stored it:
        // decoding and re-encoding it would only cost time for every file of a first scan.
        await writeFile(tmp, pic.input);
        await rename(tmp, abs);
        return { thumb: rel, state: 'preview' };
      }
      const img = pic.raw ? sharp(pic.input, { raw: pic.raw }) : sharp(pic.input, { failOn: 'none' });
      await orient(img, pic.orientation)
        .resize(THUMB_SIZE, THUMB_SIZE, { fit: 'inside', withoutEnlargement: true })
        .flatten({ background: '#ffffff' })
        .jpeg({ quality: 80, mozjpeg: false })
        .toFile(tmp);
      await rename(tmp, abs);
    } catch (err) {
      await unlink(tmp).catch(() => undefined);
      throw err;
    }
    return { thumb: rel, state: 'preview' };
  } catch {
    return { thumb: null, state: 'pending' };
  }
}
