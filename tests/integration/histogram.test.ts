import { unlinkSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiHost } from '../../src-main/api';
import { apiLibrary, type ApiLibrary } from '../helpers/api-library';

// The loupe's histogram, through the Api the renderer calls: the levels of the picture the
// loupe shows, per channel, with what is clipped; a reason where there is none.

let lib: ApiLibrary;
let photos: string;
let host: ApiHost;
let ids: Map<string, number>;

beforeAll(async () => {
  lib = await apiLibrary('tagsmith-histogram-', async (photos) => {
    // Left half pure red, right half white: half the pixels at red 255 only, half at 255 in all.
    const half = await sharp({ create: { width: 200, height: 200, channels: 3, background: '#ff0000' } }).png().toBuffer();
    await sharp({ create: { width: 400, height: 200, channels: 3, background: '#ffffff' } })
      .composite([{ input: half, left: 0, top: 0 }])
      .png()
      .toFile(join(photos, 'red-white.png'));
    // A TIFF is shown through its rendered preview: the histogram is that preview's.
    await sharp({ create: { width: 300, height: 200, channels: 3, background: '#000000' } }).tiff().toFile(join(photos, 'black.tif'));
    await sharp({ create: { width: 64, height: 64, channels: 3, background: '#808080' } }).jpeg().toFile(join(photos, 'gone.jpg'));
  });
  ({ photos, host, ids } = lib);
});

afterAll(() => lib.close());

describe('getHistogram', () => {
  it('counts each channel and the luminance of the picture shown', async () => {
    const h = await host.api.getHistogram({ id: ids.get('red-white.png')! });
    expect(h.note).toBeNull();
    const b = h.bins!;
    expect(b.pixels).toBe(400 * 200);
    expect(b.red[255]).toBe(b.pixels);
    expect(b.green[0]).toBe(b.pixels / 2);
    expect(b.green[255]).toBe(b.pixels / 2);
    expect(b.blue[0]).toBe(b.pixels / 2);
    // Pure red has the luminance 0.2126 × 255 ≈ 54; white 255.
    expect(b.luminance[54]).toBe(b.pixels / 2);
    expect(b.luminance[255]).toBe(b.pixels / 2);
    expect(b.highlightsClipped).toBe(1);
    expect(b.shadowsClipped).toBe(0);
  });

  it('reads a TIFF through its preview', async () => {
    const b = (await host.api.getHistogram({ id: ids.get('black.tif')! })).bins!;
    expect(b.luminance[0]).toBe(b.pixels);
    expect(b.shadowsClipped).toBe(1);
  });

  it('says why when there is nothing to count, and refuses bad ids', async () => {
    unlinkSync(join(photos, 'gone.jpg'));
    const gone = await host.api.getHistogram({ id: ids.get('gone.jpg')! });
    // The grid thumbnail stands in for a missing original (the loupe shows it too).
    expect(gone.bins === null ? gone.note : 'thumb').toBeTruthy();
    const bad = await host.invoke('getHistogram', { id: 'x' });
    expect(bad.ok).toBe(false);
    const unknown = await host.invoke('getHistogram', { id: 987654 });
    expect(unknown.ok).toBe(false);
  });
});
