import { mkdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiHost } from '../../src-main/api';
import { heifEnc, markedPicture } from '../fixtures/heif';
import { apiLibrary, type ApiLibrary } from '../helpers/api-library';

// The picture behind 100 % zoom (loupe, compare, survey): every pixel of the file. JPEG is
// its own; TIFF and HEIC are rendered once at their own size (bigger than the 2048 px
// preview, upright); what cannot be shown says why, through the Api the renderer calls.

let lib: ApiLibrary;
let photos: string;
let host: ApiHost;
let ids: Map<string, number>;

const pathOf = (token: string): string => decodeURIComponent(token.replace(/^m\//, ''));

beforeAll(async () => {
  lib = await apiLibrary('tagsmith-full-', async (photos, root) => {
    const src = join(root, 'src');
    mkdirSync(src);
    const noise = { create: { width: 2600, height: 1800, channels: 3 as const, background: '#808080', noise: { type: 'gaussian' as const, mean: 128, sigma: 40 } } };
    await sharp(noise).jpeg({ quality: 80 }).toFile(join(photos, 'big.jpg'));
    await sharp(noise).tiff().toFile(join(photos, 'scan.tif'));
    // A portrait phone picture: EXIF orientation 6 turns the 600x400 pixels upright to 400x600.
    await markedPicture(join(src, 'marked.jpg'));
    await sharp(join(src, 'marked.jpg')).withMetadata({ orientation: 6 }).jpeg().toFile(join(src, 'marked-6.jpg'));
    await heifEnc(join(photos, 'phone.heic'), join(src, 'marked-6.jpg'));
    await sharp({ create: { width: 64, height: 64, channels: 3, background: '#808080' } }).jpeg().toFile(join(photos, 'gone.jpg'));
  });
  ({ photos, host, ids } = lib);
});

afterAll(() => lib.close());

describe('getFullImage', () => {
  it('a JPEG is shown from the original itself', async () => {
    const full = await host.api.getFullImage({ id: ids.get('big.jpg')! });
    expect(full).toMatchObject({ source: 'original', note: null });
    expect(pathOf(full.token!)).toBe(join(photos, 'big.jpg'));
  });

  it('a TIFF is rendered once at its own size, bigger than the loupe preview', async () => {
    const id = ids.get('scan.tif')!;
    const full = await host.api.getFullImage({ id });
    expect(full.source).toBe('rendered');
    const meta = await sharp(pathOf(full.token!)).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 2600, 1800]);
    const preview = await sharp(pathOf((await host.api.getAsset({ id })).preview!)).metadata();
    expect(preview.width).toBe(2048);
    // Asked again: the same file, not rendered twice.
    expect((await host.api.getFullImage({ id })).token).toBe(full.token);
  });

  it('a HEIC is rendered at full size and upright', async () => {
    const full = await host.api.getFullImage({ id: ids.get('phone.heic')! });
    expect(full.source).toBe('rendered');
    const meta = await sharp(pathOf(full.token!)).metadata();
    expect([meta.width, meta.height]).toEqual([400, 600]);
  });

  it('a file that is gone says so instead of failing', async () => {
    unlinkSync(join(photos, 'gone.jpg'));
    const full = await host.api.getFullImage({ id: ids.get('gone.jpg')! });
    expect(full).toEqual({ token: null, source: null, note: 'The original file cannot be found (is its folder offline?).' });
  });

  it('refuses a bad id with a validation error, and an unknown one with a clear note', async () => {
    const bad = await host.invoke('getFullImage', { id: 'x' });
    expect(bad.ok).toBe(false);
    const unknown = await host.invoke('getFullImage', { id: 987654 });
    expect(unknown).toEqual({ ok: true, value: { token: null, source: null, note: 'This file is no longer in the library.' } });
  });
});
