// Faults from the simulator: dropped connections (before and after the work), 5xx, 502
// storms, quota running out mid-batch, slow and failing tasks, and the service going away and
// coming back on the same port. Whatever happens: no picture is billed twice, no task is
// created twice, and every batch either finishes or is paused with a reason the user can read.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { JobQueue, builtinHandlers, type AnalyzePayload, type JobSpec } from '../../src-main/jobs';
import { openDb, type Db } from '../../src-main/library/db';
import { ServiceClient } from '../../src-main/service/client';
import { startSimulator, type Simulator, type SimulatorOptions } from '../simulator/index.js';
import { billedPerPicture, distinctPictures, until } from './helpers';

const creds = { clientId: 'faults', clientSecret: 'faults-secret' };
const TUNING = { pollMs: 30, pollMaxMs: 120, offlineProbeMs: 100, offlineProbeMaxMs: 400, retryBaseMs: 40, retryMaxMs: 300 };
const base = mkdtempSync(join(tmpdir(), 'tagsmith-faults-'));
let pictures: string[] = [];
const open: { q: JobQueue; db: Db; client: ServiceClient; sims: Simulator[] }[] = [];

beforeAll(async () => {
  const dir = join(base, 'pictures');
  mkdirSync(dir);
  pictures = await distinctPictures(dir, 60);
});

afterEach(async () => {
  for (const o of open.splice(0)) {
    await o.q.stop();
    o.db.close();
    await o.client.close();
    for (const s of o.sims) await s.close();
  }
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

async function setup(simOpts: Partial<SimulatorOptions> = {}) {
  const sim = await startSimulator({ port: 0, accounts: [creds], taskClock: { pendingMs: 30, startedMs: 60 }, ...simOpts });
  const db = openDb(join(mkdtempSync(join(base, 'db-')), 'library.sqlite'));
  const client = new ServiceClient({ baseUrl: sim.url, credentials: creds });
  const q = new JobQueue({ db, client, handlers: builtinHandlers, tuning: TUNING });
  const entry = { q, db, client, sims: [sim] };
  open.push(entry);
  return { sim, q, db, client, sims: entry.sims };
}

const keywordJobs = (n: number, from = 0): JobSpec[] => Array.from({ length: n }, (_, k) => ({
  kind: 'analyze', payload: { file: pictures[from + k], contentHash: `fault-${from + k}`, endpoint: 'keywords' } satisfies AnalyzePayload,
}));

/** After the queue went idle: the batch finished, or it is held with a message for the user. */
function finishedOrPaused(q: JobQueue, batchId: string): 'finished' | 'paused' {
  const b = q.getBatch(batchId)!;
  const open = (b.counts.queued ?? 0) + (b.counts.running ?? 0) + (b.counts.paused ?? 0);
  if (open === 0) return 'finished';
  const hold = q.status().hold;
  expect(hold, `batch has ${open} open jobs but the queue is not held`).not.toBeNull();
  expect(hold!.message.length).toBeGreaterThan(20);
  expect(hold!.message).not.toMatch(/Error:|at .*\.ts:\d+|undefined/);
  return 'paused';
}

/**
 * No picture was sent twice in a way that could bill (answered, or dropped on the wire); the
 * service's meter lies between the answered and the possibly-billed counts; every done job
 * was billed exactly once, and a failed or waiting job not at all.
 */
function noDoubleBilling(q: JobQueue, sims: Simulator[], picturesInBatch: number[]): void {
  const logs = sims.map((s) => s.log);
  const maybe = billedPerPicture(logs);
  const answered = billedPerPicture(logs, '/v1/keywords', [200]);
  for (const [i, n] of maybe) expect(n, `picture ${i} sent ${n} times`).toBe(1);
  const meter = sims.reduce((a, s) => a + (s.billed()[creds.clientId]?.keywords ?? 0), 0);
  expect(meter).toBeGreaterThanOrEqual([...answered.values()].reduce((a, n) => a + n, 0));
  expect(meter).toBeLessThanOrEqual([...maybe.values()].reduce((a, n) => a + n, 0));
  for (const j of q.listJobs({ limit: 1000 })) {
    const i = picturesInBatch[j.id - 1];
    if (j.state === 'done' && !j.fromCache) expect(answered.get(i), `done job ${j.id}`).toBe(1);
    if (j.state === 'failed' || j.state === 'queued') expect(maybe.get(i) ?? 0, `${j.state} job ${j.id}`).toBe(0);
  }
}

const indices = (n: number, from = 0) => Array.from({ length: n }, (_, k) => from + k);

describe('faults from the service', () => {
  it('dropped connections: before the work nothing is billed, after it the job is unknown and never re-sent', async () => {
    const { sim, sims, q } = await setup();
    sim.inject({ kind: 'drop', path: '/v1/keywords', count: 4 });
    sim.inject({ kind: 'dropAfter', path: '/v1/keywords', count: 4 });
    const { batch } = q.enqueueBatch('drops', keywordJobs(30));
    q.start();
    await q.waitForIdle();
    expect(finishedOrPaused(q, batch.id)).toBe('finished');
    const b = q.getBatch(batch.id)!;
    // A dropped connection cannot tell "never arrived" from "answer lost": both are unknown, never re-sent blindly.
    expect(b.counts.unknown).toBe(8);
    expect(b.counts.done).toBe(22);
    noDoubleBilling(q, sims, indices(30));
    expect(sim.billed()[creds.clientId].keywords).toBe(22 + 4);
    for (const j of q.listJobs({ states: ['unknown'] })) expect(j.error!.message).toMatch(/may have been carried out/);
    // The user's retry of an unknown job is one more call, not more.
    const before = sim.log.length;
    const retried = q.listJobs({ states: ['unknown'] })[0].id;
    q.retryJob(retried);
    await q.waitForIdle();
    expect(sim.log.length).toBe(before + 1);
    expect(q.getJob(retried)!.state).toBe('done');
  });

  it('5xx and a 502 storm are retried with backoff until every picture is done, each billed once', async () => {
    const { sim, sims, q } = await setup();
    sim.inject({ kind: '5xx', path: '/v1/keywords', count: 12, status: 503 });
    sim.inject({ kind: '5xx', path: '/v1/keywords', count: 6 });
    // Each 502 holds the lane back a second (the service's window): a storm of 10 costs ~10 s.
    sim.inject({ kind: '502', path: '/v1/keywords', count: 10 });
    const { batch } = q.enqueueBatch('storm', keywordJobs(40));
    q.start();
    await q.waitForIdle();
    expect(finishedOrPaused(q, batch.id)).toBe('finished');
    const b = q.getBatch(batch.id)!;
    expect(b.counts.done).toBe(40);
    expect(sim.log.filter((e) => e.status === 502).length).toBe(10);
    expect(sim.log.filter((e) => e.status >= 500 && e.status !== 502).length).toBe(18);
    noDoubleBilling(q, sims, indices(40));
    expect(sim.billed()[creds.clientId].keywords).toBe(40);
  });

  it('jobs the service keeps answering with 500 end failed after their tries, with the reason, unbilled: the batch ends', async () => {
    const { sim, sims, q } = await setup();
    const batchSpecs = keywordJobs(10);
    const { batch } = q.enqueueBatch('one bad', batchSpecs);
    // Every answer is a 500 until cleared: after maxAttempts tries each job fails with the reason.
    sim.inject({ kind: '5xx', path: '/v1/keywords' });
    q.start();
    await until(() => q.getBatch(batch.id)!.counts.failed === 10, 'all failed');
    for (const j of q.listJobs()) expect(j.error!.message).toMatch(/service had a problem \(HTTP 500\)/);
    expect(finishedOrPaused(q, batch.id)).toBe('finished');
    noDoubleBilling(q, sims, indices(10));
    expect(sim.billed()[creds.clientId]?.keywords ?? 0).toBe(0);
  });

  it('quota exhausted mid-batch under a 502 storm: paused with a reason, nothing billed twice, resumes after top-up', async () => {
    const { sim, sims, q } = await setup({ freeQuota: { keywords: 17 } });
    sim.inject({ kind: '502', path: '/v1/keywords', count: 4 });
    const { batch } = q.enqueueBatch('quota', keywordJobs(45));
    q.start();
    await q.waitForIdle();
    expect(finishedOrPaused(q, batch.id)).toBe('paused');
    expect(q.status().hold).toMatchObject({ reason: 'quota' });
    expect(q.status().hold!.message).toMatch(/top up/i);
    const b = q.getBatch(batch.id)!;
    expect(b.counts.done).toBe(17);
    expect(b.counts.queued).toBe(28);
    noDoubleBilling(q, sims, indices(45));
    sim.setQuota(null);
    q.resume();
    await q.waitForIdle();
    expect(finishedOrPaused(q, batch.id)).toBe('finished');
    expect(q.getBatch(batch.id)!.counts.done).toBe(45);
    noDoubleBilling(q, sims, indices(45));
    expect(sim.billed()[creds.clientId].keywords).toBe(45);
  });

  it('an injected 429 in the middle of a batch holds billed work with a reason until resumed', async () => {
    const { sim, sims, q } = await setup();
    const { batch } = q.enqueueBatch('429', keywordJobs(20));
    q.start();
    await until(() => (q.getBatch(batch.id)!.counts.done ?? 0) >= 5, 'five done');
    sim.inject({ kind: 'quota', path: '/v1/keywords', count: 1 });
    await until(() => q.status().hold?.reason === 'quota', 'quota hold');
    await q.waitForIdle();
    expect(finishedOrPaused(q, batch.id)).toBe('paused');
    q.resume();
    await q.waitForIdle();
    expect(finishedOrPaused(q, batch.id)).toBe('finished');
    expect(q.getBatch(batch.id)!.counts.done).toBe(20);
    noDoubleBilling(q, sims, indices(20));
  });

  it('slow and failing async tasks: failures end with the service reason, slow ones finish; no task created twice', async () => {
    const { sim, q } = await setup();
    sim.inject({ kind: 'taskFailure', path: '/v1/image_generate', count: 2 });
    sim.inject({ kind: 'slowTask', path: '/v1/image_generate', count: 2, ms: 1500 });
    // Status polls dropped now and then: polling is free, so the queue just goes offline and comes back.
    sim.inject({ kind: 'drop', path: '/v1/status', count: 3 });
    sim.inject({ kind: '502', path: '/v1/status', count: 5 });
    const out = join(base, 'task-results');
    const jobs = Array.from({ length: 6 }, (_, i) => q.enqueue({ kind: 'task', payload: { endpoint: 'imageGenerate', params: { prompt: `fault ${i}` }, downloadTo: out } }));
    q.start();
    await q.waitForIdle();
    const states = jobs.map((j) => q.getJob(j.id)!);
    expect(states.filter((j) => j.state === 'failed')).toHaveLength(2);
    expect(states.filter((j) => j.state === 'done')).toHaveLength(4);
    for (const j of states.filter((x) => x.state === 'failed')) expect(j.error!.message).toMatch(/could not finish the task/);
    for (const j of states.filter((x) => x.state === 'done')) expect((j.result as { file: string }).file).toBeTruthy();
    const creates = sim.log.filter((e) => e.path === '/v1/image_generate' && e.status === 200).length;
    expect(creates).toBe(6);
    expect(sim.tasks()).toHaveLength(6);
    expect(q.status().hold).toBeNull();
  });

  it('an offline period (service closed, restarted on the same port) pauses with a reason and resumes by itself', async () => {
    const { sim, sims, q, client } = await setup();
    const port = sim.port;
    const { batch } = q.enqueueBatch('offline', keywordJobs(40));
    q.start();
    await until(() => (q.getBatch(batch.id)!.counts.done ?? 0) >= 8, 'eight done');
    await sim.close();
    const held = (await until(() => q.status().hold, 'offline hold'))!;
    expect(held.reason).toBe('offline');
    expect(held.message).toMatch(/could not be reached|interrupted/);
    // While offline nothing is lost: every job is done, unknown (its answer was on the wire) or waiting.
    await until(() => !q.listJobs({ states: ['running'] }).length, 'nothing running');
    const during = q.getBatch(batch.id)!;
    expect((during.counts.done ?? 0) + (during.counts.unknown ?? 0) + (during.counts.queued ?? 0)).toBe(40);
    const again = await startSimulator({ port, accounts: [creds] });
    sims.push(again);
    await q.waitForIdle();
    expect(finishedOrPaused(q, batch.id)).toBe('finished');
    expect(q.status().hold).toBeNull();
    const b = q.getBatch(batch.id)!;
    expect((b.counts.done ?? 0) + (b.counts.unknown ?? 0)).toBe(40);
    noDoubleBilling(q, sims, indices(40));
    expect(client.baseUrl).toBe(again.url);
  });
});
