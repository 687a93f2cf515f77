import { mkdirSync, mkdtempSync, realpathSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi, type ApiHost } from '../../src-main/api';
import { openLibrary, type LibraryCtx } from '../../src-main/library/context';
import { closeMetadataReader } from '../../src-main/library/metadata';

// The loupe's histogram, through the Api the renderer calls: the levels of the picture the
// loupe shows, per channel, with what is clipped; a reason where there is none.

let root: string;
let photos: string;
let ctx: LibraryCtx;
let host: ApiHost;
const ids = new Map<string, number>();

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tagsmith-histogram-')));
  photos = join(root, 'photos');
  mkdirSync(photos);
  // Left half pure red, right half white: half the pixels at red 255 only, half at 255 in all.
  const half = await sharp({ create: { width: 200, height: 200, channels: 3, background: '#ff0000' } }).png().toBuffer();
  await sharp({ create: { width: 400, height: 200, channels: 3, background: '#ffffff' } })
    .composite([{ input: half, left: 0, top: 0 }])
    .png()
    .toFile(join(photos, 'red-white.png'));
  // A TIFF is shown through its rendered preview: the histogram is that preview's.
  await sharp({ create: { width: 300, height: 200, channels: 3, background: '#000000' } }).tiff().toFile(join(photos, 'black.tif'));
  await sharp({ create: { width: 64, height: 64, channels: 3, background: '#808080' } }).jpeg().toFile(join(photos, 'gone.jpg'));
  ctx = openLibrary(join(root, 'lib'));
  host = createApi(ctx, { watch: false });
  await host.api.addFolder({ path: photos });
  await host.scanner.waitForIdle();
  const found = await host.api.search({ query: {}, page: { offset: 0, limit: 50 } });
  for (const a of found.items) ids.set(a.name, a.id);
});

afterAll(async () => {
  await host.dispose();
  ctx.db.close();
  await closeMetadataReader();
  rmSync(root, { recursive: true, force: true });
});

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
