import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLibrary, type LibraryCtx } from '../../src-main/library/context';
import { addFolder } from '../../src-main/library/folders';
import { closeMetadataReader } from '../../src-main/metadata/reader';
import { scanFolder } from '../../src-main/library/scan';
import { ensureFullImage, ensurePreview, isCompleteJpeg } from '../../src-main/library/thumbs';
import { cr2Like } from '../fixtures/raw';
import { asset, pixel } from './scan-helpers';

// RAW files show a picture: a DNG (or a TIFF-based RAW) whose IFD0 holds its own picture as a
// JPEG-compressed strip shows that picture (exiftool names the strip PreviewImage, but alone it
// lacks its JPEG tables: libvips reads the file instead); a CR2 shows the JPEG preview the
// camera embedded, never its undecodable sensor data.

type Rgb = [number, number, number];
const isRed = ([r, g, b]: Rgb) => r > 170 && g < 90 && b < 90;
const isBlue = ([r, g, b]: Rgb) => b > 170 && r < 90 && g < 110;
const exiftool = (...args: string[]) => execFileSync('exiftool', ['-q', '-overwrite_original', ...args], { stdio: 'ignore' });

let root: string;
let photos: string;
let ctx: LibraryCtx;

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tagsmith-rawprev-')));
  photos = join(root, 'photos');
  mkdirSync(photos);
  const red = (file: string) => sharp({ create: { width: 96, height: 64, channels: 3, background: '#d02020' } }).tiff({ compression: 'jpeg' }).toFile(file);
  // A DNG as a phone writes a small one: its picture in IFD0, JPEG-compressed, with DNGVersion.
  await red(join(photos, 'phone.dng'));
  exiftool('-IFD0:DNGVersion=1.4.0.0', '-IFD0:UniqueCameraModel=Pixel 8', '-IFD0:Make=Google', '-IFD0:Model=Pixel 8', join(photos, 'phone.dng'));
  // A TIFF-based RAW stand-in the same way (the real-world corpus's IMG_1.cr2).
  await red(join(photos, 'IMG_5.cr2'));
  exiftool('-IFD0:Make=Canon', '-IFD0:Model=Canon EOS 5D', join(photos, 'IMG_5.cr2'));
  // A CR2 as Canon writes it: the JPEG preview in IFD0, raw sensor data after it.
  const preview = await sharp({ create: { width: 320, height: 240, channels: 3, background: '#2040d0' } }).jpeg().toBuffer();
  cr2Like(join(photos, 'IMG_6.CR2'), preview, 5472, 3648);

  ctx = openLibrary(join(root, 'lib'));
  await scanFolder(ctx, addFolder(ctx, photos).id);
}, 120_000);

afterAll(async () => {
  ctx.db.close();
  await closeMetadataReader();
  await rm(root, { recursive: true, force: true });
});

describe('RAW pictures', () => {
  it('exiftool reports the strip of a DNG as PreviewImage, and it is not a JPEG that stands alone', () => {
    const strip = execFileSync('exiftool', ['-b', '-PreviewImage', join(photos, 'phone.dng')]);
    expect(strip.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    expect(isCompleteJpeg(strip)).toBe(false);
    const cr2 = execFileSync('exiftool', ['-b', '-PreviewImage', join(photos, 'IMG_6.CR2')]);
    expect(isCompleteJpeg(cr2)).toBe(true);
  });

  it.each([['phone.dng', 'red'], ['IMG_5.cr2', 'red'], ['IMG_6.CR2', 'blue']] as const)('%s shows its picture (%s): thumbnail, loupe preview and the 100 percent view', async (name, colour) => {
    const row = asset(ctx, name);
    expect(row.is_raw, name).toBe(1);
    expect(row.has_error, name).toBe(0);
    expect(row.thumb, name).not.toBeNull();
    const is = colour === 'red' ? isRed : isBlue;
    expect(is(await pixel(ctx, row.thumb!, 10, 10)), name).toBe(true);
    const loupe = await ensurePreview(ctx, row.id);
    expect(loupe && existsSync(loupe), name).toBe(true);
    const { data } = await sharp(loupe!).raw().toBuffer({ resolveWithObject: true });
    expect(is([data[0], data[1], data[2]]), name).toBe(true);
    const full = await ensureFullImage(ctx, row.id);
    expect(full.path, full.note ?? '').not.toBeNull();
    expect(full.source).toBe(name === 'IMG_6.CR2' ? 'embedded-preview' : 'rendered');
  });
});
