// Never pay for nothing (issue 32): every billed creative call against the simulator, with
// the billed calls counted in its log. A create that may have reached the service is never
// sent again without the user's say; what the service accepted is followed by its task id.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExifTool } from 'exiftool-vendored';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreativeTaskView } from '../../src-preload/contract';
import type { Tagsmith } from '../../src-main/api/tagsmith';
import type { CreativeService } from '../../src-main/creative';
import type { JobQueue } from '../../src-main/jobs';
import { openLibrary, type LibraryCtx } from '../../src-main/library/context';
import { closeMetadataReader } from '../../src-main/metadata/reader';
import { parseBody, parseDataUri } from '../simulator/body.js';
import { startSimulator, type Simulator } from '../simulator/index.js';
import { toolPath } from '../../src-main/core/tools';
import { checkGenerateParams } from '../../src-main/service/validate';
import { startTagsmith } from '../helpers/tagsmith';
import { until } from '../helpers/until';

const creds = { clientId: 'billing', clientSecret: 'billing-secret' };
const TUNING = { pollMs: 20, pollMaxMs: 60, retryBaseMs: 20, retryMaxMs: 60, maxAttempts: 3, offlineProbeMs: 20, offlineProbeMaxMs: 60 };
let sim: Simulator;
let dir: string;
let ctx: LibraryCtx;
let app: Tagsmith;
let queue: JobQueue;
let creative: CreativeService;
let photo: string;

const FINAL = ['done', 'failed', 'cancelled', 'unknown', 'download_failed'];
async function finished(id: number): Promise<CreativeTaskView> {
  await until(() => FINAL.includes(creative.view(id).status));
  await creative.settle();
  return creative.view(id);
}
/** billed calls whose billing key starts with `prefix` */
const billed = (prefix: string): number => Object.entries(sim.billed()[creds.clientId] ?? {}).filter(([k]) => k.startsWith(prefix)).reduce((n, [, c]) => n + c, 0);
const ffmpeg = (): string => toolPath('ffmpeg');
const sent = (path: string, method = 'POST'): number => sim.log.filter((e) => e.path === path && e.method === method).length;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, accounts: [creds], taskClock: { pendingMs: 40, startedMs: 80 } });
  dir = await mkdtemp(join(tmpdir(), 'tagsmith-billing-'));
  ctx = openLibrary(join(dir, 'lib'));
  // The app as it starts (createTagsmith: the queue with every job kind, the creative service attached).
  app = startTagsmith(ctx, { url: sim.url, creds }, { tuning: TUNING });
  queue = app.queue;
  creative = app.creative;
  photo = join(dir, 'photo.jpg');
  await sharp({ create: { width: 400, height: 300, channels: 3, background: '#3080c0' } }).jpeg().toFile(photo);
});

afterAll(async () => {
  await app.dispose();
  ctx.db.close();
  await closeMetadataReader();
  await sim.close();
  await rm(dir, { recursive: true, force: true });
});

describe('a success answer Tagsmith cannot read', () => {
  it('is never sent again: answered, unreadable, the raw answer kept, and Fetch again by task id lands the result unbilled', async () => {
    sim.inject({ kind: 'garbled', path: '/v1/image_generate', count: 1 });
    const before = { sent: sent('/v1/image_generate'), billed: billed('image_generate') };
    const t = await creative.startGenerate({ prompt: 'a lighthouse at dusk' });
    const v = await finished(t.id);
    await queue.waitForIdle();
    expect(v.status).toBe('unknown');
    expect(v.attention?.kind).toBe('unreadable');
    expect(v.error).toMatch(/^Answered, unreadable/);
    expect(v.canRefetch).toBe(true);
    expect(sent('/v1/image_generate')).toBe(before.sent + 1);
    expect(billed('image_generate')).toBe(before.billed + 1);
    // The answer as it came is kept with the job.
    expect(queue.getJob(v.parts[0].jobId!)!.result).toEqual({ unreadable: '{"task_id": ' });
    // It showed no task id: the user gives it (here, the one the simulator made).
    const remote = sim.tasks().at(-1)!.task_id;
    await until(() => sim.tasks().at(-1)!.status === 'SUCCESS');
    const done = await creative.refetch(t.id, remote);
    expect(done.status, done.error ?? '').toBe('done');
    expect(done.resultPath).toBeTruthy();
    expect(sent('/v1/image_generate')).toBe(before.sent + 1);
    expect(billed('image_generate')).toBe(before.billed + 1);
  });

  it('an answer of its own shape that shows the task id: kept, followed by Fetch again while it still runs, one create', async () => {
    sim.inject({ kind: 'garbled', path: '/v1/image_generate', count: 1, message: '{"data":{"id":"{task_id}"},"ok":true}' });
    sim.inject({ kind: 'slowTask', path: '/v1/image_generate', count: 1, ms: 400 });
    const before = { sent: sent('/v1/image_generate'), billed: billed('image_generate') };
    const t = await creative.startGenerate({ prompt: 'a harbour in fog' });
    const v = await finished(t.id);
    expect(v.status).toBe('unknown');
    expect(v.parts[0].remoteTaskId).toBe(sim.tasks().at(-1)!.task_id);
    const again = await creative.refetch(t.id);
    expect(['pending', 'started', 'downloading', 'done']).toContain(again.status);
    const done = await finished(t.id);
    expect(done.status, done.error ?? '').toBe('done');
    expect(sent('/v1/image_generate')).toBe(before.sent + 1);
    expect(billed('image_generate')).toBe(before.billed + 1);
  });

  it('a 5xx answer to a create is not repeated by itself (the task may have been accepted)', async () => {
    sim.inject({ kind: '5xx', status: 504, path: '/v1/image_generate', count: 1 });
    const before = sent('/v1/image_generate');
    const t = await creative.startGenerate({ prompt: 'a gateway timeout' });
    const v = await finished(t.id);
    await queue.waitForIdle();
    expect(v.status).toBe('unknown');
    expect(v.error).toMatch(/HTTP 504.*will not send it again without you/);
    expect(sent('/v1/image_generate')).toBe(before + 1);
  });

  it('a billed analysis answered unreadably ends unknown after one call, counted as billed, never retried', async () => {
    sim.inject({ kind: 'garbled', path: '/v1/keywords', count: 1, message: '<html>OK</html>' });
    const before = { sent: sent('/v1/keywords'), billed: billed('keywords') };
    const job = queue.enqueue({ kind: 'analyze', payload: { file: photo, endpoint: 'keywords' } });
    await until(() => ['done', 'failed', 'unknown'].includes(queue.getJob(job.id)!.state));
    await queue.waitForIdle();
    const j = queue.getJob(job.id)!;
    expect(j.state).toBe('unknown');
    expect(j.error?.kind).toBe('unreadable');
    expect(j.result).toEqual({ unreadable: '<html>OK</html>' });
    expect(sent('/v1/keywords')).toBe(before.sent + 1);
    expect(billed('keywords')).toBe(before.billed + 1);
  });
});

describe('cancel reaches the service', () => {
  const deletes = (taskId: string): number => sim.log.filter((e) => e.method === 'DELETE' && e.path === `/v1/tasks/${taskId}`).length;
  const remoteOf = (id: number): string => creative.view(id).parts[0].remoteTaskId!;
  const simTask = (taskId: string) => sim.tasks().find((t) => t.task_id === taskId)!;

  it('for a task waiting on our side during a hold: DELETE sent, the service revokes it, nothing more billed', async () => {
    sim.inject({ kind: 'slowTask', path: '/v1/image_generate', ms: 600_000, count: 1 });
    const t = await creative.startGenerate({ prompt: 'held while it runs' });
    await until(() => creative.view(t.id).parts[0].remoteTaskId);
    queue.pauseAll();
    try {
      await until(() => queue.getJob(creative.view(t.id).parts[0].jobId!)!.state === 'queued');
      const remote = remoteOf(t.id);
      creative.cancel(t.id);
      const done = await finished(t.id);
      expect(done.status).toBe('cancelled');
      expect(done.attention).toBeNull();
      expect(deletes(remote)).toBe(1);
      expect(simTask(remote).status).toBe('REVOKED');
    } finally {
      queue.resume();
    }
  });

  it('for a task the user paused: DELETE sent, revoked', async () => {
    sim.inject({ kind: 'slowTask', path: '/v1/image_generate', ms: 600_000, count: 1 });
    const t = await creative.startGenerate({ prompt: 'paused by the user' });
    await until(() => creative.view(t.id).parts[0].remoteTaskId);
    const jobId = creative.view(t.id).parts[0].jobId!;
    queue.pauseJob(jobId);
    await until(() => queue.getJob(jobId)!.state === 'paused');
    const remote = remoteOf(t.id);
    creative.cancel(t.id);
    expect((await finished(t.id)).status).toBe('cancelled');
    expect(deletes(remote)).toBe(1);
    expect(simTask(remote).status).toBe('REVOKED');
  });

  it('a 409 means it will finish: followed on, the result lands, the task says it could not be cancelled and is paid', async () => {
    sim.inject({ kind: 'slowTask', path: '/v1/image_generate', ms: 300, count: 1 });
    sim.inject({ kind: 'cancelConflict', path: /^\/v1\/tasks\//, count: 1 });
    const before = billed('image_generate');
    const t = await creative.startGenerate({ prompt: 'too late to stop' });
    await until(() => creative.view(t.id).parts[0].remoteTaskId);
    const remote = remoteOf(t.id);
    creative.cancel(t.id);
    const done = await finished(t.id);
    expect(done.status, done.error ?? '').toBe('done');
    expect(done.resultPath).toBeTruthy();
    expect(done.attention?.kind).toBe('not_cancellable');
    expect(done.attention?.message).toMatch(/Could not be cancelled.*paid/);
    expect(done.canRetry).toBe(false);
    expect(deletes(remote)).toBe(1);
    expect(billed('image_generate')).toBe(before + 1);
  });

  it('a task whose answer was unreadable (lost track of) can still be cancelled at the service', async () => {
    sim.inject({ kind: 'garbled', path: '/v1/image_generate', count: 1, message: '{"data":{"id":"{task_id}"}}' });
    sim.inject({ kind: 'slowTask', path: '/v1/image_generate', ms: 600_000, count: 1 });
    const t = await creative.startGenerate({ prompt: 'lost track' });
    const v = await finished(t.id);
    expect(v.status).toBe('unknown');
    expect(v.canCancel).toBe(true);
    const remote = remoteOf(t.id);
    creative.cancel(t.id);
    expect((await finished(t.id)).status).toBe('cancelled');
    expect(deletes(remote)).toBe(1);
    expect(simTask(remote).status).toBe('REVOKED');
  });

  it('a task with no task id yet is cancelled here alone: nothing sent, nothing billed', async () => {
    queue.pauseAll();
    try {
      const before = { sent: sent('/v1/image_generate'), billed: billed('image_generate'), deletes: sim.log.filter((e) => e.method === 'DELETE').length };
      const t = await creative.startGenerate({ prompt: 'never sent' });
      creative.cancel(t.id);
      const done = await finished(t.id);
      expect(done.status).toBe('cancelled');
      expect(sent('/v1/image_generate')).toBe(before.sent);
      expect(billed('image_generate')).toBe(before.billed);
      expect(sim.log.filter((e) => e.method === 'DELETE').length).toBe(before.deletes);
    } finally {
      queue.resume();
    }
  });
});

describe('quota, recognised precisely', () => {
  it('a status:error that mentions a limit but is not about quota is a final error of that task with its message: no hold, no repeat', async () => {
    sim.inject({ kind: 'error', status: 200, path: '/v1/tts', count: 1, message: 'Text exceeds the length limit' });
    const before = sent('/v1/tts');
    const t = creative.startSpeech({ voice: 'Serena', text: 'A text the service finds too long.' });
    // Taken for quota, the task would wait under a hold instead of ending.
    await until(() => FINAL.includes(creative.view(t.id).status) || queue.status().hold);
    expect(queue.status().hold).toBeNull();
    const v = await finished(t.id);
    expect(v.status).toBe('failed');
    expect(v.error).toContain('Text exceeds the length limit');
    expect(queue.status().hold).toBeNull();
    await queue.waitForIdle();
    expect(sent('/v1/tts')).toBe(before + 1);
    // The next task runs as usual: nothing was paused.
    expect((await finished(creative.startSpeech({ voice: 'Serena', text: 'Short.' }).id)).status).toBe('done');
  });

  it("the free tier's 200 {status:error} quota answer holds billed work like a 429; resume sends it once", async () => {
    sim.inject({ kind: 'quota200', path: '/v1/tts', count: 1 });
    const before = sent('/v1/tts');
    const t = creative.startSpeech({ voice: 'Ryan', text: 'Quota, then more.' });
    await until(() => queue.status().hold?.reason === 'quota');
    expect(creative.view(t.id).status).toBe('waiting');
    queue.resume();
    expect((await finished(t.id)).status).toBe('done');
    expect(sent('/v1/tts')).toBe(before + 2);
  });
});

describe('results of any shape land', () => {
  it.each(['object', 'data'])('a result given as %s lands in the library, billed once', async (shape) => {
    sim.inject({ kind: 'resultShape', path: '/v1/status', message: shape });
    try {
      const before = billed('image_generate');
      const t = await creative.startGenerate({ prompt: `a result as ${shape}` });
      const done = await finished(t.id);
      expect(done.status, done.error ?? '').toBe('done');
      expect(done.resultPath).toMatch(/\.png$/);
      expect(done.resultAssetId).not.toBeNull();
      expect(billed('image_generate')).toBe(before + 1);
    } finally {
      sim.clearFaults();
    }
  });
});

describe('status falls back to /v1/status', () => {
  it('a face swap whose /v1/imageswap/status answers 404 is followed at /v1/status (remembered) and lands, billed once', async () => {
    const donor = join(dir, 'donor.png');
    await sharp({ create: { width: 320, height: 400, channels: 3, background: '#c08060' } }).png().toFile(donor);
    sim.disablePath('/v1/imageswap/status');
    try {
      const before = { billed: billed('imageswap'), specific: sim.log.filter((e) => e.path === '/v1/imageswap/status').length };
      const first = await finished((await creative.startFaceSwap({ source: { path: donor }, target: { path: photo } })).id);
      expect(first.status, first.error ?? '').toBe('done');
      const second = await finished((await creative.startFaceSwap({ source: { path: donor }, target: { path: photo } })).id);
      expect(second.status, second.error ?? '').toBe('done');
      expect(billed('imageswap')).toBe(before.billed + 2);
      // Asked once at the swap's own path, then at /v1/status only.
      expect(sim.log.filter((e) => e.path === '/v1/imageswap/status').length).toBe(before.specific + 1);
    } finally {
      sim.disablePath('/v1/imageswap/status', false);
    }
  });
});

describe('online checks use the interface', () => {
  it('a service without /v1/auth/check: the connection check works, and an offline hold lifts by the voices list', async () => {
    sim.disablePath('/v1/auth/check');
    try {
      await expect(app.client().checkConnection({ authCheckToo: true })).resolves.toBe(true);
      // One lost status answer puts the queue offline; the probe must find the service again.
      sim.inject({ kind: 'drop', path: '/v1/status', count: 1 });
      const t = await creative.startGenerate({ prompt: 'through an outage' });
      await until(() => queue.status().hold?.reason === 'offline' || FINAL.includes(creative.view(t.id).status));
      await until(() => !queue.status().hold || sim.log.filter((e) => e.path === '/v1/auth/check').length > 3);
      expect(queue.status().hold).toBeNull();
      expect((await finished(t.id)).status).toBe('done');
    } finally {
      sim.disablePath('/v1/auth/check', false);
    }
  });
});

describe('nothing identifying leaves the machine', () => {
  const SECRET = 'Jane Secretperson';
  /** Every file in every body the simulator received: multipart files and Data URIs in JSON. */
  function receivedFiles(): Buffer[] {
    const out: Buffer[] = [];
    for (const b of sim.bodies) {
      const parsed = parseBody(b.body, b.contentType ?? undefined);
      for (const f of Object.values(parsed.files)) out.push(f.data);
      const visit = (v: unknown): void => {
        if (typeof v === 'string' && v.startsWith('data:')) {
          const d = parseDataUri(v);
          if (d) out.push(d.data);
        } else if (Array.isArray(v)) v.forEach(visit);
        else if (v && typeof v === 'object') Object.values(v).forEach(visit);
      };
      visit(parsed.json);
    }
    return out;
  }

  it('lipsync (audio, video, portrait), face swap (image and video), vectorize, style image and edit sources go as copies without EXIF, XMP, IPTC, GPS, QuickTime location or ID3', async () => {
    const et = new ExifTool({ taskTimeoutMillis: 60_000 });
    try {
      const tagged = async (file: string): Promise<string> => {
        await et.write(file, {
          GPSLatitude: 48.8566, GPSLatitudeRef: 'N', GPSLongitude: 2.3522, GPSLongitudeRef: 'E', Artist: SECRET, Make: 'SecretCam', Model: 'SecretCam X1',
          'XMP-dc:Creator': [SECRET], 'IPTC:By-line': [SECRET], 'IPTC:City': 'Secretville',
        } as never, { writeArgs: ['-overwrite_original'] });
        return file;
      };
      const jpg = join(dir, 'tagged.jpg');
      await sharp({ create: { width: 320, height: 400, channels: 3, background: '#a07050' } }).jpeg().toFile(jpg);
      await tagged(jpg);
      const png = join(dir, 'tagged.png');
      await sharp({ create: { width: 300, height: 300, channels: 3, background: '#208040' } }).png().toFile(png);
      await tagged(png);
      const meta = ['-metadata', `artist=${SECRET}`, '-metadata', `title=${SECRET}`, '-metadata', 'location=+48.8566+002.3522/', '-metadata', 'location-eng=+48.8566+002.3522/'];
      const mp3 = join(dir, 'tagged.mp3');
      execFileSync(ffmpeg(), ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=1', ...meta, '-id3v2_version', '3', mp3]);
      const mp4 = join(dir, 'tagged.mp4');
      execFileSync(ffmpeg(), ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=10:duration=1', '-f', 'lavfi', '-i', 'sine=duration=1',
        '-shortest', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', 'aac', ...meta, '-movflags', 'use_metadata_tags', mp4]);
      // The inputs really carry what must not leave.
      expect((await et.read(jpg)).GPSLatitude).toBeTruthy();
      expect(JSON.stringify(await et.read(mp4))).toContain(SECRET);
      expect(readFileSync(mp3).includes(SECRET)).toBe(true);

      sim.bodies.length = 0;
      sim.recordBodies(true);
      const started = [
        await creative.startLipsync({ mode: 'video', audio: { path: mp3 }, video: { path: mp4 } }),
        await creative.startLipsync({ mode: 'image', audio: { path: mp3 }, image: { path: jpg } }),
        await creative.startFaceSwap({ source: { path: jpg }, target: { path: png } }),
        await creative.startFaceSwap({ source: { path: jpg }, target: { path: mp4 } }),
        await creative.startVectorize({ source: { path: png } }),
        await creative.startGenerate({ prompt: 'in this style', model: 'flux', style: 'transfer', styleImage: { path: jpg } } as never),
        await creative.startEdit({ prompt: 'make it blue', sources: [{ path: jpg }] }),
      ];
      for (const t of started) await finished(t.id);
      sim.recordBodies(false);
      const files = receivedFiles();
      expect(files.length).toBeGreaterThanOrEqual(10);
      for (const [i, data] of files.entries()) {
        // Every byte: no name, camera or place, also inside the media (ID3, atoms, XMP packets).
        expect(data.includes(SECRET), `file ${i}`).toBe(false);
        expect(data.includes('SecretCam'), `file ${i}`).toBe(false);
        expect(data.includes('Secretville'), `file ${i}`).toBe(false);
        expect(data.includes('+48.8566'), `file ${i}`).toBe(false);
        const f = join(dir, `received-${i}.bin`);
        writeFileSync(f, data);
        const tags = (await et.read(f, ['-G1', '-a'])) as Record<string, unknown>;
        const names = Object.keys(tags).join(' ');
        expect(names, `file ${i}`).not.toMatch(/GPS|Artist|Creator|By-line|City|Make|Model|Location|XMP|IPTC|ID3/i);
      }
    } finally {
      sim.recordBodies(false);
      await et.end();
    }
  });
});

describe('no invented rules', () => {
  it('a resolution for a model with none documented goes to the service; colour weights must be numbers 0..1 before the request counts as valid', async () => {
    expect(() => checkGenerateParams({ prompt: 'x', model: 'zimage', resolution: '2k' })).not.toThrow();
    expect(() => checkGenerateParams({ prompt: 'x', model: 'flux2', resolution: '1k' })).not.toThrow();
    const vector = (weight: unknown) => ({ prompt: 'x', model: 'recraftv4_1_vector', controls: { colors: [{ rgb: [200, 30, 30], weight: weight as number }] } });
    expect(() => checkGenerateParams(vector(0.5))).not.toThrow();
    for (const bad of [Number.NaN, 1.5, -0.1, '0.5', null]) expect(() => checkGenerateParams(vector(bad)), String(bad)).toThrow(/weight: must be a number from 0 to 1/);
  });
});
