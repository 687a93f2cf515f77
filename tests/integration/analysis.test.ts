// Quality, faces and colours against the simulator: real JPEGs (textured or flat, magenta
// "faces" with an age marker, EXIF orientations), a real catalogue and the durable queue.
// Scores and classes stored with provenance, UGC class edges, face boxes normalised to the
// displayed picture, filters alone and combined, reject-below and undo.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  collectAnalysisJobs, derivativeSizeOf, getAssetAnalysis, histogram, previewAnalysisRun, rejectBelow, setFlag, startAnalysisRun,
  ugcClass, ugcLabel,
} from '../../src-main/analysis';
import { JobQueue, builtinHandlers } from '../../src-main/jobs';
import type { JobView } from '../../src-main/jobs/types';
import { openLibrary, type LibraryCtx } from '../../src-main/library/context';
import { undo } from '../../src-main/library/edits';
import { hashFile } from '../../src-main/library/hash';
import { photoHistory } from '../../src-main/library/history';
import { changesSince, lastPosition } from '../../src-main/catalogue/change-log';
import { searchIds } from '../../src-main/search/search';
import { ServiceClient } from '../../src-main/service/client';
import { parseQualityUgc } from '../../src-main/service/parse';
import { prepareImage } from '../../src-main/service/prepare';
import { seedAssets, seedFolder } from '../helpers/seed';
import { startTagsmith } from '../helpers/tagsmith';
import type { Tagsmith } from '../../src-main/api/tagsmith';
import { boxesAreNormalised } from '../../src-main/analysis/store';
import { startSimulator, type Simulator } from '../simulator/index.js';

const creds = { clientId: 'an', clientSecret: 'an-secret' };
let dir: string;
let sim: Simulator;
let client: ServiceClient;
let ctx: LibraryCtx;
const apps: Tagsmith[] = [];
const TUNING = { pollMs: 40, retryBaseMs: 50, retryMaxMs: 200 };
const ids: Record<string, number> = {};

type Box = [number, number, number, number];
interface FaceSpec { box: Box; marker?: string }

/** Blocks of two shades: sharp edges everywhere (high simulated quality). */
async function textured(file: string, w: number, h: number, a: string, b: string): Promise<void> {
  const block = 8;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><rect width="${w}" height="${h}" fill="${a}"/>${Array.from(
    { length: Math.ceil(h / block) },
    (_, y) => Array.from({ length: Math.ceil(w / block) }, (_, x) => ((x + y) % 2 ? `<rect x="${x * block}" y="${y * block}" width="${block}" height="${block}" fill="${b}"/>` : '')).join(''),
  ).join('')}</svg>`;
  await sharp(Buffer.from(svg)).jpeg({ quality: 95 }).toFile(file);
}

/**
 * A grey picture as DISPLAYED (w x h) with magenta faces; stored rotated so that applying
 * EXIF `orientation` shows it upright again.
 */
async function facePhoto(file: string, w: number, h: number, faces: FaceSpec[], orientation = 1): Promise<void> {
  const rects = faces.map(({ box: [x0, y0, x1, y1], marker }) => {
    const face = `<rect x="${x0}" y="${y0}" width="${x1 - x0}" height="${y1 - y0}" fill="#ff00ff"/>`;
    const cx = (x0 + x1) / 2;
    const cy = (y0 + y1) / 2;
    return face + (marker ? `<rect x="${cx - 15}" y="${cy - 15}" width="30" height="30" fill="${marker}"/>` : '');
  });
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><rect width="${w}" height="${h}" fill="#808080"/>${rects.join('')}</svg>`;
  const upright = await sharp(Buffer.from(svg)).png().toBuffer();
  // Orientation 6 shows the stored pixels turned 90° clockwise, 8 counter-clockwise.
  const stored = orientation === 6 ? sharp(upright).rotate(270) : orientation === 8 ? sharp(upright).rotate(90) : sharp(upright);
  await stored.jpeg({ quality: 95, chromaSubsampling: '4:4:4' }).withMetadata({ orientation }).toFile(file);
}

const FACE_FILES: { name: string; w: number; h: number; faces: FaceSpec[]; orientation: number }[] = [
  { name: 'kid-o1.jpg', w: 600, h: 400, faces: [{ box: [120, 80, 240, 200], marker: '#ffff00' }], orientation: 1 },
  { name: 'kid-o6.jpg', w: 600, h: 400, faces: [{ box: [120, 80, 240, 200], marker: '#ffff00' }], orientation: 6 },
  { name: 'adult-o8.jpg', w: 600, h: 400, faces: [{ box: [360, 200, 480, 320], marker: '#0000ff' }], orientation: 8 },
  { name: 'two-portrait.jpg', w: 400, h: 640, faces: [{ box: [40, 60, 160, 180] }, { box: [220, 400, 340, 520], marker: '#00ffff' }], orientation: 1 },
];

/** The app's queue, as the app starts it (createTagsmith: every job kind, the analysis collector attached before it starts). */
function newQueue(): JobQueue {
  const app = startTagsmith(ctx, { url: sim.url, creds }, { tuning: TUNING });
  apps.push(app);
  return app.queue;
}

async function measure(assetIds: number[], kind: 'quality' | 'qualityUgc' | 'faces' | 'colors', q = newQueue()) {
  const started = await startAnalysisRun(ctx, q, { assetIds }, { kind });
  await q.waitForIdle();
  return started;
}

const calls = (path: string) => sim.log.filter((e) => e.path === path && e.status === 200).length;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tagsmith-analysis-'));
  await textured(join(dir, 'blue-sharp.jpg'), 600, 400, '#1e50c8', '#6e9bff');
  await textured(join(dir, 'blue-sharp-kw.jpg'), 600, 420, '#1e50c8', '#6e9bff');
  await sharp({ create: { width: 600, height: 400, channels: 3, background: '#1e50c8' } }).jpeg().toFile(join(dir, 'blue-flat.jpg'));
  await textured(join(dir, 'red-sharp.jpg'), 600, 400, '#d03a2a', '#ff7a60');
  for (const f of FACE_FILES) await facePhoto(join(dir, f.name), f.w, f.h, f.faces, f.orientation);
  sim = await startSimulator({ port: 0, accounts: [creds] });
  client = new ServiceClient({ baseUrl: sim.url, credentials: creds });
});

afterAll(async () => {
  await client.close();
  await sim.close();
  await rm(dir, { recursive: true, force: true });
});

beforeEach(async () => {
  ctx = openLibrary(await mkdtemp(join(dir, 'lib-')));
  const folder = seedFolder(ctx.db, dir);
  const names = ['blue-sharp.jpg', 'blue-sharp-kw.jpg', 'blue-flat.jpg', 'red-sharp.jpg', ...FACE_FILES.map((f) => f.name)];
  const rows = [];
  for (const n of names) rows.push({ folderId: folder, relPath: n, contentHash: await hashFile(join(dir, n)), format: 'jpeg', keywords: n === 'blue-sharp-kw.jpg' ? ['sea'] : [] });
  const seeded = seedAssets(ctx.db, [...rows, { folderId: folder, relPath: 'voice.mp3', kind: 'audio' as const, format: 'mp3', contentHash: 'audio' }]);
  [...names, 'voice.mp3'].forEach((n, i) => (ids[n] = seeded[i]));
});

afterEach(async () => {
  for (const app of apps.splice(0)) await app.dispose();
  ctx.db.close();
});

describe('UGC classes (interface 4.7)', () => {
  it('a score on a boundary belongs to the upper class', () => {
    expect([0, 0.1999, 0.2, 0.3999, 0.4, 0.5999, 0.6, 0.7999, 0.8, 0.99, 1].map(ugcClass)).toEqual([1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 5]);
    expect([1, 2, 3, 4, 5].map(ugcLabel)).toEqual(['Very Bad', 'Poor', 'Normal', 'Good', 'Excellent']);
  });

  it('stores the class computed at the edges when the service sends none, and filters by it', () => {
    const runId = Number(ctx.db.prepare(`INSERT INTO analysis_runs (kind, params, params_key, created_at, batch_id, status) VALUES ('qualityUgc', '{}', '{"kind":"qualityUgc"}', 1, 'b-edges', 'running')`).run().lastInsertRowid);
    const edges = [0.2, 0.4, 0.6, 0.8];
    const assets = [ids['blue-sharp.jpg'], ids['blue-flat.jpg'], ids['red-sharp.jpg'], ids['kid-o1.jpg']];
    assets.forEach((a, i) => ctx.db.prepare(`INSERT INTO analysis_run_assets (run_id, asset_id, job_id, state) VALUES (?, ?, ?, 'queued')`).run(runId, a, 9000 + i));
    assets.forEach((_, i) => {
      const result = parseQualityUgc({ quality: { score: edges[i] }, status: 'ok' });
      collectAnalysisJobs(ctx, [{ id: 9000 + i, state: 'done', result, kind: 'analyze', endpoint: 'qualityUgc' } as JobView]);
    });
    expect(assets.map((a) => getAssetAnalysis(ctx, a).ugc)).toEqual(
      edges.map((score, i) => expect.objectContaining({ score, class: i + 2, label: ['Poor', 'Normal', 'Good', 'Excellent'][i], runId })),
    );
    expect(new Set(searchIds(ctx, { ugcClasses: [4, 5] }))).toEqual(new Set([ids['red-sharp.jpg'], ids['kid-o1.jpg']]));
    expect(searchIds(ctx, { ugcClasses: [1] })).toEqual([]);
  });
});

describe('quality runs', () => {
  it('preview, scores with provenance, no second charge, sort and histogram', async () => {
    const q = newQueue();
    const sel = [ids['blue-sharp.jpg'], ids['blue-flat.jpg'], ids['red-sharp.jpg'], ids['voice.mp3']];
    const preview = await previewAnalysisRun(ctx, q, { assetIds: sel }, { kind: 'quality' });
    expect(preview).toMatchObject({ assets: 4, jobs: 3, billable: 3 });
    expect(preview.skipped).toEqual([expect.objectContaining({ assetId: ids['voice.mp3'], reason: 'unsupported' })]);
    const before = calls('/v1/quality');
    const started = await measure(sel, 'quality', q);
    expect(calls('/v1/quality') - before).toBe(3);
    const sharpQ = getAssetAnalysis(ctx, ids['blue-sharp.jpg']).quality!;
    const flatQ = getAssetAnalysis(ctx, ids['blue-flat.jpg']).quality!;
    expect(sharpQ).toMatchObject({ runId: started.runId, params: {} });
    expect(sharpQ.measuredAt).toBeGreaterThan(0);
    expect(sharpQ.score).toBeGreaterThan(0.7);
    expect(flatQ.score).toBeLessThan(0.5);
    expect(getAssetAnalysis(ctx, ids['voice.mp3']).quality).toBeNull();
    // Again: already measured, nothing billable; forced: from the cache.
    expect(await previewAnalysisRun(ctx, q, { assetIds: sel }, { kind: 'quality' })).toMatchObject({ billable: 0, jobs: 0 });
    expect(await previewAnalysisRun(ctx, q, { assetIds: sel }, { kind: 'quality', force: true })).toMatchObject({ billable: 0, cached: 3 });
    // Best first; unmeasured last.
    const best = searchIds(ctx, { sort: 'quality', order: 'desc' });
    expect(best.slice(0, 3)).toEqual([...[ids['blue-sharp.jpg'], ids['red-sharp.jpg']].sort((a, b) => getAssetAnalysis(ctx, b).quality!.score - getAssetAnalysis(ctx, a).quality!.score), ids['blue-flat.jpg']]);
    const h = await histogram(ctx, {}, 'quality', 10);
    expect(h.measured).toBe(3);
    expect(h.unmeasured).toBe(Object.keys(ids).length - 3);
    expect(h.bins.reduce((n, b) => n + b.count, 0)).toBe(3);
    expect(h.bins[Math.min(9, Math.floor(flatQ.score * 10))].count).toBeGreaterThanOrEqual(1);
    // Inclusive bounds.
    expect(searchIds(ctx, { minQuality: flatQ.score, maxQuality: flatQ.score })).toEqual([ids['blue-flat.jpg']]);
  });

  it('UGC quality stores score, class and label', async () => {
    await measure([ids['blue-sharp.jpg'], ids['blue-flat.jpg']], 'qualityUgc');
    for (const n of ['blue-sharp.jpg', 'blue-flat.jpg']) {
      const u = getAssetAnalysis(ctx, ids[n]).ugc!;
      expect(u.class).toBe(ugcClass(u.score));
      expect(u.label).toBe(ugcLabel(u.class));
    }
    expect(searchIds(ctx, { ugcClasses: [getAssetAnalysis(ctx, ids['blue-flat.jpg']).ugc!.class] })).toContain(ids['blue-flat.jpg']);
  });

  it('reject below a threshold is one edit, and undo puts the flags back', async () => {
    await measure([ids['blue-sharp.jpg'], ids['blue-flat.jpg'], ids['red-sharp.jpg']], 'quality');
    await setFlag(ctx, [ids['blue-flat.jpg']], 'pick');
    expect(searchIds(ctx, { flag: 'pick' })).toEqual([ids['blue-flat.jpg']]);
    const r = await rejectBelow(ctx, { query: {} }, 'quality', 0.7);
    expect(r.assetIds).toEqual([ids['blue-flat.jpg']]);
    expect(r.description).toMatch(/^reject 1 photo scoring below 70%/);
    expect(searchIds(ctx, { flag: 'reject' })).toEqual([ids['blue-flat.jpg']]);
    expect(searchIds(ctx, { flag: 'unflagged', minQuality: 0 }).sort()).toEqual([ids['blue-sharp.jpg'], ids['red-sharp.jpg']].sort());
    expect(await undo(ctx)).toMatch(/^Undo: reject 1 photo/);
    expect(searchIds(ctx, { flag: 'pick' })).toEqual([ids['blue-flat.jpg']]);
    expect(await undo(ctx)).toMatch(/^Undo: pick 1 photo/);
    expect(searchIds(ctx, { flag: 'pick' })).toEqual([]);
  });
});

describe('faces', () => {
  it('boxes land on the magenta block of the displayed picture for orientations 1, 6, 8 and a portrait', async () => {
    // The derivative sizing mirrors prepareImage's.
    for (const f of FACE_FILES) {
      const d = await prepareImage(join(dir, f.name), 'faces');
      expect(derivativeSizeOf({ width: f.w, height: f.h })).toEqual({ width: d.width, height: d.height });
      // The test pictures really are upright once rotated by their EXIF orientation.
      expect(d.width / d.height).toBeCloseTo(f.w / f.h, 2);
    }
    await measure(FACE_FILES.map((f) => ids[f.name]), 'faces');
    for (const f of FACE_FILES) {
      const a = getAssetAnalysis(ctx, ids[f.name]);
      expect(a.faces, f.name).toHaveLength(f.faces.length);
      expect(a.releaseNeeded).toBe(true);
      const got = [...a.faces!].sort((p, q) => p.bbox[1] - q.bbox[1]);
      f.faces.forEach((spec, i) => {
        const want = [spec.box[0] / f.w, spec.box[1] / f.h, spec.box[2] / f.w, spec.box[3] / f.h];
        got[i].bbox.forEach((v, k) => expect(Math.abs(v - want[k]), `${f.name} face ${i} coord ${k}: ${v} vs ${want[k]}`).toBeLessThan(0.015));
      });
    }
    expect(getAssetAnalysis(ctx, ids['kid-o6.jpg']).faces![0]).toMatchObject({ class: 'Age - Child' });
    expect(getAssetAnalysis(ctx, ids['kid-o6.jpg']).faces![0].age).toBeLessThan(13);
  });

  it('boxes given as fractions 0..1 (the interface states no unit) are detected and land in the same place', async () => {
    const norm = await startSimulator({ port: 0, accounts: [creds], faceBoxes: 'normalized' });
    const app = startTagsmith(ctx, { url: norm.url, creds }, { tuning: TUNING });
    const q = app.queue;
    try {
      await startAnalysisRun(ctx, q, { assetIds: FACE_FILES.map((f) => ids[f.name]) }, { kind: 'faces' });
      await q.waitForIdle();
      for (const f of FACE_FILES) {
        const got = [...getAssetAnalysis(ctx, ids[f.name]).faces!].sort((p, r) => p.bbox[1] - r.bbox[1]);
        expect(got, f.name).toHaveLength(f.faces.length);
        f.faces.forEach((spec, i) => {
          const want = [spec.box[0] / f.w, spec.box[1] / f.h, spec.box[2] / f.w, spec.box[3] / f.h];
          got[i].bbox.forEach((v, k) => expect(Math.abs(v - want[k]), `${f.name} face ${i} coord ${k}: ${v} vs ${want[k]}`).toBeLessThan(0.015));
        });
      }
    } finally {
      await app.dispose();
      await norm.close();
    }
    expect(boxesAreNormalised([{ bbox: [12, 30, 80, 110] }], 300, 300)).toBe(false);
    expect(boxesAreNormalised([{ bbox: [0.1, 0.2, 0.4, 0.5] }], 300, 300)).toBe(true);
    expect(boxesAreNormalised([{ bbox: [0, 0, 1, 1] }], 4, 4)).toBe(false); // a tiny upload: pixels
  });

  it('filters: has faces, count, child, age range, release needed', async () => {
    await measure([...FACE_FILES.map((f) => ids[f.name]), ids['blue-flat.jpg']], 'faces');
    const set = (xs: number[]) => new Set(xs);
    const all = FACE_FILES.map((f) => ids[f.name]);
    expect(set(searchIds(ctx, { hasFaces: true }))).toEqual(set(all));
    expect(searchIds(ctx, { hasFaces: false })).toEqual([ids['blue-flat.jpg']]);
    expect(getAssetAnalysis(ctx, ids['blue-flat.jpg'])).toMatchObject({ faces: [], releaseNeeded: false });
    expect(searchIds(ctx, { minFaces: 2 })).toEqual([ids['two-portrait.jpg']]);
    expect(set(searchIds(ctx, { child: true }))).toEqual(set([ids['kid-o1.jpg'], ids['kid-o6.jpg']]));
    expect(searchIds(ctx, { ageMin: 40, ageMax: 50 })).toEqual([ids['adult-o8.jpg']]);
    expect(searchIds(ctx, { ageMin: 65 })).toEqual([ids['two-portrait.jpg']]);
    expect(set(searchIds(ctx, { releaseNeeded: true }))).toEqual(set(all));
    expect(searchIds(ctx, { child: true, folderId: 999 })).toEqual([]);
  });
});

describe('colours', () => {
  it('match by perceptual distance, and combine with every other filter', async () => {
    const sel = [ids['blue-sharp.jpg'], ids['blue-sharp-kw.jpg'], ids['blue-flat.jpg'], ids['red-sharp.jpg']];
    const before = calls('/v1/keywords');
    await measure(sel, 'colors');
    expect(calls('/v1/keywords') - before).toBe(4);
    const blue = getAssetAnalysis(ctx, ids['blue-sharp.jpg']);
    expect(blue.colors!.length).toBeGreaterThan(0);
    expect(blue.colors![0]).toEqual({ name: expect.any(String), hex: expect.stringMatching(/^#[0-9a-f]{6}$/), rgb: expect.any(Array), percentage: expect.any(Number) });
    expect(blue.colorsMeasured).toMatchObject({ params: { colors: true, lang: 'en' } });
    const bluish = new Set(searchIds(ctx, { color: { hex: '#2055c0' } }));
    expect(bluish).toEqual(new Set([ids['blue-sharp.jpg'], ids['blue-sharp-kw.jpg'], ids['blue-flat.jpg']]));
    expect(searchIds(ctx, { color: { hex: '#d03a2a' } })).toEqual([ids['red-sharp.jpg']]);
    expect(searchIds(ctx, { color: { hex: '#20c040' } })).toEqual([]);

    // "No keywords yet, quality at least 70 %, mostly blue".
    await measure(sel, 'quality');
    expect(searchIds(ctx, { noKeywords: true, minQuality: 0.7, color: { hex: '#1e50c8' } })).toEqual([ids['blue-sharp.jpg']]);
    expect(searchIds(ctx, { minQuality: 0.7, color: { hex: '#1e50c8' } }).sort()).toEqual([ids['blue-sharp.jpg'], ids['blue-sharp-kw.jpg']].sort());
    expect(searchIds(ctx, { text: 'red', minQuality: 0.7, color: { hex: '#1e50c8' } })).toEqual([]);
    expect(searchIds(ctx, { keywords: ['sea'], color: { hex: '#1e50c8' }, sort: 'quality' })).toEqual([ids['blue-sharp-kw.jpg']]);

    // Sorted by colour: the most blue first, the red picture last.
    // minShare 0 filters nothing: every asset is listed, the measured blue ones first.
    const byBlue = searchIds(ctx, { color: { hex: '#2055c0', minShare: 0 }, sort: 'colorMatch', order: 'desc' });
    expect(byBlue.length).toBeGreaterThan(sel.length);
    expect(new Set(byBlue.slice(0, 3))).toEqual(new Set([ids['blue-sharp.jpg'], ids['blue-sharp-kw.jpg'], ids['blue-flat.jpg']]));
    expect(byBlue.filter((id) => sel.includes(id)).at(-1)).toBe(ids['red-sharp.jpg']);
    const byRed = searchIds(ctx, { color: { hex: '#d03a2a', minShare: 0 }, sort: 'colorMatch', order: 'desc' });
    expect(byRed[0]).toBe(ids['red-sharp.jpg']);
  });
});

describe('through the catalogue\'s door', () => {
  it('each measurement is recorded in the change log on its photo, and read in the photo\'s history', async () => {
    const photo = ids['two-portrait.jpg'];
    const since = lastPosition(ctx.db);
    const runs: Record<string, number> = {};
    for (const kind of ['quality', 'qualityUgc', 'faces', 'colors'] as const) runs[kind] = (await measure([photo], kind)).runId;
    const logged = changesSince(ctx.db, since, 1000).filter((c) => c.assetId === photo && c.op.startsWith('analysis.'));
    const a = getAssetAnalysis(ctx, photo);
    expect(logged.map((c) => [c.op, c.value])).toEqual([
      ['analysis.quality', { run: runs.quality, score: a.quality!.score }],
      ['analysis.ugc', { run: runs.qualityUgc, score: a.ugc!.score, class: a.ugc!.class }],
      // How many faces, not their boxes or ages.
      ['analysis.faces', { run: runs.faces, faces: 2 }],
      ['analysis.colors', { run: runs.colors, colors: a.colors!.map((c) => ({ name: c.name, hex: c.hex })) }],
    ]);
    expect(photoHistory(ctx, photo).map((l) => l.what)).toEqual(
      expect.arrayContaining(['Quality scored by an analysis run', 'UGC quality scored by an analysis run', 'Faces counted by an analysis run', 'Colours measured']),
    );
  });
});

describe('restarts', () => {
  it('a run whose jobs ended while nobody listened lands on the next attach', async () => {
    // A bare queue with no analysis collector (what nobody listening means), then the app.
    const q = new JobQueue({ db: ctx.db, client, handlers: builtinHandlers });
    const started = await startAnalysisRun(ctx, q, { assetIds: [ids['red-sharp.jpg']] }, { kind: 'quality' });
    q.start();
    await q.waitForIdle();
    await q.stop();
    expect(getAssetAnalysis(ctx, ids['red-sharp.jpg']).quality).toBeNull();
    const q2 = newQueue();
    expect(getAssetAnalysis(ctx, ids['red-sharp.jpg']).quality).toMatchObject({ runId: started.runId });
    await q2.waitForIdle();
  });
});
