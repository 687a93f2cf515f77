import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashBuffer, hashFile } from '../../src-main/library/hash';
import { hashesOffThread, mediaHashOffThread } from '../../src-main/library/media/pixel-pool';
import { closeMetadataReader } from '../../src-main/metadata/reader';
import { isoMediaHash, mediaHashOfBuffer, mediaHashOfFile } from '../../src-main/library/media-hash';
import { heifEnc } from '../fixtures/heif';

// Writing keywords into a file must not make the picture look new to the service cache:
// the media hash ignores metadata and follows the pixels (or the audio/video samples).

const dir = mkdtempSync(join(tmpdir(), 'tagsmith-mediahash-'));
const exiftool = (...args: string[]) => execFileSync('exiftool', ['-overwrite_original', '-q', ...args]);

async function image(name: string, format: 'jpeg' | 'png' | 'webp', colour: { r: number; g: number; b: number }): Promise<string> {
  const file = join(dir, name);
  await sharp({ create: { width: 64, height: 48, channels: 3, background: colour } })
    .composite([{ input: Buffer.from('<svg width="20" height="20"><circle cx="10" cy="10" r="9" fill="white"/></svg>'), left: 5, top: 5 }])
    .toFormat(format)
    .toFile(file);
  return file;
}

const both = async (file: string, format: string) => {
  const buf = readFileSync(file);
  return { content: await hashBuffer(buf), media: await mediaHashOfBuffer(buf, format) };
};

afterAll(async () => {
  await closeMetadataReader();
});

describe('media hash', () => {
  let jpg: string;
  let png: string;
  let webp: string;
  beforeAll(async () => {
    jpg = await image('a.jpg', 'jpeg', { r: 200, g: 40, b: 40 });
    png = await image('a.png', 'png', { r: 40, g: 200, b: 40 });
    webp = await image('a.webp', 'webp', { r: 40, g: 40, b: 200 });
  });

  it.each([
    ['jpeg', () => jpg],
    ['png', () => png],
    ['webp', () => webp],
  ])('%s: stays the same when keywords, caption and EXIF are written, changes with the pixels', async (format, file) => {
    const before = await both(file(), format);
    expect(before.media).toMatch(/^m:[0-9a-f]{64}$/);
    exiftool('-XMP-dc:Subject=Москва', '-XMP-dc:Description=Über den Dächern', '-EXIF:Artist=Someone', ...(format === 'jpeg' ? ['-IPTC:Keywords=Straße'] : []), file());
    const after = await both(file(), format);
    expect(after.content).not.toBe(before.content);
    expect(after.media).toBe(before.media);

    const other = await image(`b.${format}`, format as 'jpeg', { r: 10, g: 10, b: 10 });
    expect((await both(other, format)).media).not.toBe(before.media);
  });

  it.each(['mp4', 'mov'])('%s: stays the same when XMP is written into the file', async (ext) => {
    const clip = join(dir, `clip.${ext}`);
    execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=size=64x48:rate=10', '-t', '1', '-pix_fmt', 'yuv420p', '-y', clip]);
    const copy = join(dir, `clip-copy.${ext}`);
    copyFileSync(clip, copy);
    const before = await isoMediaHash(copy);
    expect(before).toMatch(/^m:/);
    exiftool('-XMP-dc:Subject=beach', '-XMP-dc:Title=Surf', '-QuickTime:Title=Surf', copy);
    expect(readFileSync(copy).equals(readFileSync(clip))).toBe(false);
    expect(await isoMediaHash(copy)).toBe(before);
    // Read whole by the scan's worker thread, the same media hash as streamed from disk;
    // a clip with no media data has none.
    expect(await mediaHashOfBuffer(readFileSync(copy), ext)).toBe(before);
    expect(await mediaHashOffThread(copy, ext)).toBe(before);
    expect(await hashesOffThread(copy, ext)).toEqual({ hash: await hashFile(copy), mediaHash: before });
    expect(await mediaHashOfBuffer(readFileSync(copy).subarray(0, 32), ext)).toBeNull();
  });

  // TIFF (strips, tiles, JPEG-compressed strips that exiftool's ImageDataHash misses), DNG
  // (a TIFF with DNGVersion) and HEIC (EXIF and XMP items inside mdat, next to the picture).
  const makers: Record<string, (file: string, colour: string) => Promise<void>> = {
    'tiff-lzw': (f, c) => sharp({ create: { width: 64, height: 48, channels: 3, background: c } }).tiff({ compression: 'lzw' }).toFile(f).then(() => undefined),
    'tiff-tiled': (f, c) => sharp({ create: { width: 64, height: 48, channels: 3, background: c } }).tiff({ compression: 'deflate', tile: true, tileWidth: 16, tileHeight: 16 }).toFile(f).then(() => undefined),
    'tiff-jpeg': (f, c) => sharp({ create: { width: 64, height: 48, channels: 3, background: c } }).tiff({ compression: 'jpeg' }).toFile(f).then(() => undefined),
    dng: async (f, c) => {
      await sharp({ create: { width: 64, height: 48, channels: 3, background: c } }).tiff({ compression: 'deflate' }).toFile(f);
      exiftool('-DNGVersion=1.4.0.0', '-EXIF:Make=Nikon', f);
    },
    heic: async (f, c) => {
      const src = `${f}.src.jpg`;
      await sharp({ create: { width: 64, height: 48, channels: 3, background: c } }).jpeg().toFile(src);
      await heifEnc(f, src);
    },
  };
  const extOf: Record<string, [string, string]> = {
    'tiff-lzw': ['tif', 'tiff'], 'tiff-tiled': ['tif', 'tiff'], 'tiff-jpeg': ['tif', 'tiff'], dng: ['dng', 'dng'], heic: ['heic', 'heic'],
  };

  it.each(Object.keys(makers))('%s: stays the same when keywords, caption and EXIF are written, changes with the pixels', async (kind) => {
    const [ext, format] = extOf[kind];
    const file = join(dir, `${kind}.${ext}`);
    await makers[kind](file, '#c83030');
    const hashOf = async (f: string) => mediaHashOfFile(f, format, readFileSync(f));
    const before = await hashOf(file);
    expect(before).toMatch(/^m:[0-9a-f]{64}$/);
    const content = await hashBuffer(readFileSync(file));
    exiftool('-XMP-dc:Subject=Москва', '-XMP-dc:Description=Über den Dächern', '-EXIF:ImageDescription=Über', '-EXIF:Artist=Someone',
      ...(format === 'heic' ? [] : ['-IPTC:Keywords=Straße']), file);
    expect(await hashBuffer(readFileSync(file))).not.toBe(content);
    expect(await hashOf(file)).toBe(before);
    // Too large to be held in memory: exiftool's ImageDataHash answers (not for JPEG-compressed strips).
    if (kind !== 'tiff-jpeg') expect(await mediaHashOfFile(file, format, null)).toMatch(/^m:[0-9a-f]{64}$/);

    const other = join(dir, `${kind}-other.${ext}`);
    await makers[kind](other, '#3030c8');
    expect(await hashOf(other)).not.toBe(before);
  });

  it('answers null for formats it does not parse and for damaged structure, so the content hash is used', async () => {
    expect(await mediaHashOfBuffer(Buffer.from('not an image'), 'jpeg')).toBeNull();
    expect(await mediaHashOfBuffer(readFileSync(jpg), 'tiff')).toBeNull();
    expect(await mediaHashOfBuffer(readFileSync(jpg).subarray(0, 30), 'jpeg')).toBeNull();
  });
});
