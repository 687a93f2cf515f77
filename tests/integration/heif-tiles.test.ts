import { mkdtempSync, realpathSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openImage } from '../../src-main/library/media/decode';
import { decodeHeif, HeifDecodeError, heifGridBand, heifPrimaryIsGrid, heifThreadLimit, heifThreads, setHeifIdleMs } from '../../src-main/library/media/heif';
import { gridHeic } from '../fixtures/heif-grid';
import { heifEnc, markedPicture, withIrot } from '../fixtures/heif';

// A phone's HEIC is a grid of tiles: its rows of tiles are decoded by every decoder thread at
// once (heif.ts), each thread decoding a band of rows as a grid of its own. These tests hold
// that path to libheif's own whole-grid decode (same pixels, size, orientation), check the
// threads end after a batch, and that one bad file fails alone with a plain reason.

let root: string;
let grid: string;
let turned: string;
let plain: string;
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
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tagsmith-heif-tiles-')));
  const src = join(root, 'marked.jpg');
  // 1000 x 700, blue square top-left; 128 px tiles make a grid of 8 x 6 whose last column
  // and row run past the picture (as a phone's 512 px tiles do).
  await markedPicture(src, 1000, 700);
  grid = join(root, 'grid.heic');
  expect(await gridHeic(src, grid, { tile: 128 })).toEqual({ width: 1000, height: 700, columns: 8, rows: 6 });
  // An iPhone portrait: the grid turned a quarter clockwise by irot.
  turned = join(root, 'turned.heic');
  await gridHeic(src, turned, { tile: 128 });
  await withIrot(turned, 3);
  plain = join(root, 'plain.heic');
  await heifEnc(plain, src);
  // Cut short: the last rows of tiles have no data.
  broken = join(root, 'broken.heic');
  const whole = await readFile(grid);
  await writeFile(broken, whole.subarray(0, Math.floor(whole.length * 0.6)));
}, 120_000);

afterAll(async () => {
  setHeifIdleMs(5_000);
  await rm(root, { recursive: true, force: true });
});

describe('a tiled HEIC (a phone photo)', () => {
  it.each([
    ['grid.heic', 0, [1000, 700], 'left'],
    ['grid.heic', 400, [400, 280], 'left'],
    ['turned.heic', 0, [700, 1000], 'right'],
    ['turned.heic', 400, [280, 400], 'right'],
  ] as const)('%s in a %i px box: band by band in every thread, the same picture as libheif decodes it whole', async (name, box, size, square) => {
    const buf = await readFile(join(root, name));
    const whole = await decodeHeif(buf, 100_000_000, box, { tiles: false });
    const bands = await decodeHeif(buf, 100_000_000, box);
    expect([bands.width, bands.height, bands.channels, bands.source]).toEqual([...size, 3, 'primary']);
    expect([bands.width, bands.height, bands.channels]).toEqual([whole.width, whole.height, whole.channels]);
    expect(bands.picture).toEqual(whole.picture);
    expect(bands.data.length).toBe(whole.data.length);
    // Full size: the very same bytes. Shrunk: libheif turns before the shrink, the bands after it.
    if (box === 0) expect(bands.data.equals(whole.data)).toBe(true);
    else expect(meanDiff(bands.data, whole.data)).toBeLessThan(1);
    const [sx, ox] = square === 'left' ? [8, bands.width - 9] : [bands.width - 9, 8];
    expect(isBlue(at(bands, sx, 8)), `blue square top-${square}`).toBe(true);
    expect(isRed(at(bands, ox, 8))).toBe(true);
    expect(isRed(at(bands, sx, bands.height - 9))).toBe(true);
  });

  it('a band of the grid is the same rows of the picture, its transforms left to the caller', async () => {
    const buf = await readFile(turned);
    const whole = await decodeHeif(await readFile(grid), 100_000_000, 0, { tiles: false });
    const tiling = { columns: 8, rows: 6, tileWidth: 128, tileHeight: 128, width: 1000, height: 700 };
    for (const [from, to] of [[0, 2], [2, 5], [5, 6]]) {
      const band = heifGridBand(buf, tiling, from, to);
      expect(band, `rows ${from}-${to}`).not.toBeNull();
      expect(band?.length).toBe(buf.length);
      const px = await decodeHeif(band as Buffer, 100_000_000, 0, { tiles: false });
      const top = from * 128;
      const height = Math.min(700, to * 128) - top;
      expect([px.width, px.height]).toEqual([1000, height]);
      expect(px.data.equals(whole.data.subarray(top * 1000 * 3, (top + height) * 1000 * 3))).toBe(true);
    }
    expect(heifGridBand(await readFile(plain), tiling, 0, 3), 'a picture that is no grid').toBeNull();
    // Only grids take the band path; any other picture is decoded whole without asking.
    expect([heifPrimaryIsGrid(buf), heifPrimaryIsGrid(await readFile(grid)), heifPrimaryIsGrid(await readFile(plain))]).toEqual([true, true, false]);
  });

  it('a batch uses at most one thread per core, and the threads end after it (the memory goes back)', async () => {
    setHeifIdleMs(200);
    const files = [grid, turned, plain, grid, turned, plain];
    let most = 0;
    const all = Promise.all(files.map(async (f) => {
      const px = await decodeHeif(await readFile(f), 100_000_000, 400);
      most = Math.max(most, heifThreads());
      return px;
    }));
    const done = await all;
    expect(done.map((px) => Math.max(px.width, px.height))).toEqual([400, 400, 400, 400, 400, 400]);
    expect(most).toBeGreaterThanOrEqual(1);
    expect(most).toBeLessThanOrEqual(heifThreadLimit());
    await vi.waitFor(() => expect(heifThreads()).toBe(0), { timeout: 60_000, interval: 50 });
  });

  it('a damaged tiled HEIC fails alone, with a plain reason, and the batch goes on', async () => {
    // Cut inside its container: nothing can be decoded. Cut inside its tiles: the bands fail,
    // and libheif's whole decode shows what it can, as it did before bands existed.
    const unreadable = join(root, 'unreadable.heic');
    await writeFile(unreadable, (await readFile(grid)).subarray(0, 300));
    const files = [grid, unreadable, plain, broken, turned];
    const results = await Promise.allSettled(files.map(async (f) => decodeHeif(await readFile(f), 100_000_000, 400)));
    const whole = await Promise.allSettled(files.map(async (f) => decodeHeif(await readFile(f), 100_000_000, 400, { tiles: false })));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', whole[3].status, 'fulfilled']);
    expect(whole.map((r) => r.status)).toEqual(results.map((r) => r.status));
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(HeifDecodeError);
    await expect(openImage(unreadable, { fitInside: 400 })).rejects.toThrow(/The HEIF picture could not be decoded \(.+\)\. The file may be damaged\./);
  });
});
