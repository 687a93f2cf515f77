// Starting a keyword or measurement run, an agency check or an upload over a large selection (issue 18: no step on the main
// thread may hold it for long; at 10,000 photos the start held it ~1.2 s in one piece). The
// plan, the batch and the run's record are made a chunk of photos at a time with the event
// loop let run in between, and the run is recorded while its batch is still staged: no job
// of it can end, be sent or be billed before the run knows it, answers from the cache land,
// and a start cut short leaves neither a batch nor a run behind.
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { getAssetAnalysis, startAnalysisRun } from '../../src-main/analysis';
import type { Tagsmith } from '../../src-main/api/tagsmith';
import type { JobQueue } from '../../src-main/jobs';
import { openLibrary, type LibraryCtx } from '../../src-main/library/context';
import { checkAssets } from '../../src-main/metadata/agency-check';
import { UPLOAD_KIND, startUpload } from '../../src-main/upload';
import { getRun, startKeywordRun } from '../../src-main/workflows';
import { seedAssets, seedFolder } from '../helpers/seed';
import { startTagsmith } from '../helpers/tagsmith';
import { watchTurns } from '../helpers/turns';
import { startSimulator, type Simulator } from '../simulator/index.js';

const creds = { clientId: 'steps-run', clientSecret: 'steps-run-secret' };
/** Distinct pictures; the last COPIES photos are byte copies of the first ones (same media hash). */
const UNIQUE = 200;
const COPIES = 100;
let dir: string;
let sim: Simulator;
let ctx: LibraryCtx;
let ids: number[];
const apps: Tagsmith[] = [];

/** The app's queue, started as the app starts it (createTagsmith: every job kind and collector). */
function newQueue(start = true): JobQueue {
  const app = startTagsmith(ctx, { url: sim.url, creds }, { tuning: { pollMs: 40, retryBaseMs: 50, retryMaxMs: 200 }, startQueue: start });
  apps.push(app);
  return app.queue;
}

const count = (sql: string, ...args: unknown[]): number => (ctx.db.prepare(sql).get(...args) as { n: number }).n;
const sent = (path: string): number => sim.log.filter((e) => e.path === path).length;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tagsmith-run-steps-'));
  for (let i = 0; i < UNIQUE; i++) {
    const background = { r: (i * 37) % 256, g: (i * 91) % 256, b: (i * 53) % 256 };
    await sharp({ create: { width: 400, height: 300, channels: 3, background } }).jpeg({ quality: 85 }).toFile(join(dir, `p${i}.jpg`));
  }
  for (let i = 0; i < COPIES; i++) await copyFile(join(dir, `p${i}.jpg`), join(dir, `copy${i}.jpg`));
  sim = await startSimulator({ port: 0, accounts: [creds] });
});

afterAll(async () => {
  await sim.close();
  await rm(dir, { recursive: true, force: true });
});

beforeEach(async () => {
  ctx = openLibrary(await mkdtemp(join(dir, 'lib-')));
  const folder = seedFolder(ctx.db, dir);
  ids = seedAssets(ctx.db, [
    ...Array.from({ length: UNIQUE }, (_, i) => ({ folderId: folder, relPath: `p${i}.jpg`, contentHash: `file-${i}`, format: 'jpeg' })),
    ...Array.from({ length: COPIES }, (_, i) => ({ folderId: folder, relPath: `copy${i}.jpg`, contentHash: `copy-${i}`, format: 'jpeg' })),
  ]);
});

afterEach(async () => {
  for (const app of apps.splice(0)) await app.dispose();
  ctx.db.close();
});

describe('starting a run over many photos', () => {
  it('lets the main thread run between chunks; no job ends or is sent before its run knows every photo; cached answers land', async () => {
    const q = newQueue();
    // The first 100 pictures are keyworded first: their copies are answered from the cache.
    const first = await startKeywordRun(ctx, q, { assetIds: ids.slice(0, COPIES) });
    await q.waitForIdle();
    expect(getRun(ctx, first.runId)).toMatchObject({ status: 'done' });
    const before = sent('/v1/keywords');
    const target = ids.slice(COPIES); // 100 new pictures + 100 copies of keyworded ones
    const { result: started, seen } = await watchTurns(
      () => startKeywordRun(ctx, q, { assetIds: target }),
      () => {
        const run = ctx.db.prepare('SELECT id, batch_id FROM ai_runs WHERE id > ?').get(first.runId) as { id: number; batch_id: string } | undefined;
        return {
          recorded: run ? count('SELECT count(*) AS n FROM ai_run_assets WHERE run_id = ?', run.id) : 0,
          staged: run ? count('SELECT count(*) AS n FROM job_batches WHERE id = ? AND staged = 1', run.batch_id) === 1 : false,
          ended: run ? count("SELECT count(*) AS n FROM jobs WHERE batch_id = ? AND state IN ('done', 'failed', 'cancelled', 'unknown') AND from_cache = 0", run.batch_id) : 0,
          landed: run ? count("SELECT count(*) AS n FROM ai_run_assets WHERE run_id = ? AND state <> 'queued'", run.id) : 0,
          sent: sent('/v1/keywords') - before,
        };
      },
    );
    // The event loop ran many times during the start...
    expect(seen.length).toBeGreaterThan(10);
    // ...while the run was being recorded, a chunk at a time, its batch staged...
    expect(seen.some((s) => s.staged && s.recorded > 0 && s.recorded < target.length)).toBe(true);
    // ...and nothing of it was sent, ended or landed before the run knew all its photos.
    expect(seen.every((s) => s.recorded === target.length || (s.sent === 0 && s.ended === 0 && s.landed === 0))).toBe(true);
    expect(started.jobs).toBe(target.length);
    await q.waitForIdle();
    const run = getRun(ctx, started.runId)!;
    expect(run.status).toBe('done');
    expect(count("SELECT count(*) AS n FROM ai_run_assets WHERE run_id = ? AND state = 'done'", started.runId)).toBe(target.length);
    expect(count('SELECT count(DISTINCT asset_id) AS n FROM suggestions WHERE run_id = ?', started.runId)).toBe(target.length);
    // The copies cost nothing: only the 100 new pictures were sent.
    expect(sent('/v1/keywords') - before).toBe(UNIQUE - COPIES);
    expect(count('SELECT count(*) AS n FROM jobs WHERE batch_id = ? AND from_cache = 1', started.batchId)).toBe(COPIES);
  });

  it('a start cut short by another process (its queue removes the staged batch) leaves no batch and no run, and nothing is sent', async () => {
    const q = newQueue();
    let other: JobQueue | null = null;
    const before = sent('/v1/keywords');
    const { result, seen } = await watchTurns(
      () => startKeywordRun(ctx, q, { assetIds: ids }).then(() => null, (e: unknown) => e as Error),
      () => {
        // Another Tagsmith process starts its queue while the run is half recorded: to it, the
        // staged batch is a crash's leftover.
        const runs = count('SELECT count(*) AS n FROM ai_runs');
        if (!other && count('SELECT count(*) AS n FROM ai_run_assets') > 0) other = newQueue();
        return runs;
      },
    );
    expect(other).not.toBeNull();
    expect(seen.some((n) => n === 1)).toBe(true);
    expect(result?.message).toMatch(/was removed while it was being queued.*Start it again/);
    expect(count('SELECT count(*) AS n FROM ai_runs')).toBe(0);
    expect(count('SELECT count(*) AS n FROM ai_run_assets')).toBe(0);
    expect(count('SELECT count(*) AS n FROM job_batches')).toBe(0);
    expect(count('SELECT count(*) AS n FROM jobs')).toBe(0);
    await q.waitForIdle();
    expect(sent('/v1/keywords') - before).toBe(0);
    await other!.stop();
    // Started again, the run goes through whole.
    const again = await startKeywordRun(ctx, q, { assetIds: ids });
    await q.waitForIdle();
    expect(getRun(ctx, again.runId)).toMatchObject({ status: 'done' });
    expect(count("SELECT count(*) AS n FROM ai_run_assets WHERE run_id = ? AND state = 'done'", again.runId)).toBe(ids.length);
  });

  it('a measurement run is recorded the same way: every photo known before any job ends', async () => {
    const q = newQueue();
    const { result: started, seen } = await watchTurns(
      () => startAnalysisRun(ctx, q, { assetIds: ids }, { kind: 'quality' }),
      () => ({
        recorded: count('SELECT count(*) AS n FROM analysis_run_assets'),
        ended: count("SELECT count(*) AS n FROM jobs WHERE state IN ('done', 'failed', 'cancelled', 'unknown')"),
        sent: sent('/v1/quality'),
      }),
    );
    expect(seen.some((s) => s.recorded > 0 && s.recorded < ids.length)).toBe(true);
    expect(seen.every((s) => s.recorded === ids.length || (s.ended === 0 && s.sent === 0))).toBe(true);
    await q.waitForIdle();
    expect(started.jobs).toBe(ids.length);
    expect(count("SELECT count(*) AS n FROM analysis_run_assets WHERE run_id = ? AND state = 'done'", started.runId)).toBe(ids.length);
    expect(count('SELECT count(*) AS n FROM asset_quality')).toBe(ids.length);
  });
});

describe('landing answers', () => {
  it('a forced re-run answered wholly from the cache lands every photo; a keyword run with colours gives each photo its palette as the jobs end', async () => {
    const q = newQueue();
    const sel = ids.slice(0, 50);
    const first = await startKeywordRun(ctx, q, { assetIds: sel }, { colors: true });
    await q.waitForIdle();
    expect(getRun(ctx, first.runId)).toMatchObject({ status: 'done' });
    // The palettes came in with the answers (the keyword runs' listener stores them, the
    // measurements' listener then makes them the photos' colours).
    for (const id of sel) expect(getAssetAnalysis(ctx, id).colors?.length).toBeGreaterThan(0);
    const before = sent('/v1/keywords');
    const again = await startKeywordRun(ctx, q, { assetIds: sel }, { colors: true, force: true });
    await q.waitForIdle();
    expect(sent('/v1/keywords') - before).toBe(0);
    expect(getRun(ctx, again.runId)).toMatchObject({ status: 'done' });
    expect(count("SELECT count(*) AS n FROM ai_run_assets WHERE run_id = ? AND state = 'done'", again.runId)).toBe(sel.length);
    expect(count('SELECT count(DISTINCT asset_id) AS n FROM suggestions WHERE run_id = ?', again.runId)).toBe(sel.length);
  });
});

describe('checking and sending many photos to an agency', () => {
  it('the agency check lets the main thread run between chunks', async () => {
    const { result, seen } = await watchTurns(() => checkAssets(ctx, ids, 'adobe'), () => true);
    expect(seen.length).toBeGreaterThan(1);
    expect(result.map((r) => r.assetId)).toEqual(ids);
    // The seeded photos have no keywords yet: every verdict says so.
    expect(result.every((r) => !r.ok && r.problems.some((p) => /0 keywords, but Adobe Stock needs at least 1/.test(p)))).toBe(true);
  });

  it("two uploads of the same photos started at once queue each photo once: the second takes over the first one's jobs", async () => {
    // The queue is not started: nothing is sent (no server listens there); only the queueing is looked at.
    const q = newQueue(false);
    const args = { ids, agency: 'adobe' as const, url: 'ftp://127.0.0.1:9/incoming', force: true };
    const [a, b] = await Promise.all([startUpload(ctx, q, args), startUpload(ctx, q, args)]);
    expect(a.jobs).toHaveLength(ids.length);
    expect(a.batchId).not.toBeNull();
    expect(b.batchId).toBeNull();
    expect(b.jobs.map((j) => j.jobId)).toEqual(a.jobs.map((j) => j.jobId));
    expect(count('SELECT count(*) AS n FROM jobs WHERE kind = ?', UPLOAD_KIND)).toBe(ids.length);
  });
});
