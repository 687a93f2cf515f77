import { existsSync } from 'node:fs';
import sharp from 'sharp';
import type { Histogram } from '../../src-preload/contract';
import type { LibraryCtx } from './context';
import { assetPath, getAssetRow, thumbPath } from './assets';
import { ensurePreview } from './thumbs';
import { notFound } from '../core/errors';

// The loupe's histogram (Lightroom's, top of the right panel): the red, green, blue and
// luminance levels of the picture the loupe shows — its preview, the original for formats a
// browser shows as they are — counted over a copy at most SIDE px long (enough for the shape;
// a 24 MP JPEG shrinks on load, so this stays well under a tenth of a second).

const SIDE = 512;
const BROWSER_IMAGE_FORMATS = new Set(['jpeg', 'jpg', 'png', 'webp', 'gif', 'avif']);

/** The levels of four channels over 0..255, and how much of the picture is clipped at each end. */
export async function histogram(ctx: LibraryCtx, id: number): Promise<Histogram> {
  const row = getAssetRow(ctx, id);
  if (!row) throw notFound('That photo');
  if (row.kind !== 'image') return { bins: null, note: 'Only photos have a histogram.' };
  const preview = await ensurePreview(ctx, id).catch(() => null);
  const original = assetPath(row);
  const source = preview ?? (BROWSER_IMAGE_FORMATS.has(row.format) && existsSync(original) ? original : thumbPath(ctx, row));
  if (!source || !existsSync(source)) return { bins: null, note: 'No preview of this photo yet, so no histogram.' };
  try {
    const { data, info } = await sharp(source, { failOn: 'none' })
      .rotate()
      .resize(SIDE, SIDE, { fit: 'inside', withoutEnlargement: true })
      .removeAlpha()
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
    return { bins: count(data, info.channels), note: null };
  } catch {
    return { bins: null, note: 'The preview could not be read, so no histogram.' };
  }
}

/** Counts per level for red, green, blue and luminance (Rec. 709 weights), and the clipped shares. */
export function count(data: Uint8Array, channels: number): NonNullable<Histogram['bins']> {
  const r = new Array<number>(256).fill(0);
  const g = new Array<number>(256).fill(0);
  const b = new Array<number>(256).fill(0);
  const l = new Array<number>(256).fill(0);
  const step = Math.max(1, channels);
  const grey = channels < 3;
  let shadows = 0;
  let highlights = 0;
  let n = 0;
  for (let i = 0; i + (grey ? 0 : 2) < data.length; i += step) {
    const R = data[i];
    const G = grey ? R : data[i + 1];
    const B = grey ? R : data[i + 2];
    r[R]++;
    g[G]++;
    b[B]++;
    l[Math.round(0.2126 * R + 0.7152 * G + 0.0722 * B)]++;
    if (R === 0 && G === 0 && B === 0) shadows++;
    if (R === 255 || G === 255 || B === 255) highlights++;
    n++;
  }
  return { red: r, green: g, blue: b, luminance: l, pixels: n, shadowsClipped: n ? shadows / n : 0, highlightsClipped: n ? highlights / n : 0 };
}
