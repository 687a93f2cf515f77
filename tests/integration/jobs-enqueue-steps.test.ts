// A large batch queued a chunk at a time (JobQueue.enqueueBatchInSteps, issue 18: a
// 1,000-photo write must not hold the main thread): the event loop runs between chunks, yet
// for the user it is the same single batch: nothing of it runs or is listed before all of it
// is in, one bad payload queues nothing, and a crash mid-way leaves nothing that is ever sent,
// billed or written (the next start removes the half batch).
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { JobQueue, builtinHandlers, type AnalyzePayload, type JobSpec } from '../../src-main/jobs';
import { openDb, type Db } from '../../src-main/library/db';
import { ServiceClient } from '../../src-main/service/client';
import { startSimulator, type Simulator } from '../simulator/index.js';
import { until } from '../helpers/until';

const creds = { clientId: 'steps', clientSecret: 'steps-secret' };
const TUNING = { pollMs: 40, pollMaxMs: 200, offlineProbeMs: 150, offlineProbeMaxMs: 600, retryBaseMs: 100, retryMaxMs: 500 };
let dir: string;
let photos: string[] = [];
const open: { q: JobQueue; db: Db; client: ServiceClient; sim: Simulator }[] = [];

const analyze = (i: number, hash = `hash-${i}`): JobSpec => ({
  kind: 'analyze', payload: { file: photos[i % photos.length], contentHash: hash, endpoint: 'keywords' } satisfies AnalyzePayload,
});

async function setup(dbFile?: string) {
  const sim = await startSimulator({ port: 0, accounts: [creds] });
  const db = openDb(dbFile ?? join(await mkdtemp(join(dir, 'db-')), 'library.sqlite'));
  const client = new ServiceClient({ baseUrl: sim.url, credentials: creds });
  const q = new JobQueue({ db, client, handlers: builtinHandlers, tuning: TUNING });
  open.push({ q, db, client, sim });
  return { sim, db, client, q };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'jobs-steps-test-'));
  photos = await Promise.all(['#2f6fe0', '#2ea83a', '#d03a2a'].map(async (c, i) => {
    const f = join(dir, `p${i}.jpg`);
    await sharp({ create: { width: 640, height: 480, channels: 3, background: c } }).jpeg().toFile(f);
    return f;
  }));
});

afterEach(async () => {
  for (const o of open.splice(0)) {
    await o.q.stop();
    o.db.close();
    await o.client.close();
    await o.sim.close();
  }
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a batch queued in steps', () => {
  it('lets the event loop run between chunks, runs and lists nothing of it until all of it is in, then bills each job once', async () => {
    const { sim, q, db } = await setup();
    q.start();
    const n = 250;
    const seen: { staged: boolean; jobs: number; batches: number; requests: number; queuedCount: number }[] = [];
    let queueing = true;
    // What anyone else on the main thread sees while the batch is being queued.
    const look = (): void => {
      if (!queueing) return;
      seen.push({
        staged: !!db.prepare('SELECT 1 FROM job_batches WHERE staged = 1').get(),
        jobs: (db.prepare('SELECT count(*) AS n FROM jobs').get() as { n: number }).n,
        batches: q.listBatches().length,
        requests: sim.log.length,
        queuedCount: q.status().counts.queued ?? 0,
      });
      q.resume(); // pumps the queue: a staged job must not be picked
      setImmediate(look);
    };
    const pending = q.enqueueBatchInSteps('250 photos in steps', Array.from({ length: n }, (_, i) => analyze(i)), 40);
    setImmediate(look);
    const { batch, jobIds } = await pending;
    queueing = false;
    // The loop ran between the chunks, with part of the batch in the catalogue...
    const staged = seen.filter((s) => s.staged);
    expect(staged.some((s) => s.jobs > 0 && s.jobs < n)).toBe(true);
    // ...and nothing of it was listed, counted as queued or sent meanwhile.
    expect(staged.every((s) => s.batches === 0 && s.requests === 0 && s.queuedCount === 0)).toBe(true);
    // Before it was staged (its payloads being checked) none of it was there; once all of it
    // was in, it was there entirely.
    expect(seen.filter((s) => !s.staged).every((s) => s.jobs === 0 || s.jobs === n)).toBe(true);
    expect(jobIds).toHaveLength(n);
    expect(new Set(jobIds).size).toBe(n);
    expect(batch.total).toBe(n);
    expect(q.listBatches().map((b) => b.id)).toEqual([batch.id]);
    await q.waitForIdle();
    expect(q.getBatch(batch.id)!.counts.done).toBe(n);
    expect(sim.billed()[creds.clientId].keywords).toBe(n);
    expect(sim.log.filter((e) => e.path === '/v1/keywords' && e.status === 200)).toHaveLength(n);
  });

  it('a cached answer makes its job done at once, as in one transaction', async () => {
    const { sim, q } = await setup();
    q.start();
    const first = await q.enqueueBatchInSteps('first', [analyze(0), analyze(1)], 1);
    await q.waitForIdle();
    expect(q.getBatch(first.batch.id)!.counts.done).toBe(2);
    const again = await q.enqueueBatchInSteps('again', [analyze(0), analyze(1), analyze(2)], 1);
    expect(q.getBatch(again.batch.id)!.cached).toBe(2);
    await q.waitForIdle();
    expect(sim.billed()[creds.clientId].keywords).toBe(3);
  });

  it('one bad payload queues nothing, not even an empty batch', async () => {
    const { sim, q, db } = await setup();
    q.start();
    const bad: JobSpec = { kind: 'task', payload: { endpoint: 'imageGenerate', params: { prompt: 'x', model: 'zimage', quality: 'high' } } };
    await expect(q.enqueueBatchInSteps('bad', [analyze(0), analyze(1), bad], 1)).rejects.toThrow(/quality/);
    expect(q.listJobs()).toHaveLength(0);
    expect((db.prepare('SELECT count(*) AS n FROM job_batches').get() as { n: number }).n).toBe(0);
    expect(sim.log).toHaveLength(0);
  });
});

describe('kill -9 while a batch is being queued in steps', () => {
  it('leaves a half batch that never runs; the next start removes it, nothing is sent or billed', async () => {
    const { sim, q, db } = await setup();
    const dbFile = db.name;
    // The child queues 300 jobs, 50 per chunk, and freezes after its first chunks.
    const child = spawn(process.execPath, ['--import', 'tsx', 'tests/integration/fixtures/jobs-staged-worker.ts'], {
      env: {
        ...process.env, TAGSMITH_QUIET: '1', SIM_URL: sim.url, DB_FILE: dbFile, CLIENT_ID: creds.clientId, CLIENT_SECRET: creds.clientSecret,
        PHOTOS: photos.join('\n'), ENQUEUE: '300', STEP: '50',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
    const exited = new Promise((r) => child.once('exit', r));
    await until(() => out.includes('mid-batch') || child.exitCode !== null, 'the child to be mid-batch');
    expect(out).toContain('mid-batch');
    // Part of the batch is in the catalogue, staged.
    const half = (db.prepare('SELECT count(*) AS n FROM jobs').get() as { n: number }).n;
    expect(half).toBeGreaterThan(0);
    expect(half).toBeLessThan(300);
    expect((db.prepare('SELECT count(*) AS n FROM job_batches WHERE staged = 1').get() as { n: number }).n).toBe(1);
    child.kill('SIGKILL');
    await exited;
    // The queue starts again (as the app does at its next start): the half batch goes.
    expect(q.listBatches()).toHaveLength(0);
    q.start();
    expect(q.listJobs({ limit: 1000 })).toHaveLength(0);
    expect((db.prepare('SELECT count(*) AS n FROM job_batches').get() as { n: number }).n).toBe(0);
    await q.waitForIdle();
    expect(sim.log.filter((e) => e.path === '/v1/keywords')).toHaveLength(0);
    expect(sim.billed()[creds.clientId]?.keywords ?? 0).toBe(0);
    // The user queues the batch again: exactly one batch, each job billed once.
    const { batch } = await q.enqueueBatchInSteps('again', Array.from({ length: 300 }, (_, i) => analyze(i, `staged-${i}`)), 50);
    await q.waitForIdle();
    expect(q.listBatches().map((b) => b.id)).toEqual([batch.id]);
    expect(q.getBatch(batch.id)!.counts.done).toBe(300);
    expect(sim.billed()[creds.clientId].keywords).toBe(300);
  });
});
