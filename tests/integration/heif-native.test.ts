import { mkdtempSync, realpathSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { setToolPaths } from '../../src-main/core/tools';
import { openImage } from '../../src-main/library/media/decode';
import { renderImage } from '../../src-main/library/thumbs';
import { decodeHeif, heifThreads, setHeifIdleMs } from '../../src-main/library/media/heif';
import { decodeHeifNative, heifHevcPicture, shrinkFor } from '../../src-main/library/media/heif-native';
import { gridHeic } from '../fixtures/heif-grid';
import { heifEnc, markedPicture, withIrot } from '../fixtures/heif';

// HEIC decoded by the bundled ffmpeg's native HEVC decoder (heif-native.ts): held to libheif's
// own decode of the same file (size, orientation, pixels within rounding), and every file it
// does not take (alpha, a big enough thumbnail item, a damaged file, no ffmpeg) still decodes
// through libheif.

let root: string;
let grid: string;
let turned: string;
let plain: string;
let alpha: string;
let broken: string;

type Rgb = [number, number, number];
const isRed = ([r, g, b]: Rgb) => r > 170 && g < 90 && b < 90;
const isBlue = ([r, g, b]: Rgb) => b > 170 && r < 90 && g < 110;
const at = (px: { data: Buffer; width: number; channels: number }, x: number, y: number): Rgb => {
  const i = (y * px.width + x) * px.channels;
  return [px.data[i], px.data[i + 1], px.data[i + 2]];
};
const meanDiff = (a: Buffer, b: Buffer): number => {
  let d = 0;
  for (let i = 0; i < a.length; i++) d += Math.abs(a[i] - b[i]);
  return d / a.length;
};

beforeAll(async () => {
  setHeifIdleMs(50);
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tagsmith-heif-native-')));
  const src = join(root, 'marked.jpg');
  // 1000 x 700, blue square top-left; 128 px tiles: a grid of 8 x 6 whose last column and row
  // run past the picture, as a phone's 512 px tiles do.
  await markedPicture(src, 1000, 700);
  grid = join(root, 'grid.heic');
  await gridHeic(src, grid, { tile: 128 });
  turned = join(root, 'turned.heic');
  await gridHeic(src, turned, { tile: 128 });
  await withIrot(turned, 3);
  plain = join(root, 'plain.heic');
  await heifEnc(plain, src);
  const png = join(root, 'alpha.png');
  await sharp({ create: { width: 320, height: 240, channels: 4, background: { r: 200, g: 30, b: 30, alpha: 0.5 } } }).png().toFile(png);
  alpha = join(root, 'alpha.heic');
  await heifEnc(alpha, png);
  broken = join(root, 'broken.heic');
  const whole = await readFile(grid);
  await writeFile(broken, whole.subarray(0, Math.floor(whole.length * 0.6)));
}, 120_000);

afterEach(() => setToolPaths({ ffmpeg: null }));

afterAll(async () => {
  setHeifIdleMs(5_000);
  await rm(root, { recursive: true, force: true });
});

describe('HEIC through the bundled ffmpeg', () => {
  it('a thumbnail as the grid makes it: no libheif decoder thread is started for a phone HEIC', async () => {
    // First in this file: no decode has run yet, so no libheif thread can be alive from another test.
    const img = await openImage(grid, { fitInside: 200 });
    const { data, info } = await img.pipeline('truncated').raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([200, 140]);
    expect(isBlue(at({ data, width: info.width, channels: info.channels }, 4, 4))).toBe(true);
    expect(heifThreads()).toBe(0);
  });

  it.each([
    ['grid.heic', 0, [1000, 700], 'left'],
    ['grid.heic', 200, [200, 140], 'left'],
    ['turned.heic', 0, [700, 1000], 'right'],
    ['turned.heic', 200, [140, 200], 'right'],
    ['plain.heic', 0, [1000, 700], 'left'],
    ['plain.heic', 200, [200, 140], 'left'],
  ] as const)('%s in a %i px box: the same picture as libheif decodes it', async (name, box, size, square) => {
    const buf = await readFile(join(root, name));
    const native = await decodeHeifNative(buf, 100_000_000, box);
    const libheif = await decodeHeif(buf, 100_000_000, box, { tiles: false });
    expect(native).not.toBeNull();
    const px = native!;
    expect([px.width, px.height, px.channels, px.source]).toEqual([...size, 3, 'primary']);
    expect([px.width, px.height]).toEqual([libheif.width, libheif.height]);
    expect(px.picture).toEqual(libheif.picture);
    // The same colours (the file's colour signalling followed), within rounding and resampling.
    expect(meanDiff(px.data, libheif.data)).toBeLessThan(box === 0 ? 1.5 : 3);
    const [sx, ox] = square === 'left' ? [4, px.width - 5] : [px.width - 5, 4];
    expect(isBlue(at(px, sx, 4)), `blue square top-${square}`).toBe(true);
    expect(isRed(at(px, ox, 4))).toBe(true);
    expect(isRed(at(px, sx, px.height - 5))).toBe(true);
  });

  it('a grid thumbnail of a tiled HEIC is the thumbnail of the JPEG it was made from, colour and detail alike', async () => {
    // A picture with detail in every tile: gradients across it, an 8 px checker in its middle
    // band. Thumbnails of both files through the app's own path, 400 px box, compared pixel
    // by pixel: a tile misplaced, a colour matrix missed, a frame written twice or a blocky
    // shrink shows far above the HEVC/JPEG coding difference.
    const W = 1000;
    const H = 700;
    const raw = Buffer.alloc(W * H * 3);
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        const i = (y * W + x) * 3;
        const checker = y > 250 && y < 450 && ((x >> 3) + (y >> 3)) % 2 === 0;
        raw[i] = Math.round((x / W) * 255);
        raw[i + 1] = Math.round((y / H) * 255);
        raw[i + 2] = checker ? 230 : 40;
      }
    }
    const jpeg = join(root, 'detail.jpg');
    await sharp(raw, { raw: { width: W, height: H, channels: 3 } }).jpeg({ quality: 95 }).toFile(jpeg);
    const heic = join(root, 'detail.heic');
    await gridHeic(jpeg, heic, { tile: 128, quality: 90 });
    const thumbs: { data: Buffer; width: number; height: number }[] = [];
    for (const [file, format] of [[heic, 'heic'], [jpeg, 'jpeg']] as const) {
      const out = join(root, `detail-${format}-thumb.jpg`);
      const r = await renderImage({ input: file, format }, out, 400, 80);
      expect(r.problem).toBeNull();
      const { data, info } = await sharp(out).raw().toBuffer({ resolveWithObject: true });
      thumbs.push({ data, width: info.width, height: info.height });
    }
    // Made by ffmpeg, not by the libheif fallback.
    expect(heifThreads()).toBe(0);
    const [h, j] = thumbs;
    expect([h.width, h.height]).toEqual([400, 280]);
    expect([h.width, h.height]).toEqual([j.width, j.height]);
    expect(meanDiff(h.data, j.data)).toBeLessThan(4);
    // The checker band survives as the same texture (not smeared, not blocky): the spread of
    // its blue channel matches the JPEG's.
    const spread = (t: typeof h): number => {
      let sum = 0;
      let sq = 0;
      let n = 0;
      for (let y = 110; y < 170; y++) {
        for (let x = 20; x < 380; x++) {
          const v = t.data[(y * t.width + x) * 3 + 2];
          sum += v;
          sq += v * v;
          n++;
        }
      }
      return Math.sqrt(sq / n - (sum / n) ** 2);
    };
    expect(Math.abs(spread(h) - spread(j))).toBeLessThan(4);
  });

  it('shrinks each tile inside ffmpeg only by a factor that divides it and keeps the box filled', () => {
    const phone = { tileWidth: 512, tileHeight: 512, width: 4032, height: 3024 };
    expect(shrinkFor(phone, 0)).toBe(1);
    expect(shrinkFor(phone, 256)).toBe(8); // 504 px on the long side, then sharp takes it to 256
    expect(shrinkFor(phone, 400)).toBe(8);
    expect(shrinkFor(phone, 600)).toBe(4);
    expect(shrinkFor({ tileWidth: 128, tileHeight: 128, width: 1000, height: 700 }, 200)).toBe(4);
    expect(shrinkFor({ tileWidth: 1000, tileHeight: 702, width: 1000, height: 700 }, 200)).toBe(2);
  });

  it('leaves to libheif what it does not take: alpha, a damaged file', async () => {
    expect(heifHevcPicture(await readFile(alpha))).toBeNull();
    const viaOpen = await openImage(alpha, { fitInside: 200 });
    expect(viaOpen.width).toBe(320);
    // Cut short: ffmpeg is not trusted with it; libheif shows what it can or names it damaged.
    expect(await decodeHeifNative(await readFile(broken), 100_000_000, 200)).toBeNull();
  });

  it('without ffmpeg (not found), HEIC still decodes through libheif', async () => {
    setToolPaths({ ffmpeg: join(root, 'no-such-ffmpeg') });
    expect(await decodeHeifNative(await readFile(grid), 100_000_000, 200)).toBeNull();
    const img = await openImage(grid, { fitInside: 200 });
    const { info } = await img.pipeline('truncated').raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([200, 140]);
  });

  it('refuses a decompression bomb from the container before ffmpeg runs', async () => {
    await expect(decodeHeifNative(await readFile(grid), 500_000, 200)).rejects.toThrow(/too large to decode safely \(1000 x 700 px\)/);
  });
});
