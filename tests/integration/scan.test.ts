import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScanProgress, ScanSummary } from '../../src-preload/contract';
import { closeMetadataReader } from '../../src-main/metadata/reader';
import { listFolders } from '../../src-main/library/folders';
import { scanFolder } from '../../src-main/library/scan';
import { ensurePreview, renderImage } from '../../src-main/library/thumbs';
import sharp from 'sharp';
import { UPRIGHT } from '../fixtures/make-tree';
import { asset, isGreen, isRed, liveCount, pixel, setUp, type Fixture } from './scan-helpers';

// A full first scan of the generated tree: what is found, what is read, what is refused.

let fx: Fixture;
let summary: ScanSummary;
const progress: ScanProgress[] = [];

beforeAll(async () => {
  fx = await setUp();
  summary = await scanFolder(fx.ctx, fx.folderId, { onProgress: (p) => progress.push(p) });
});

afterAll(async () => {
  await closeMetadataReader();
  await fx.cleanup();
});

describe('first scan', () => {
  it('finds every media file once, skipping hidden/system folders, symlink loops and non-media', () => {
    expect(summary.added).toBe(fx.tree.expectedAssets);
    expect(liveCount(fx.ctx)).toBe(fx.tree.expectedAssets);
    const paths = fx.ctx.db.prepare<[], { rel_path: string }>('SELECT rel_path FROM assets').all().map((r) => r.rel_path);
    expect(paths.some((p) => p.includes('.git') || p.includes('@eaDir') || p.includes('.thumbnails') || p.startsWith('.hidden'))).toBe(false);
    expect(paths.some((p) => p.startsWith('loop/'))).toBe(false); // loop/link -> .. not followed
    expect(paths).not.toContain('links/alias.jpg'); // the symlinked file is indexed once, via its real path
    expect(paths).not.toContain('broken/notes.txt');
    expect(paths).not.toContain(fx.tree.files.dngSidecar);
    const folder = listFolders(fx.ctx)[0];
    expect(folder.assetCount).toBe(fx.tree.expectedAssets);
    expect(folder.lastScanAt).not.toBeNull();
  });

  it('reports progress with a final done', () => {
    expect(progress.length).toBeGreaterThan(1);
    const last = progress[progress.length - 1];
    expect(last.phase).toBe('done');
    expect(last.found).toBe(fx.tree.expectedAssets);
    expect(last.done).toBe(fx.tree.expectedAssets);
  });

  it('reads the capture date exactly as written, with the offset only when recorded', () => {
    expect(asset(fx.ctx, fx.tree.files.orient[1]).taken_at).toBe('2021-06-15T14:30:01+02:00');
    expect(asset(fx.ctx, fx.tree.files.orient[2]).taken_at).toBe('2021-06-15T14:30:02');
  });

  it('reads camera, lens and signed GPS', () => {
    const a = asset(fx.ctx, fx.tree.files.orient[1]);
    expect(a.camera_make).toBe('Canon');
    expect(a.camera_model).toBe('Canon EOS R5');
    expect(a.lens).toBe('RF24-105mm F4 L IS USM');
    expect(a.gps_lat).toBeCloseTo(-33.4489, 4);
    expect(a.gps_lon).toBeCloseTo(-70.6693, 4);
    const b = asset(fx.ctx, fx.tree.files.orient[2]);
    expect(b.gps_lat).toBeCloseTo(48.8584, 4);
    expect(b.gps_lon).toBeCloseTo(2.2945, 4);
    expect(asset(fx.ctx, fx.tree.files.png).gps_lat).toBeNull();
  });

  it('stores displayed dimensions and applies EXIF orientation 1–8 to thumbnails', async () => {
    for (let o = 1; o <= 8; o++) {
      const a = asset(fx.ctx, fx.tree.files.orient[o]);
      expect(a.orientation, `orientation ${o}`).toBe(o);
      expect([a.width, a.height], `orientation ${o}`).toEqual([UPRIGHT.width, UPRIGHT.height]);
      expect(a.thumb).not.toBeNull();
      expect(isRed(await pixel(fx.ctx, a.thumb!, 4, 4)), `orientation ${o}: red block top-left`).toBe(true);
      expect(isRed(await pixel(fx.ctx, a.thumb!, -4, -4)), `orientation ${o}: bottom-right is grey`).toBe(false);
    }
    const t = asset(fx.ctx, fx.tree.files.orient[6]).thumb!;
    expect(existsSync(join(fx.ctx.paths.cacheDir, t))).toBe(true);
  });

  it('applies an orientation given from outside the pixels (a RAW preview carries none)', async () => {
    for (let o = 1; o <= 8; o++) {
      const bare = await sharp(join(fx.tree.root, fx.tree.files.orient[o])).jpeg().toBuffer(); // EXIF dropped
      const out = join(fx.dir, `forced-${o}.jpg`);
      await renderImage({ input: bare, format: 'jpeg', forceOrientation: o }, out, 400, 80);
      const { data, info } = await sharp(out).raw().toBuffer({ resolveWithObject: true });
      expect([info.width, info.height], `orientation ${o}`).toEqual([400, 300]);
      expect(isRed([data[0], data[1], data[2]]), `orientation ${o}`).toBe(true);
    }
  });

  it('indexes PNG, TIFF, WebP, GIF with thumbnails', async () => {
    for (const rel of [fx.tree.files.png, fx.tree.files.tiff, fx.tree.files.webp, fx.tree.files.gif]) {
      const a = asset(fx.ctx, rel);
      expect(a.kind).toBe('image');
      expect(a.has_error, rel).toBe(0);
      expect(isRed(await pixel(fx.ctx, a.thumb!, 4, 4)), rel).toBe(true);
    }
    expect(asset(fx.ctx, fx.tree.files.tiff).format).toBe('tiff');
  });

  it('treats a RAW as an image with its embedded preview, its sidecar, and its JPEG twin as a stack', async () => {
    const raw = asset(fx.ctx, fx.tree.files.dng);
    expect(raw).toMatchObject({ kind: 'image', format: 'dng', is_raw: 1, camera_make: 'Nikon', rating: 3, caption: 'From the sidecar' });
    expect(isGreen(await pixel(fx.ctx, raw.thumb!, 10, 10))).toBe(true); // the green embedded preview, not the grey image
    expect(raw.keywords_text.split('\n')).toEqual(['Sidecar Tag', 'Places|Europe|Berlin']);
    const jpeg = asset(fx.ctx, fx.tree.files.dngJpeg);
    expect(jpeg.stack_key).toBe(raw.stack_key);
    expect(jpeg.keywords_text).toBe(''); // IMG_0100.xmp belongs to the RAW
    const preview = await ensurePreview(fx.ctx, raw.id);
    expect(preview && existsSync(preview)).toBe(true);
    expect(await ensurePreview(fx.ctx, jpeg.id)).toBeNull(); // the browser shows JPEGs itself
    const tiffPreview = await ensurePreview(fx.ctx, asset(fx.ctx, fx.tree.files.tiff).id);
    expect(tiffPreview && existsSync(tiffPreview)).toBe(true);
  });

  it('probes video (duration, codec, size, poster) and audio', async () => {
    const v = asset(fx.ctx, fx.tree.files.mp4);
    expect(v).toMatchObject({ kind: 'video', format: 'mp4', width: 320, height: 240, video_codec: 'h264' });
    expect(v.duration_s).toBeCloseTo(2, 0);
    expect(v.thumb).not.toBeNull();
    const a = asset(fx.ctx, fx.tree.files.wav);
    expect(a).toMatchObject({ kind: 'audio', format: 'wav', thumb: null, has_error: 0 });
    expect(a.duration_s).toBeCloseTo(1, 1);
    expect(a.audio_codec).toMatch(/^pcm_/);
  });

  it('unions keywords from IPTC, XMP, Lightroom hierarchies and digiKam, decoding UTF-8 and Latin-1', () => {
    const t = asset(fx.ctx, fx.tree.files.tagged);
    // 'Europe' (IPTC) is a component of 'Places|Europe|Berlin' and folds into it.
    expect(t.keywords_text.split('\n')).toEqual(['Straße', 'Ünïcode', 'Animals', 'Москва', 'Places|Europe|Berlin', 'People|Family']);
    expect(t.caption).toBe('Вид на реку – Müller');
    expect(t.title).toBe('Über Moskau');
    expect(t.rating).toBe(4);
    expect(t.color_label).toBe('Red');
    expect(asset(fx.ctx, fx.tree.files.latin1).keywords_text).toBe('Müller');
  });

  it('gives exact duplicates the same hash and one shared thumbnail', () => {
    const a = asset(fx.ctx, fx.tree.files.dupA);
    const b = asset(fx.ctx, fx.tree.files.dupB);
    expect(a.content_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(b.content_hash).toBe(a.content_hash);
    expect(b.thumb).toBe(a.thumb);
  });

  it('records every bad file with a plain reason and carries on', async () => {
    const reasons = new Map(summary.errors.map((e) => [e.path, e.reason]));
    const abs = (rel: string): string => join(fx.tree.root, rel);
    expect(reasons.get(abs(fx.tree.files.empty))).toBe('The file is empty (0 bytes).');
    expect(reasons.get(abs(fx.tree.files.bomb))).toBe('The image is too large to decode safely (50000 x 50000 px).');
    expect(reasons.get(abs(fx.tree.files.truncated))).toMatch(/incomplete or damaged/);
    const bad = [...reasons.entries()].find(([p]) => p.includes('names/fo'));
    expect(bad?.[1]).toMatch(/not valid text.*Rename/);
    for (const rel of [fx.tree.files.empty, fx.tree.files.bomb, fx.tree.files.truncated]) {
      expect(asset(fx.ctx, rel).has_error, rel).toBe(1);
    }
    // The truncated JPEG still has whatever part of the picture survived.
    const tr = asset(fx.ctx, fx.tree.files.truncated);
    expect(tr.thumb).not.toBeNull();
    expect(isRed(await pixel(fx.ctx, tr.thumb!, 4, 4))).toBe(true);
    const stored = fx.ctx.db.prepare<[], { stage: string; reason: string; asset_id: number | null }>('SELECT stage, reason, asset_id FROM scan_errors').all();
    expect(stored.find((e) => e.reason.startsWith('The file is empty'))?.stage).toBe('read');
    expect(stored.find((e) => e.reason.includes('not valid text'))?.asset_id).toBeNull();
    expect(listFolders(fx.ctx)[0].errorCount).toBe(stored.length);
  });

  it('records an unreadable folder and continues (as root, chmod cannot block reads: then it is indexed)', () => {
    const lockedPath = join(fx.tree.root, fx.tree.files.locked);
    const paths = fx.ctx.db.prepare<[], { rel_path: string }>('SELECT rel_path FROM assets').all().map((r) => r.rel_path);
    if (fx.tree.lockedIsUnreadable) {
      expect(summary.errors.find((e) => e.path === lockedPath)?.reason).toMatch(/not allowed to open this folder/);
      expect(paths).not.toContain('locked/inside.jpg');
    } else {
      expect(paths).toContain('locked/inside.jpg');
    }
  });
});
