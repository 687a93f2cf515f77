// The durable queue against the simulator: pacing without 502s, cache, quota, 401, caps,
// offline/online, async tasks (unknown outcome, cancel, download), and a kill -9 mid-batch.
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { JobQueue, builtinHandlers, type AnalyzePayload, type JobSpec, type TaskPayload } from '../../src-main/jobs';
import { openDb, type Db } from '../../src-main/library/db';
import { ServiceClient } from '../../src-main/service/client';
import { startSimulator, type Simulator } from '../simulator/index.js';
import { until } from '../helpers/until';

const creds = { clientId: 'jobs', clientSecret: 'jobs-secret' };
const TUNING = { pollMs: 40, pollMaxMs: 200, offlineProbeMs: 150, offlineProbeMaxMs: 600, retryBaseMs: 100, retryMaxMs: 500 };
let dir: string;
let photos: string[] = [];
const open: { q: JobQueue; db: Db; client: ServiceClient; sim?: Simulator }[] = [];


async function setup(simOpts: Partial<Parameters<typeof startSimulator>[0]> = {}, clientCreds = creds, existingSim?: Simulator) {
  const sim = existingSim ?? await startSimulator({ port: 0, accounts: [creds], taskClock: { pendingMs: 30, startedMs: 60 }, ...simOpts });
  const db = openDb(join(await mkdtemp(join(dir, 'db-')), 'library.sqlite'));
  const client = new ServiceClient({ baseUrl: sim.url, credentials: clientCreds });
  const q = new JobQueue({ db, client, handlers: builtinHandlers, tuning: TUNING });
  open.push({ q, db, client, sim: existingSim ? undefined : sim });
  q.start();
  return { sim, db, client, q };
}

const analyze = (i: number, endpoint: AnalyzePayload['endpoint'] = 'keywords', hash = `hash-${i}`): JobSpec => ({
  kind: 'analyze', payload: { file: photos[i % photos.length], contentHash: hash, endpoint } satisfies AnalyzePayload,
});
const count502 = (sim: Simulator) => sim.log.filter((e) => e.status === 502).length;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'jobs-test-'));
  const colours = ['#2f6fe0', '#2ea83a', '#d03a2a', '#e0c02f', '#7a3ad0', '#30c0c0'];
  photos = await Promise.all(colours.map(async (c, i) => {
    const f = join(dir, `p${i}.jpg`);
    await sharp({ create: { width: 640, height: 480, channels: 3, background: c } }).jpeg().withMetadata({ orientation: 1 }).toFile(f);
    return f;
  }));
});

afterEach(async () => {
  for (const o of open.splice(0)) {
    await o.q.stop();
    o.db.close();
    await o.client.close();
    await o.sim?.close();
  }
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('job queue', () => {
  it('paces 1,000 keyword requests with zero 502s (the achieved rate belongs to the benchmark)', async () => {
    const { sim, q } = await setup();
    const n = 1000;
    const specs = Array.from({ length: n }, (_, i) => analyze(i));
    expect((await q.preview(specs)).billable).toBe(n);
    const { batch } = q.enqueueBatch('1,000 photos', specs);
    await q.waitForIdle();
    expect(q.getBatch(batch.id)!.counts.done).toBe(n);
    expect(count502(sim)).toBe(0);
    expect(sim.billed()[creds.clientId].keywords).toBe(n);
    expect(q.status().usage.byModelToday.keywords).toBe(n);
    const uploads = sim.log.filter((e) => e.path === '/v1/keywords');
    expect(uploads.every((e) => !e.uploadHadExif && Math.min(e.imageSize!.width, e.imageSize!.height) === 300)).toBe(true);
  }, 180_000);

  it('a cache hit or a duplicate file costs nothing', async () => {
    const { sim, q } = await setup();
    q.enqueueBatch('first', [analyze(0), analyze(1), analyze(2, 'keywords', 'hash-0')]);
    await q.waitForIdle();
    expect(sim.billed()[creds.clientId].keywords).toBe(2);
    const before = sim.log.length;
    const preview = await q.preview([analyze(0), analyze(1)]);
    expect(preview).toMatchObject({ billable: 0, cached: 2 });
    // Within one batch the same picture twice is one call.
    expect(await q.preview([analyze(5, 'keywords', 'hash-x'), analyze(6, 'keywords', 'hash-x'), analyze(7)])).toMatchObject({ billable: 2, duplicates: 1, cached: 0 });
    const { batch } = q.enqueueBatch('again', [analyze(0), analyze(1)]);
    expect(q.getBatch(batch.id)!.cached).toBe(2);
    await q.waitForIdle();
    expect(sim.log.length).toBe(before);
    // other parameters are another question
    q.enqueue({ kind: 'analyze', payload: { file: photos[0], contentHash: 'hash-0', endpoint: 'keywords', params: { lang: 'fr' } } });
    await q.waitForIdle();
    expect(sim.billed()[creds.clientId].keywords).toBe(3);
  });

  it('invalid parameters are refused at enqueue, before any request', async () => {
    const { sim, q } = await setup();
    expect(() => q.enqueue({ kind: 'analyze', payload: { file: photos[0], endpoint: 'keywords', params: { threshold: 2 } } })).toThrow(/threshold/);
    expect(() => q.enqueueBatch('bad', [analyze(0), { kind: 'task', payload: { endpoint: 'imageGenerate', params: { prompt: 'x', model: 'zimage', quality: 'high' } } }])).toThrow(/quality/);
    expect(q.listJobs()).toHaveLength(0);
    expect(sim.log).toHaveLength(0);
  });

  it('quota running out mid-batch pauses billed work with nothing lost; resume after top-up', async () => {
    const { sim, q } = await setup({ freeQuota: { keywords: 10 } });
    const { batch } = q.enqueueBatch('30 photos', Array.from({ length: 30 }, (_, i) => analyze(i)));
    await q.waitForIdle();
    expect(q.status().hold?.reason).toBe('quota');
    const b = q.getBatch(batch.id)!;
    expect(b.counts.done).toBe(10);
    expect(b.counts.queued).toBe(20);
    expect(b.counts.failed ?? 0).toBe(0);
    sim.setQuota(null);
    q.resume();
    await q.waitForIdle();
    expect(q.getBatch(batch.id)!.counts.done).toBe(30);
    expect(sim.billed()[creds.clientId].keywords).toBe(30);
  });

  it('quota answered as 200 {status: "error"} holds the queue like a 429; nothing fails, nothing is lost', async () => {
    const { sim, q } = await setup();
    sim.inject({ kind: 'quota200', path: '/v1/keywords', message: 'Free requests limit exceeded, please top up your balance' });
    const { batch } = q.enqueueBatch('5 photos', Array.from({ length: 5 }, (_, i) => analyze(i)));
    await q.waitForIdle();
    expect(q.status().hold?.reason).toBe('quota');
    expect(q.getBatch(batch.id)!.counts.failed ?? 0).toBe(0);
    expect(q.getBatch(batch.id)!.counts.queued).toBe(5);
    sim.clearFaults();
    q.resume();
    await q.waitForIdle();
    expect(q.getBatch(batch.id)!.counts.done).toBe(5);
    expect(sim.billed()[creds.clientId].keywords).toBe(5);
  });

  it('a 400 with the service\'s message fails that file once (shown, not retried, not billed); the batch goes on', async () => {
    const { sim, q } = await setup();
    sim.inject({ kind: 'error', status: 400, path: '/v1/keywords', count: 1, message: 'Image is too small for analysis' });
    const { batch } = q.enqueueBatch('3 photos', Array.from({ length: 3 }, (_, i) => analyze(i)));
    await q.waitForIdle();
    const b = q.getBatch(batch.id)!;
    expect(b.counts.done).toBe(2);
    expect(b.counts.failed).toBe(1);
    const failed = q.listJobs({ states: ['failed'], limit: 10 });
    expect(failed).toHaveLength(1);
    expect(failed[0].error).toMatchObject({ kind: 'invalid_input', message: expect.stringContaining('Image is too small for analysis') });
    // sent once: three requests for three files, no retry of the refused one
    expect(sim.log.filter((e) => e.path === '/v1/keywords')).toHaveLength(3);
    expect(sim.billed()[creds.clientId].keywords).toBe(2);
    expect(q.status().hold).toBeNull();
  });

  it('an account-wide ceiling (off by default) holds every lane together under it, against a service that counts the account', async () => {
    const { sim, q } = await setup({ rateScope: 'account' });
    expect(q.getCaps().accountRatePerSecond ?? null).toBeNull();
    expect(() => q.setCaps({ accountRatePerSecond: 31 })).toThrow(/accountRatePerSecond/);
    q.setCaps({ accountRatePerSecond: 12 });
    const specs = [
      ...Array.from({ length: 25 }, (_, i) => analyze(i, 'keywords', `acct-k-${i}`)),
      ...Array.from({ length: 25 }, (_, i) => analyze(i, 'quality', `acct-q-${i}`)),
      ...Array.from({ length: 10 }, (_, i) => analyze(i, 'faces', `acct-f-${i}`)),
    ];
    const { batch } = q.enqueueBatch('three lanes', specs);
    await q.waitForIdle();
    expect(q.getBatch(batch.id)!.counts.done).toBe(60);
    expect(count502(sim)).toBe(0);
    // arrivals at the service over any rolling second, all endpoints together
    const at = sim.log.filter((e) => e.status === 200 && ['/v1/keywords', '/v1/quality', '/v1/faces'].includes(e.path)).map((e) => e.at).sort((a, b) => a - b);
    let most = 0;
    for (let i = 0, j = 0; i < at.length; i++) {
      while (at[i] - at[j] >= 1000) j++;
      most = Math.max(most, i - j + 1);
    }
    expect(most).toBeLessThanOrEqual(12);
  });

  it('a 401 stops everything and asks for credentials', async () => {
    const { sim, q } = await setup({}, { clientId: 'jobs', clientSecret: 'wrong' });
    const events: string[] = [];
    q.on('status', (s) => { if (s.hold) events.push(s.hold.reason); });
    q.enqueueBatch('b', Array.from({ length: 20 }, (_, i) => analyze(i)));
    await q.waitForIdle();
    expect(q.status().hold?.reason).toBe('credentials');
    expect(events).toContain('credentials');
    expect(q.status().counts.queued).toBe(20);
    expect(sim.log.filter((e) => e.status === 401).length).toBeLessThanOrEqual(6);
    expect(JSON.stringify(q.status())).not.toContain('wrong');
  });

  it('caps pause before they would be crossed; preview tells in advance', async () => {
    const { sim, q } = await setup();
    q.setCaps({ dailyCalls: 5, pricePerCall: { keywords: 0.01 } });
    const specs = Array.from({ length: 8 }, (_, i) => analyze(i));
    const p = await q.preview(specs);
    expect(p).toMatchObject({ billable: 8, fitsCaps: false, remaining: { today: 5 } });
    expect(p.estimatedCost).toBeCloseTo(0.08);
    q.enqueueBatch('capped', specs);
    await q.waitForIdle();
    expect(q.status().hold).toMatchObject({ reason: 'cap' });
    expect(q.status().hold!.message).toMatch(/daily cap of 5/);
    expect(sim.billed()[creds.clientId].keywords).toBe(5);
    q.setCaps({ dailyCalls: 100 });
    await q.waitForIdle();
    expect(q.status().counts.done).toBe(8);
  });

  it('offline, then online again on the same port: resumes by itself', async () => {
    const first = await startSimulator({ port: 0, accounts: [creds] });
    const port = first.port;
    await first.close();
    const { q, client, db } = await setup({}, creds, first);
    q.enqueueBatch('offline', Array.from({ length: 6 }, (_, i) => analyze(i)));
    await until(() => q.status().hold?.reason === 'offline' && q.status().counts.queued === 6);
    const sim = await startSimulator({ port, accounts: [creds] });
    try {
      await q.waitForIdle();
      expect(q.status().hold).toBeNull();
      expect(q.status().counts.done).toBe(6);
      expect(sim.billed()[creds.clientId].keywords).toBe(6);
    } finally {
      await q.stop();
      db.close();
      await client.close();
      open.pop();
      await sim.close();
    }
  });

  it('async tasks: created, polled, downloaded; a lost create answer is unknown and never re-sent', async () => {
    const { sim, q } = await setup();
    const out = join(dir, 'results');
    const ok = q.enqueue({ kind: 'task', payload: { endpoint: 'imageGenerate', params: { prompt: 'a fox', model: 'flux2' }, downloadTo: out } satisfies TaskPayload });
    await q.waitForIdle();
    const done = q.getJob(ok.id)!;
    expect(done.state).toBe('done');
    expect((await readdir(out)).length).toBe(1);
    sim.inject({ kind: 'dropAfter', path: '/v1/image_generate', count: 1 });
    const lost = q.enqueue({ kind: 'task', payload: { endpoint: 'imageGenerate', params: { prompt: 'lost', model: 'flux2' } } });
    await q.waitForIdle();
    expect(q.getJob(lost.id)!.state).toBe('unknown');
    expect(sim.log.filter((e) => e.path === '/v1/image_generate').length).toBe(2);
    expect(sim.billed()[creds.clientId]['image_generate:flux2']).toBe(2);
    expect(q.status().usage.byModelToday['image_generate:flux2']).toBe(1);
  });

  it('cancel aborts a running task and cancels it remotely; one-at-a-time lanes', async () => {
    const { sim, q } = await setup({ taskClock: { pendingMs: 50, startedMs: 3000 } });
    const voice = (await new ServiceClient({ baseUrl: sim.url, credentials: creds }).voices())[0].api_name;
    const a = q.enqueue({ kind: 'task', payload: { endpoint: 'tts', params: { voice, text: 'one' } } });
    const b = q.enqueue({ kind: 'task', payload: { endpoint: 'tts', params: { voice, text: 'two' } } });
    await until(() => q.getJob(a.id)!.taskId);
    expect(q.getJob(b.id)!.state).toBe('queued'); // TTS runs one at a time
    q.cancelJob(a.id);
    await until(() => q.getJob(a.id)!.state === 'cancelled');
    expect(sim.tasks().find((t) => t.task_id === q.getJob(a.id)!.taskId)!.status).toBe('REVOKED');
    await until(() => q.getJob(b.id)!.taskId);
    q.cancelJob(b.id);
    await q.waitForIdle();
    expect(sim.log.some((e) => e.method === 'DELETE')).toBe(true);
  });

  it('pause and resume a batch and a lane', async () => {
    const { q } = await setup();
    const { batch } = q.enqueueBatch('held', Array.from({ length: 20 }, (_, i) => analyze(i)));
    q.pauseBatch(batch.id);
    await q.waitForIdle();
    expect(q.getBatch(batch.id)!.counts.queued).toBeGreaterThanOrEqual(14);
    q.resumeBatch(batch.id);
    await q.waitForIdle();
    expect(q.getBatch(batch.id)!.counts.done).toBe(20);
    q.pauseLane('faces');
    const f = q.enqueue(analyze(0, 'faces'));
    await q.waitForIdle();
    expect(q.getJob(f.id)!.state).toBe('queued');
    expect(q.lanes().find((l) => l.name === 'faces')!.state).toBe('paused');
    q.resumeLane('faces');
    await q.waitForIdle();
    expect(q.getJob(f.id)!.state).toBe('done');
  });
});

describe('kill -9 mid-batch', () => {
  const worker = (env: Record<string, string>) => spawn(process.execPath, ['--import', 'tsx', 'tests/integration/fixtures/jobs-queue-worker.ts'], {
    env: { ...process.env, ...env, TAGSMITH_QUIET: '1' }, stdio: ['ignore', 'pipe', 'inherit'],
  });

  it('loses no job, bills nothing twice, shows an interrupted async create as unknown', async () => {
    const sim = await startSimulator({ port: 0, accounts: [creds], taskClock: { pendingMs: 30, startedMs: 60 } });
    const dbFile = join(await mkdtemp(join(dir, 'kill-')), 'library.sqlite');
    const env = { SIM_URL: sim.url, DB_FILE: dbFile, CLIENT_ID: creds.clientId, CLIENT_SECRET: creds.clientSecret, PHOTOS: photos.join('\n') };
    try {
      // The async create is held on the wire until the process has died.
      sim.inject({ kind: 'hold', path: '/v1/image_generate', count: 1 });
      const child = worker({ ...env, ENQUEUE: '120' });
      let out = '';
      child.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
      await until(() => /done 30\b/.test(out) && /generate sent/.test(out));
      await sim.held.until(1, '/v1/image_generate');
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      sim.held.release('/v1/image_generate');
      // Restart in this process and finish.
      const db = openDb(dbFile);
      const client = new ServiceClient({ baseUrl: sim.url, credentials: creds });
      const q = new JobQueue({ db, client, handlers: builtinHandlers, tuning: TUNING });
      q.start();
      await until(() => sim.tasks().length === 1); // the held create was carried out
      await q.waitForIdle();
      const jobs = q.listJobs({ limit: 1000 });
      expect(jobs).toHaveLength(121);
      const gen = jobs.find((j) => j.kind === 'task')!;
      expect(gen.state).toBe('unknown');
      const kw = jobs.filter((j) => j.kind === 'analyze');
      const doneKw = kw.filter((j) => j.state === 'done').length;
      const unknownKw = kw.filter((j) => j.state === 'unknown').length;
      expect(doneKw + unknownKw).toBe(120);
      const billed = sim.billed()[creds.clientId];
      // Every keyword call the service billed belongs to a distinct job: never twice.
      expect(billed.keywords).toBeLessThanOrEqual(120);
      expect(billed.keywords).toBeGreaterThanOrEqual(doneKw);
      expect(sim.log.filter((e) => e.path === '/v1/keywords' && e.status === 200).length).toBe(billed.keywords);
      expect(billed['image_generate:zimage']).toBe(1);
      expect(sim.log.filter((e) => e.path === '/v1/image_generate').length).toBe(1);
      await q.stop();
      db.close();
      await client.close();
    } finally {
      await sim.close();
    }
  });
});

describe('a plain task past its budget, in an unknown state, or forgotten by the service (issue 15)', () => {
  it('a task that outlives its budget ends unknown with a clear message; retry polls the same task, never a new one; cancel reaches the service', async () => {
    const { sim, q } = await setup();
    sim.inject({ kind: 'slowTask', path: '/v1/image_generate', ms: 600_000, count: 1 });
    // A small budget instead of the interface's 10 minutes: the task is held far longer either way.
    const j = q.enqueue({ kind: 'task', payload: { endpoint: 'imageGenerate', params: { prompt: 'a slow fox', model: 'flux2' }, budgetMs: 50 } satisfies TaskPayload });
    await until(() => q.getJob(j.id)!.state === 'unknown');
    const late = q.getJob(j.id)!;
    expect(late.taskId).toBeTruthy();
    expect(late.error).toMatchObject({ kind: 'task_overdue', message: expect.stringMatching(/still (pending|started) at the service after 1 min.*stopped waiting.*may still finish and bill.*Retry.*same task \(no new charge\)/) });
    expect(sim.tasks().find((t) => t.task_id === late.taskId)!.status).toBe('STARTED');
    q.retryJob(j.id);
    await until(() => q.getJob(j.id)!.state === 'unknown' && q.getJob(j.id)!.error?.kind === 'task_overdue');
    expect(q.getJob(j.id)!.taskId).toBe(late.taskId);
    expect(sim.log.filter((e) => e.path === '/v1/image_generate').length).toBe(1);
    expect(sim.billed()[creds.clientId]['image_generate:flux2']).toBe(1);
    q.cancelJob(j.id);
    await until(() => sim.tasks().find((t) => t.task_id === late.taskId)!.status === 'REVOKED');
    await until(() => q.getJob(j.id)!.state === 'cancelled' && q.getJob(j.id)!.error === null);
  });

  it('a status outside the interface\'s five is named when it outlives the budget, and a task that moves on finishes', async () => {
    const { sim, q } = await setup();
    sim.inject({ kind: 'oddStatus', path: '/v1/status', message: 'PAUSED_BY_OPERATOR' });
    const odd = q.enqueue({ kind: 'task', payload: { endpoint: 'imageGenerate', params: { prompt: 'odd', model: 'flux2' }, budgetMs: 50 } satisfies TaskPayload });
    await until(() => q.getJob(odd.id)!.state === 'unknown');
    expect(q.getJob(odd.id)!.error!.message).toMatch(/state Tagsmith does not know \(“PAUSED_BY_OPERATOR”\).*Retry to keep waiting/);
    sim.clearFaults();
    q.retryJob(odd.id);
    await until(() => q.getJob(odd.id)!.state === 'done');
    expect(sim.log.filter((e) => e.path === '/v1/image_generate').length).toBe(1);
  });

  it('a task the service forgot (404 on its status) fails with that said, and is not created again', async () => {
    const { sim, q } = await setup({ taskClock: { pendingMs: 60_000, startedMs: 60_000 } });
    const j = q.enqueue({ kind: 'task', payload: { endpoint: 'imageGenerate', params: { prompt: 'forgotten', model: 'flux2' } } satisfies TaskPayload });
    await until(() => q.getJob(j.id)!.taskId);
    sim.inject({ kind: 'error', status: 404, path: '/v1/status', message: 'Task not found' });
    await until(() => q.getJob(j.id)!.state === 'failed');
    expect(q.getJob(j.id)!.error).toMatchObject({ kind: 'task_forgotten', message: expect.stringMatching(/no longer knows task .*does not create it again.*not paid twice/) });
    q.retryJob(j.id);
    await until(() => q.getJob(j.id)!.state === 'failed');
    expect(sim.log.filter((e) => e.path === '/v1/image_generate').length).toBe(1);
    expect(sim.billed()[creds.clientId]['image_generate:flux2']).toBe(1);
  });
});
