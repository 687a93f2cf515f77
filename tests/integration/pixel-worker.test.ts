import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { mediaHashOfBuffer } from '../../src-main/library/media-hash';
import { digestOffThread, mediaHashOffThread, fingerprintOffThread, pixelWorkerUsable } from '../../src-main/library/media/pixel-pool';
import { fingerprintPixels } from '../../src-main/library/similarity/fingerprint';

// Issue 18: the scan's per-picture fingerprint is computed in a worker thread (the main
// process stays free for the window); it must be the very fingerprint the main thread would
// compute, for pictures of every channel count the thumbnail pipeline hands over.

async function pixels(seed: number, channels: 1 | 3 | 4): Promise<{ data: Buffer; width: number; height: number; channels: number }> {
  const width = 400;
  const height = 267;
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      raw[i] = (x * seed + y * 3) & 255;
      raw[i + 1] = Math.round(128 + 127 * Math.sin((x + seed) / 17)) & 255;
      raw[i + 2] = ((x ^ y) * (seed + 1)) & 255;
    }
  }
  let img = sharp(raw, { raw: { width, height, channels: 3 } });
  if (channels === 1) img = img.toColourspace('b-w');
  if (channels === 4) img = img.ensureAlpha();
  const { data, info } = await img.raw().toBuffer({ resolveWithObject: true });
  expect(info.channels).toBe(channels);
  return { data, width: info.width, height: info.height, channels: info.channels };
}

describe('fingerprint off the main thread', () => {
  it('equals the in-thread fingerprint for grey, RGB and RGBA pixels, many at once', async () => {
    const inputs = await Promise.all([
      pixels(3, 3), pixels(7, 1), pixels(11, 4), pixels(13, 3), pixels(17, 3), pixels(19, 4),
    ]);
    const off = await Promise.all(inputs.map((px) => fingerprintOffThread(px)));
    expect(pixelWorkerUsable()).toBe(true);
    inputs.forEach((px, i) => {
      const here = fingerprintPixels(px);
      expect(off[i].hi).toBe(here.hi);
      expect(off[i].lo).toBe(here.lo);
      expect(off[i].sharpness).toBe(here.sharpness);
      expect(Buffer.from(off[i].colour).equals(Buffer.from(here.colour))).toBe(true);
    });
    // Different pictures, different fingerprints: the worker did not answer one for all.
    expect(new Set(off.map((f) => `${f.hi}:${f.lo}`)).size).toBe(inputs.length);
  });
});

/** The chunk types of a PNG, in order (from the signature to IEND). */
function pngChunkTypes(buf: Buffer): string[] {
  const types: string[] = [];
  for (let i = 8; i + 12 <= buf.length; i += 12 + buf.readUInt32BE(i)) types.push(buf.toString('latin1', i + 4, i + 8));
  return types;
}

describe('pictures read and hashed off the main thread', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tagsmith-digest-'));
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("gives the bytes (a JPEG's metadata head, a PNG without its image data), the content hash and the media hash the main thread would compute", async () => {
    const px = await pixels(5, 3);
    const img = (): ReturnType<typeof sharp> => sharp(px.data, { raw: { width: px.width, height: px.height, channels: 3 } }).withMetadata({ exif: { IFD0: { Artist: 'Digest test' } } });
    const files: [string, string][] = [
      ['a.jpg', 'jpeg'], ['b.png', 'png'], ['c.webp', 'webp'], ['d.tif', 'tiff'],
    ];
    await img().jpeg().toFile(join(dir, 'a.jpg'));
    await img().png().toFile(join(dir, 'b.png'));
    await img().webp().toFile(join(dir, 'c.webp'));
    await img().tiff().toFile(join(dir, 'd.tif'));
    writeFileSync(join(dir, 'e.gif'), Buffer.from('GIF89a not really a picture'));
    files.push(['e.gif', 'gif']);
    const digests = await Promise.all(files.map(([name, format]) => digestOffThread(join(dir, name), format)));
    const mediaHashes = await Promise.all(files.map(([name, format]) => mediaHashOffThread(join(dir, name), format)));
    expect(pixelWorkerUsable()).toBe(true);
    for (const [i, [name, format]] of files.entries()) {
      const bytes = readFileSync(join(dir, name));
      const d = digests[i]!;
      if (format === 'jpeg') {
        // A JPEG's metadata segments only (everything before its image data), not its pixels.
        expect(d.head).toBe(true);
        expect(d.buf.length).toBeLessThan(bytes.length);
        expect(d.buf.equals(bytes.subarray(0, d.buf.length))).toBe(true);
        expect(bytes[d.buf.length]).toBe(0xff);
        expect(bytes[d.buf.length + 1]).toBe(0xda); // SOS
        expect(d.buf.includes(Buffer.from('Digest test'))).toBe(true);
      } else if (format === 'png') {
        // A PNG's chunks but its image data: the signature, IHDR first, the EXIF chunk, IEND last.
        expect(d.head).toBe(true);
        const chunks = pngChunkTypes(d.buf);
        expect(chunks[0]).toBe('IHDR');
        expect(chunks.at(-1)).toBe('IEND');
        expect(chunks).toContain('eXIf');
        expect(chunks).not.toContain('IDAT');
        expect(pngChunkTypes(bytes).filter((t) => t !== 'IDAT')).toEqual(chunks);
        expect(d.buf.includes(Buffer.from('Digest test'))).toBe(true);
      } else {
        expect(d.head).toBe(false);
        expect(d.buf.equals(bytes)).toBe(true);
      }
      expect(d.hash).toBe(createHash('sha256').update(bytes).digest('hex'));
      expect(mediaHashes[i]).toBe(await mediaHashOfBuffer(bytes, format));
    }
    expect(mediaHashes[0]).toMatch(/^m:[0-9a-f]{64}$/);
    expect(mediaHashes[4]).toBeNull(); // no parser: the caller falls back as before
  });

  it("keeps a PNG's text written after its image data (allowed, and some tools do), in its place", async () => {
    const file = join(dir, 'late-text.png');
    const px = await pixels(6, 3);
    const bytes = await sharp(px.data, { raw: { width: px.width, height: px.height, channels: 3 } }).png().toBuffer();
    const iend = bytes.length - 12;
    const data = Buffer.from('Comment\0written after the pixels', 'latin1');
    const chunk = Buffer.alloc(12 + data.length);
    chunk.writeUInt32BE(data.length, 0);
    chunk.write('tEXt', 4, 'latin1');
    data.copy(chunk, 8);
    chunk.writeUInt32BE(crc32(chunk.subarray(4, 8 + data.length)), 8 + data.length);
    const late = Buffer.concat([bytes.subarray(0, iend), chunk, bytes.subarray(iend)]);
    writeFileSync(file, late);
    const d = (await digestOffThread(file, 'png'))!;
    expect(d.head).toBe(true);
    expect(pngChunkTypes(d.buf).slice(-2)).toEqual(['tEXt', 'IEND']);
    expect(d.buf.includes(data)).toBe(true);
    expect(d.hash).toBe(createHash('sha256').update(late).digest('hex'));
  });

  it("hashes every byte of a JPEG whose metadata head is longer than the first read, and hands all of it over", async () => {
    const file = join(dir, 'long-head.jpg');
    const px = await pixels(9, 3);
    await sharp(px.data, { raw: { width: px.width, height: px.height, channels: 3 } }).jpeg().toFile(file);
    // ~400 KB of XMP (exiftool splits it into extended XMP segments), all before the image data.
    const text = join(dir, 'long.txt');
    writeFileSync(text, 'A very long description. '.repeat(16_000));
    execFileSync('exiftool', ['-q', '-overwrite_original', `-XMP-dc:Description<=${text}`, file]);
    const bytes = readFileSync(file);
    const d = (await digestOffThread(file, 'jpeg'))!;
    expect(d.hash).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(d.head).toBe(false);
    expect(d.buf.equals(bytes)).toBe(true);
    expect(await mediaHashOffThread(file, 'jpeg')).toBe(await mediaHashOfBuffer(bytes, 'jpeg'));
  });

  it('rejects a file that cannot be read with its error code, as a read on the main thread would', async () => {
    await expect(digestOffThread(join(dir, 'missing.jpg'), 'jpeg')).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(mediaHashOffThread(join(dir, 'missing.jpg'), 'jpeg')).rejects.toMatchObject({ code: 'ENOENT' });
    expect(pixelWorkerUsable()).toBe(true);
  });
});
