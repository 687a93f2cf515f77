import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { fingerprintOffThread, pixelWorkerUsable } from '../../src-main/library/media/pixel-pool';
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
