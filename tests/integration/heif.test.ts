import { copyFileSync, mkdirSync, mkdtempSync, realpathSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tagsmith, type CliRun } from '../helpers/cli';
import { openLibrary, type LibraryCtx } from '../../src-main/library/context';
import { addFolder } from '../../src-main/library/folders';
import { closeMetadataReader } from '../../src-main/metadata/reader';
import { scanFolder } from '../../src-main/library/scan';
import { ensurePreview } from '../../src-main/library/thumbs';
import { prepareImage } from '../../src-main/service/prepare';
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { decodeHeif } from '../../src-main/library/media/heif';
import { flatPicture, heifEnc, markedPicture, withIrot, withPrimary } from '../fixtures/heif';
import { startSimulator, type Simulator } from '../simulator/index.js';
import { asset, pixel } from './scan-helpers';

// HEIC/HEIF pictures have thumbnails, loupe previews and service derivatives without any
// system codec (libheif in WebAssembly), upright and showing the primary picture. Files
// from Debian's heif-enc, with the structures phones write edited in (fixtures/heif.ts).

type Rgb = [number, number, number];
const isRed = ([r, g, b]: Rgb) => r > 170 && g < 90 && b < 90;
const isBlue = ([r, g, b]: Rgb) => b > 170 && r < 90 && g < 110;

let root: string;
let photos: string;
let ctx: LibraryCtx;

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tagsmith-heif-')));
  photos = join(root, 'photos');
  mkdirSync(photos);
  const src = join(root, 'src');
  mkdirSync(src);
  // Landscape 600x400, blue square top-left. Turned a quarter clockwise it is 400x600 with
  // the square top-right.
  await markedPicture(join(src, 'marked.jpg'));
  await flatPicture(join(src, 'green.jpg'), 300, 500, '#20c020');
  copyFileSync(join(src, 'marked.jpg'), join(src, 'marked-6.jpg'));
  await sharp(join(src, 'marked.jpg')).withMetadata({ orientation: 6 }).jpeg().toFile(join(src, 'marked-6.jpg'));

  await heifEnc(join(photos, 'upright.heic'), join(src, 'marked.jpg'));
  // EXIF Orientation 6, no irot: the EXIF orientation turns the picture.
  await heifEnc(join(photos, 'exif-rotated.heic'), join(src, 'marked-6.jpg'));
  // An iPhone portrait: irot turns the pixels and EXIF repeats it (6); turned once, not twice.
  await heifEnc(join(photos, 'iphone.heic'), join(src, 'marked-6.jpg'));
  await withIrot(join(photos, 'iphone.heic'), 3);
  // Two pictures, the second primary (a burst's chosen frame).
  await heifEnc(join(photos, 'burst.heif'), join(src, 'green.jpg'), join(src, 'marked.jpg'));
  await withPrimary(join(photos, 'burst.heif'), 2);
  await sharp(join(src, 'marked.jpg')).avif({ quality: 60 }).toFile(join(photos, 'plain.avif'));

  ctx = openLibrary(join(root, 'lib'));
  await scanFolder(ctx, addFolder(ctx, photos).id);
});

afterAll(async () => {
  ctx.db.close();
  await closeMetadataReader();
  await rm(root, { recursive: true, force: true });
});

describe('HEIC/HEIF thumbnails', () => {
  it.each([
    ['upright.heic', 600, 400, 'left'],
    ['exif-rotated.heic', 400, 600, 'right'],
    ['iphone.heic', 400, 600, 'right'],
    ['burst.heif', 600, 400, 'left'],
    ['plain.avif', 600, 400, 'left'],
  ] as const)('%s: a thumbnail, upright, %i x %i, of the primary picture', async (name, width, height, square) => {
    const row = asset(ctx, name);
    expect(row.has_error, name).toBe(0);
    expect(row.thumb).not.toBeNull();
    expect([row.width, row.height]).toEqual([width, height]);
    const meta = await sharp(join(ctx.paths.cacheDir, row.thumb!)).metadata();
    expect(meta.format).toBe('jpeg');
    expect(Math.max(meta.width!, meta.height!)).toBe(400);
    expect(meta.width! > meta.height!).toBe(width > height);
    const [sx, ox] = square === 'left' ? [8, -8] : [-8, 8];
    expect(isBlue(await pixel(ctx, row.thumb!, sx, 8)), `${name}: blue square top-${square}`).toBe(true);
    expect(isRed(await pixel(ctx, row.thumb!, ox, 8))).toBe(true);
    expect(isRed(await pixel(ctx, row.thumb!, sx, -8))).toBe(true);
  });

  it('makes the loupe preview of a HEIC, upright and large', async () => {
    const row = asset(ctx, 'iphone.heic');
    const preview = await ensurePreview(ctx, row.id);
    expect(preview).not.toBeNull();
    const { data, info } = await sharp(preview!).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([400, 600]);
    const at = (x: number, y: number): Rgb => {
      const i = (y * info.width + x) * info.channels;
      return [data[i], data[i + 1], data[i + 2]];
    };
    expect(isBlue(at(info.width - 10, 10))).toBe(true);
    expect(isRed(at(10, 10))).toBe(true);
  });

  it('names a damaged HEIC as damaged, never as an unsupported system', async () => {
    await expect(prepareImage(Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypheic\0\0\0\0mif1heic'), Buffer.alloc(64)])))
      .rejects.toThrow(/could not be read: The HEIF picture could not be decoded/);
  });
});

describe('HEIC grid thumbnails, decoded small', () => {
  // The grid asks for a 400 px box: the decoder thread shrinks the picture there, and takes
  // the file's own thumbnail item instead when it is at least that big and of the same shape.
  let dir: string;
  beforeAll(async () => {
    dir = join(root, 'thmb');
    mkdirSync(dir);
    await markedPicture(join(dir, 'marked.jpg'), 1600, 1200);
    execFileSync('heif-enc', ['-q', '70', '-t', '480', '-o', join(dir, 'big-thumb.heic'), join(dir, 'marked.jpg')]);
    execFileSync('heif-enc', ['-q', '70', '-t', '240', '-o', join(dir, 'small-thumb.heic'), join(dir, 'marked.jpg')]);
    // A portrait turned by irot on the primary picture only: its thumbnail item is landscape.
    execFileSync('heif-enc', ['-q', '70', '-t', '480', '-o', join(dir, 'turned.heic'), join(dir, 'marked.jpg')]);
    await withIrot(join(dir, 'turned.heic'), 3);
  });

  const at = (px: { data: Buffer; width: number; channels: number }, x: number, y: number): Rgb => {
    const i = (y * px.width + x) * px.channels;
    return [px.data[i], px.data[i + 1], px.data[i + 2]];
  };

  it.each([
    ['big-thumb.heic', 'thumbnail', [400, 300], [1600, 1200], 'left'],
    ['small-thumb.heic', 'primary', [400, 300], [1600, 1200], 'left'],
    ['turned.heic', 'primary', [300, 400], [1200, 1600], 'right'],
  ] as const)('%s: shrunk to the box from its %s, the picture upright with its own size', async (name, source, size, picture, square) => {
    const px = await decodeHeif(await readFile(join(dir, name)), 100_000_000, 400);
    expect(px.source).toBe(source);
    expect([px.width, px.height]).toEqual(size);
    expect([px.picture.width, px.picture.height]).toEqual(picture);
    expect(px.data.length).toBe(px.width * px.height * px.channels);
    const [sx, ox] = square === 'left' ? [8, px.width - 9] : [px.width - 9, 8];
    expect(isBlue(at(px, sx, 8)), `${name}: blue square top-${square}`).toBe(true);
    expect(isRed(at(px, ox, 8))).toBe(true);
    expect(isRed(at(px, sx, px.height - 9))).toBe(true);
  });

  it('decodes the full picture when no box is given (loupe, service)', async () => {
    const px = await decodeHeif(await readFile(join(dir, 'big-thumb.heic')), 100_000_000);
    expect([px.source, px.width, px.height, px.channels]).toEqual(['primary', 1600, 1200, 3]);
    expect(px.data.length).toBe(1600 * 1200 * 3);
  });
});

describe('HEIC derivatives for the service', () => {
  const creds = { clientId: 'heif', clientSecret: 'heif-secret' };
  let sim: Simulator;
  let library: string;

  const cli = (args: string[]): Promise<CliRun> => tagsmith(library, args, { serviceUrl: sim.url, creds });

  beforeAll(async () => {
    sim = await startSimulator({ port: 0, accounts: [creds] });
    library = join(root, 'cli-lib');
    const idx = await cli(['index', photos, '--json']);
    expect(idx.code, idx.stderr).toBe(0);
  });
  afterAll(async () => {
    await sim.close();
  });

  it('`tagsmith index` returns only once every file has its full thumbnail (a script can use it at once)', async () => {
    const r = await cli(['search', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const assets = JSON.parse(r.stdout) as { path: string; thumbnail: string | null }[];
    expect(assets).toHaveLength(5);
    for (const a of assets) {
      expect(a.thumbnail, a.path).not.toBeNull();
      const meta = await sharp(a.thumbnail!).metadata();
      expect([meta.format, Math.max(meta.width!, meta.height!)], a.path).toEqual(['jpeg', 400]);
    }
  });

  it('a keyword run sends the iPhone HEIC as an upright JPEG the service decodes', async () => {
    const r = await cli(['keyword', join(photos, 'iphone.heic'), '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { billable: number; assets: { suggestions: { keyword: string }[]; error?: string }[] };
    expect(out.assets[0].error).toBeUndefined();
    expect(out.assets[0].suggestions.length).toBeGreaterThan(0);
    const calls = sim.log.filter((e) => e.path === '/v1/keywords' && e.method === 'POST' && e.status === 200);
    expect(calls).toHaveLength(1);
    expect(calls[0].imageSize).toEqual({ width: 300, height: 450 });
    expect(calls[0].uploadHadExif).toBe(false);
  });

  it('prepares every HEIF structure as a decodable JPEG of the displayed picture', async () => {
    for (const [name, w, h] of [['exif-rotated.heic', 300, 450], ['burst.heif', 450, 300], ['plain.avif', 450, 300]] as const) {
      const img = await prepareImage(join(photos, name));
      const meta = await sharp(img.data).metadata();
      expect([meta.format, meta.width, meta.height], name).toEqual(['jpeg', w, h]);
      expect(meta.exif).toBeUndefined();
    }
  });
});
