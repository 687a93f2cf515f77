import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { hashBuffer } from '../../src-main/library/hash';
import { isoMediaHash, mediaHashOfBuffer } from '../../src-main/library/media-hash';

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

  it('MP4: stays the same when XMP is written into the file', async () => {
    const mp4 = join(dir, 'clip.mp4');
    execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=size=64x48:rate=10', '-t', '1', '-pix_fmt', 'yuv420p', '-y', mp4]);
    const copy = join(dir, 'clip-copy.mp4');
    copyFileSync(mp4, copy);
    const before = await isoMediaHash(copy);
    expect(before).toMatch(/^m:/);
    exiftool('-XMP-dc:Subject=beach', '-XMP-dc:Title=Surf', copy);
    expect(readFileSync(copy).equals(readFileSync(mp4))).toBe(false);
    expect(await isoMediaHash(copy)).toBe(before);
  });

  it('answers null for formats it does not parse and for damaged structure, so the content hash is used', async () => {
    expect(await mediaHashOfBuffer(Buffer.from('not an image'), 'jpeg')).toBeNull();
    expect(await mediaHashOfBuffer(readFileSync(jpg), 'tiff')).toBeNull();
    expect(await mediaHashOfBuffer(readFileSync(jpg).subarray(0, 30), 'jpeg')).toBeNull();
  });
});
