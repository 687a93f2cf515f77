// The service simulator against real HTTP: every endpoint, its input rules, limits, tasks and faults.
import { execFile, spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../simulator/index.js';
import { until } from '../helpers/until';

const run = promisify(execFile);
const ACCOUNTS = ['acct', 'rate-a', 'rate-b', 'rate-c', 'rate-d', 'queue', 'other'].map((id) => ({ clientId: id, clientSecret: `secret-${id}` }));
const auth = (id = 'acct') => ({ authorization: 'Basic ' + Buffer.from(`${id}:secret-${id}`).toString('base64') });

let sim: Simulator;
let dir: string;
let blueJpeg: Buffer;
let greenPng: Buffer;
let darkPortrait: Buffer;
let sharpPng: Buffer;
let blurredPng: Buffer;
let facesPng: Buffer;
let exifJpeg: Buffer;
let mp4: Buffer;
let files: Server;
let filesUrl: string;

function upload(path: string, data: Buffer, query = '', account = 'acct', field = 'data'): Promise<Response> {
  const fd = new FormData();
  fd.append(field, new Blob([new Uint8Array(data)]), 'upload.bin');
  return fetch(`${sim.url}${path}${query}`, { method: 'POST', headers: auth(account), body: fd });
}

function postJson(path: string, body: unknown, account = 'acct'): Promise<Response> {
  return fetch(`${sim.url}${path}`, { method: 'POST', headers: { ...auth(account), 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

const dataUri = (mime: string, b: Buffer) => `data:${mime};base64,${b.toString('base64')}`;

/** Polls at `everyMs` until the probe answers (the test's timeout is the only bound); status polling shares the service's 30 requests/s limit, so keep it slow. */
async function waitFor<T>(probe: () => Promise<T | undefined> | T | undefined, everyMs = 15): Promise<T> {
  return until(probe, 'the simulator', everyMs);
}

async function statusOf(id: string, account = 'acct') {
  const r = await fetch(`${sim.url}/v1/status?task_id=${id}`, { headers: auth(account) });
  return (await r.json()) as { task_id: string; status: string; queue: number; result: string };
}

const finished = (id: string, account = 'acct') => waitFor(async () => {
  const s = await statusOf(id, account);
  return ['SUCCESS', 'FAILURE', 'REVOKED'].includes(s.status) ? s : undefined;
}, 80);

async function probe(buf: Buffer, ext: string) {
  const f = join(dir, `probe-${Math.random().toString(36).slice(2)}.${ext}`);
  await writeFile(f, buf);
  const { stdout } = await run('ffprobe', ['-v', 'error', '-show_entries', 'format=duration,format_name:stream=codec_type', '-of', 'json', f]);
  return JSON.parse(stdout) as { format: { duration: string; format_name: string }; streams: { codec_type: string }[] };
}

beforeAll(async () => {
  sim = await startSimulator({ port: 0, accounts: ACCOUNTS, taskClock: { pendingMs: 40, startedMs: 80 }, videoMaxBytes: 200_000 });
  dir = await mkdtemp(join(tmpdir(), 'sim-test-'));
  blueJpeg = await sharp({ create: { width: 400, height: 300, channels: 3, background: '#2f6fe0' } }).jpeg().toBuffer();
  greenPng = await sharp({ create: { width: 400, height: 300, channels: 3, background: '#2ea83a' } }).png().toBuffer();
  darkPortrait = await sharp({ create: { width: 200, height: 320, channels: 3, background: '#0b0b0d' } }).png().toBuffer();
  // A checkerboard with mid-grey exposure: sharp edges; its blurred copy is softer.
  const size = 256;
  const px = Buffer.alloc(size * size * 3);
  for (let y = 0; y < size; y++) for (let x = 0; x < size; x++) px.fill(((x >> 3) + (y >> 3)) % 2 ? 200 : 60, (y * size + x) * 3, (y * size + x) * 3 + 3);
  sharpPng = await sharp(px, { raw: { width: size, height: size, channels: 3 } }).png().toBuffer();
  blurredPng = await sharp(sharpPng).blur(4).png().toBuffer();
  // Two faces: a plain magenta block (adult) and one holding a yellow marker (child).
  facesPng = await sharp({ create: { width: 320, height: 240, channels: 3, background: '#808080' } })
    .composite([
      { input: { create: { width: 60, height: 80, channels: 3, background: '#ff00ff' } }, left: 20, top: 30 },
      { input: { create: { width: 40, height: 50, channels: 3, background: '#ff00ff' } }, left: 200, top: 100 },
      { input: { create: { width: 10, height: 10, channels: 3, background: '#ffff00' } }, left: 215, top: 120 },
    ])
    .png()
    .toBuffer();
  exifJpeg = await sharp(blueJpeg).withExif({ IFD0: { ImageDescription: 'has exif', Copyright: 'me' } }).jpeg().toBuffer();
  const mp4File = join(dir, 'clip.mp4');
  await run('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'color=c=0x2f6fe0:size=160x120:rate=5:duration=1', '-pix_fmt', 'yuv420p', '-y', mp4File]);
  mp4 = await readFile(mp4File);
  // A loopback file server standing in for media URLs and callback receivers.
  files = createServer((req, res) => {
    if (req.url === '/blue.jpg') { res.writeHead(200, { 'content-type': 'image/jpeg' }); res.end(blueJpeg); return; }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => files.listen(0, '127.0.0.1', () => r()));
  filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await sim?.close();
  await new Promise((r) => files?.close(r));
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('authentication', () => {
  it('answers 401 without or with wrong credentials and ok on /v1/auth/check', async () => {
    expect((await fetch(`${sim.url}/v1/auth/check`)).status).toBe(401);
    const wrong = { authorization: 'Basic ' + Buffer.from('acct:nope').toString('base64') };
    expect((await fetch(`${sim.url}/v1/keywords?url=${filesUrl}/blue.jpg`, { headers: wrong })).status).toBe(401);
    const ok = await fetch(`${sim.url}/v1/auth/check`, { headers: auth() });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ status: 'ok' });
  });
});

describe('image keywording', () => {
  it('returns keywords ordered by score, derived from the colours, with colours on request', async () => {
    const r = await upload('/v1/keywords', blueJpeg, '?colors=true&num_colors=3');
    expect(r.status).toBe(200);
    const body = await r.json();
    expect(body.status).toBe('ok');
    const words = body.keywords.map((k: { keyword: string }) => k.keyword.toLowerCase());
    expect(words).toEqual(expect.arrayContaining(['sky', 'blue', 'water']));
    const scores = body.keywords.map((k: { score: number }) => k.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    expect(scores.every((s: number) => s > 0 && s <= 1)).toBe(true);
    expect(body.colors.length).toBeLessThanOrEqual(3);
    expect(body.colors[0]).toMatchObject({ name: 'blue', hex: expect.stringMatching(/^#[0-9a-f]{6}$/) });
    expect(body.colors[0].rgb).toHaveLength(3);
    expect(body.colors.reduce((s: number, c: { percentage: number }) => s + c.percentage, 0)).toBeGreaterThan(95);

    const green = await (await upload('/v1/keywords', greenPng)).json();
    expect(green.keywords.map((k: { keyword: string }) => k.keyword.toLowerCase())).toEqual(expect.arrayContaining(['nature', 'green', 'grass']));
    expect(green.colors).toBeUndefined();
    const dark = await (await upload('/v1/keywords', darkPortrait)).json();
    expect(dark.keywords.map((k: { keyword: string }) => k.keyword.toLowerCase())).toEqual(expect.arrayContaining(['night', 'portrait']));
  });

  it('answers in the requested language', async () => {
    const en = await (await upload('/v1/keywords', blueJpeg, '?lang=en')).json();
    const de = await (await upload('/v1/keywords', blueJpeg, '?lang=de')).json();
    const ru = await (await upload('/v1/keywords', blueJpeg, '?lang=ru')).json();
    const low = (b: { keywords: { keyword: string }[] }) => b.keywords.map((k) => k.keyword.toLowerCase());
    expect(low(de)).not.toEqual(low(en));
    expect(low(de)).toContain('himmel');
    expect(low(ru)).toContain('небо');
  });

  it('caps num_keywords at 50, applies threshold, and fetches GET urls from loopback only', async () => {
    const many = await (await upload('/v1/keywords', blueJpeg, '?num_keywords=80')).json();
    expect(many.status).toBe('ok');
    expect(many.keywords.length).toBeLessThanOrEqual(50);
    const few = await (await upload('/v1/keywords', blueJpeg, '?num_keywords=3&threshold=0.5')).json();
    expect(few.keywords.length).toBeLessThanOrEqual(3);
    expect(few.keywords.every((k: { score: number }) => k.score >= 0.5)).toBe(true);

    const viaUrl = await fetch(`${sim.url}/v1/keywords?url=${encodeURIComponent(`${filesUrl}/blue.jpg`)}`, { headers: auth() });
    expect((await viaUrl.json()).keywords.length).toBeGreaterThan(0);
    const remote = await (await fetch(`${sim.url}/v1/keywords?url=${encodeURIComponent('https://example.com/a.jpg')}`, { headers: auth() })).json();
    expect(remote).toMatchObject({ status: 'error', message: expect.any(String) });
  });

  it('rejects each documented input rule', async () => {
    for (const [query, loc] of [['?num_keywords=abc', 'num_keywords'], ['?num_keywords=2.5', 'num_keywords'], ['?threshold=1.5', 'threshold'],
      ['?threshold=-0.1', 'threshold'], ['?lang=xx', 'lang'], ['?colors=maybe', 'colors'], ['?colors=true&num_colors=0', 'num_colors']] as const) {
      const r = await upload('/v1/keywords', blueJpeg, query);
      expect(r.status, query).toBe(422);
      const body = await r.json();
      expect(body.detail[0]).toMatchObject({ loc: ['query', loc], msg: expect.any(String), type: expect.any(String) });
    }
    const missing = await fetch(`${sim.url}/v1/keywords`, { method: 'POST', headers: auth(), body: new FormData() });
    expect(missing.status).toBe(422);
    expect((await missing.json()).detail[0].loc).toEqual(['body', 'data']);
    const gif = Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1');
    const webp = await sharp(blueJpeg).webp().toBuffer();
    // An input the service cannot use: 400 {status: "error", message} (the interface's "other failures").
    for (const bad of [gif, webp, Buffer.from('not an image')]) {
      const r = await upload('/v1/keywords', bad);
      expect(r.status).toBe(400);
      expect(await r.json()).toMatchObject({ status: 'error', message: expect.stringMatching(/JPEG or PNG/) });
    }
  });
});

describe('other analysis endpoints', () => {
  it('captions with status true and lengths per caption_len', async () => {
    const short = await upload('/v1/image_captioning', blueJpeg, '?caption_len=short', 'rate-b');
    const body = await short.json();
    expect(body.status).toBe(true);
    const shortWords = body.result.caption.split(/\s+/).length;
    expect(shortWords).toBeGreaterThanOrEqual(3);
    expect(shortWords).toBeLessThanOrEqual(6);
    sim.clock.advance(1000); // captioning allows one request per second
    const long = await (await upload('/v1/image_captioning', blueJpeg, '?caption_len=long', 'rate-b')).json();
    expect(long.result.caption.split(/\s+/).length).toBeGreaterThanOrEqual(13);
    sim.clock.advance(1000);
    expect((await upload('/v1/image_captioning', blueJpeg, '?caption_len=huge', 'rate-b')).status).toBe(422);
  });

  it('finds faces only at magenta markers, with bbox, age and class', async () => {
    const body = await (await upload('/v1/faces', facesPng)).json();
    expect(body.status).toBe('ok');
    expect(body.faces).toHaveLength(2);
    const [adult, child] = [...body.faces].sort((a, b) => a.bbox[0] - b.bbox[0]);
    expect(adult.bbox).toEqual([20, 30, 80, 110]);
    expect(child.bbox).toEqual([200, 100, 240, 150]);
    expect(adult.age).toBeGreaterThanOrEqual(18);
    expect(adult.class).toBe('Age - Young Adult');
    expect(child.age).toBeLessThan(13);
    expect(child.class).toBe('Age - Child');
    expect(adult.score).toBeGreaterThan(0);
    expect((await (await upload('/v1/faces', blueJpeg)).json()).faces).toEqual([]);
  });

  it('scores a blurred copy lower and derives the UGC class from the score', async () => {
    const q = async (b: Buffer) => (await (await upload('/v1/quality', b)).json()).quality.score as number;
    const sharpScore = await q(sharpPng);
    const blurScore = await q(blurredPng);
    expect(sharpScore).toBeGreaterThan(blurScore);
    const ugc = await (await upload('/v1/quality_ugc', blurredPng)).json();
    expect(ugc.status).toBe('ok');
    expect(ugc.quality.class).toBe(Math.min(5, Math.floor(ugc.quality.score * 5) + 1));
    const ugcSharp = await (await upload('/v1/quality_ugc', sharpPng)).json();
    expect(ugcSharp.quality.score).toBeGreaterThan(ugc.quality.score);
  });

  it('keywords a video and enforces its rules', async () => {
    const ok = await upload('/v1/video_keywords', mp4, '?num_keywords=5', 'rate-c');
    const body = await ok.json();
    expect(body.status).toBe('ok');
    expect(body.keywords.map((k: { keyword: string }) => k.keyword.toLowerCase())).toEqual(expect.arrayContaining(['video', 'blue']));
    sim.clock.advance(1000); // video keywording allows one request per second
    const lang = await upload('/v1/video_keywords', mp4, '?lang=de', 'rate-c');
    expect(lang.status).toBe(400);
    expect(await lang.json()).toMatchObject({ status: 'error' });
    sim.clock.advance(1000);
    const notVideo = await upload('/v1/video_keywords', blueJpeg, '', 'rate-c');
    expect(notVideo.status).toBe(400);
    expect(await notVideo.json()).toMatchObject({ status: 'error' });
    sim.clock.advance(1000);
    const big = Buffer.concat([mp4, Buffer.alloc(300_000)]); // above the lowered 100 MB limit of this simulator
    expect((await upload('/v1/video_keywords', big, '', 'rate-c')).status).toBe(413);
  });
});

describe('rate limits', () => {
  // The limits count by the simulator's clock, frozen here: the requests of "one second" arrive
  // in the same second however long a busy machine takes to carry them.
  it('answers 502 above 30 requests in a second, unbilled; 30 spread over a second pass', async () => {
    sim.clock.freeze();
    try {
      const before = sim.billed()['rate-a']?.keywords ?? 0;
      const answers = await Promise.all(Array.from({ length: 31 }, () => upload('/v1/keywords', blueJpeg, '', 'rate-a')));
      const codes = answers.map((r) => r.status);
      expect(codes.filter((c) => c === 502)).toHaveLength(1);
      expect(sim.billed()['rate-a'].keywords - before).toBe(30);

      const spaced: number[] = [];
      for (let i = 0; i < 30; i++) {
        spaced.push((await upload('/v1/keywords', blueJpeg, '', 'rate-d')).status);
        sim.clock.advance(37);
      }
      expect(spaced.every((c) => c === 200)).toBe(true);
      // The window is one second: 30 at one instant pass, the 31st waits until that second is over.
      sim.clock.advance(2000);
      const burst = await Promise.all(Array.from({ length: 30 }, () => upload('/v1/keywords', blueJpeg, '', 'rate-d')));
      expect(burst.every((r) => r.status === 200)).toBe(true);
      sim.clock.advance(999);
      expect((await upload('/v1/keywords', blueJpeg, '', 'rate-d')).status).toBe(502);
      sim.clock.advance(1);
      expect((await upload('/v1/keywords', blueJpeg, '', 'rate-d')).status).toBe(200);
    } finally {
      sim.clock.thaw();
    }
  });

  it('allows one captioning request per second', async () => {
    sim.clock.freeze();
    try {
      const [a, b] = await Promise.all([upload('/v1/image_captioning', blueJpeg, '', 'rate-a'), upload('/v1/image_captioning', blueJpeg, '', 'rate-a')]);
      expect([a.status, b.status].sort()).toEqual([200, 502]);
      sim.clock.advance(1000);
      expect((await upload('/v1/image_captioning', blueJpeg, '', 'rate-a')).status).toBe(200);
    } finally {
      sim.clock.thaw();
    }
  });
});

describe('quota', () => {
  it('answers 429 once the free quota and balance are used; errors are not billed', async () => {
    const q = await startSimulator({ accounts: [{ clientId: 'q', clientSecret: 's' }], freeQuota: { keywords: 2 } });
    try {
      const h = { authorization: 'Basic ' + Buffer.from('q:s').toString('base64') };
      const call = (query = '') => {
        const fd = new FormData();
        fd.append('data', new Blob([new Uint8Array(blueJpeg)]), 'a.jpg');
        return fetch(`${q.url}/v1/keywords${query}`, { method: 'POST', headers: h, body: fd });
      };
      expect((await call('?lang=xx')).status).toBe(422);
      expect((await call()).status).toBe(200);
      expect((await call()).status).toBe(200);
      expect((await call()).status).toBe(429);
      expect(q.billed()).toEqual({ q: { keywords: 2 } });
      q.setQuota({ balance: 1 });
      expect((await call()).status).toBe(200);
      expect((await call()).status).toBe(429);
      q.setQuota(null);
      q.inject({ kind: 'quota', path: '/v1/keywords', count: 1 });
      expect((await call()).status).toBe(429);
      expect((await call()).status).toBe(200);
      expect(q.billed().q.keywords).toBe(4);
      // voices are free
      expect((await fetch(`${q.url}/v1/tts/voices`, { headers: h })).status).toBe(200);
      expect(q.billed().q['tts/voices']).toBeUndefined();
    } finally {
      await q.close();
    }
  });
});

describe('asynchronous tasks', () => {
  it('moves a TTS task PENDING -> STARTED -> SUCCESS and serves a real WAV without credentials', async () => {
    // The clock stands still while the task is created, so it is PENDING when asked, however
    // long a busy machine takes between the create and the question.
    sim.clock.freeze();
    let created;
    try {
      const r = await fetch(`${sim.url}/v1/tts`, { method: 'POST', headers: auth(), body: new URLSearchParams({ voice: 'Ryan', text: 'Hello from the simulator, a sentence or two.' }) });
      expect(r.status).toBe(201);
      created = await r.json();
      expect(created).toMatchObject({ task_id: expect.any(String), status: 'PENDING', eta: expect.any(Number), queue: expect.any(Number), result: '' });
      expect((await statusOf(created.task_id)).status).toBe('PENDING');
    } finally {
      sim.clock.thaw();
    }
    const done = await waitFor(async () => {
      const s = await statusOf(created.task_id);
      return s.status === 'SUCCESS' ? s : undefined;
    }, 40);
    // It went through STARTED (read from the task's record: a poll on a busy machine may miss
    // the 80 ms it spends there, which says nothing about the service).
    const record = sim.tasks().find((t) => t.task_id === created.task_id)!;
    expect(record.startedAt).not.toBeNull();
    expect(record.createdAt).toBeLessThanOrEqual(record.startedAt!);
    expect(record.startedAt!).toBeLessThanOrEqual(record.finishedAt!);
    expect(done.queue).toBe(0);
    const file = await fetch(done.result);
    expect(file.status).toBe(200);
    const info = await probe(Buffer.from(await file.arrayBuffer()), 'wav');
    expect(info.format.format_name).toBe('wav');
    expect(Number(info.format.duration)).toBeGreaterThan(1);
  });

  it('runs TTS one at a time per account, others wait with queue positions', async () => {
    // A long PENDING time holds all three in the queue until the clock is moved (no race with a busy machine).
    const slow = await startSimulator({ accounts: [{ clientId: 'queue', clientSecret: 'secret-queue' }], taskClock: { pendingMs: 60_000, startedMs: 80 } });
    try {
      const make = async () => (await (await fetch(`${slow.url}/v1/tts/create?voice=Serena&text=queued`, { headers: auth('queue') })).json()).task_id as string;
      const ids = [await make(), await make(), await make()];
      const first = await Promise.all(ids.map(async (id) => (await (await fetch(`${slow.url}/v1/status?task_id=${id}`, { headers: auth('queue') })).json()) as { queue: number }));
      expect(first.map((s) => s.queue)).toEqual([1, 2, 3]);
      slow.advanceClock(60_000);
      await waitFor(() => slow.tasks().every((t) => t.status === 'SUCCESS') || undefined);
      // one at a time: each started only after the one before had finished
      const done = slow.tasks().sort((a, b) => a.startedAt! - b.startedAt!);
      for (let i = 1; i < done.length; i++) expect(done[i].startedAt!).toBeGreaterThanOrEqual(done[i - 1].finishedAt!);
    } finally {
      await slow.close();
    }
  });

  it('cancels: REVOKED, idempotent, and 409 once finished', async () => {
    const slow = await startSimulator({ accounts: [{ clientId: 'c', clientSecret: 's' }], taskClock: { pendingMs: 5000, startedMs: 5000 } });
    try {
      const h = { authorization: 'Basic ' + Buffer.from('c:s').toString('base64') };
      const t = await (await fetch(`${slow.url}/v1/image_generate`, { method: 'POST', headers: { ...h, 'content-type': 'application/json' }, body: JSON.stringify({ prompt: 'x' }) })).json();
      const del = await fetch(`${slow.url}/v1/tasks/${t.task_id}`, { method: 'DELETE', headers: h });
      expect(del.status).toBe(200);
      expect((await del.json()).status).toBe('REVOKED');
      expect((await fetch(`${slow.url}/v1/tasks/${t.task_id}`, { method: 'DELETE', headers: h })).status).toBe(200);
      expect((await (await fetch(`${slow.url}/v1/status?task_id=${t.task_id}`, { headers: h })).json()).status).toBe('REVOKED');
    } finally {
      await slow.close();
    }
    const t = await (await postJson('/v1/image_generate', { prompt: 'finished' })).json();
    await finished(t.task_id);
    expect((await fetch(`${sim.url}/v1/tasks/${t.task_id}`, { method: 'DELETE', headers: auth() })).status).toBe(409);
    expect((await fetch(`${sim.url}/v1/tasks/${t.task_id}`, { method: 'DELETE', headers: auth('other') })).status).toBe(404);
    expect((await fetch(`${sim.url}/v1/status?task_id=not-a-uuid`, { headers: auth() })).status).toBe(422);
  });

  it('POSTs the callback with task_id, status and result', async () => {
    const got: unknown[] = [];
    const receiver = createServer((req, res) => {
      let s = '';
      req.on('data', (c) => (s += c));
      req.on('end', () => { got.push(JSON.parse(s)); res.end('ok'); });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
    try {
      const cb = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const t = await (await postJson('/v1/image_generate', { prompt: 'a red square', model: 'gpt-image-2', quality: 'high', resolution: '1k', callback_url: cb })).json();
      const payload = await waitFor(() => got[0] as { task_id: string; status: string; result: string } | undefined);
      expect(payload).toMatchObject({ task_id: t.task_id, status: 'SUCCESS', result: expect.stringMatching(/\.png$/) });
      const png = Buffer.from(await (await fetch(payload.result)).arrayBuffer());
      expect(await sharp(png).metadata()).toMatchObject({ format: 'png', width: 1024, height: 1024 });
    } finally {
      await new Promise((r) => receiver.close(r));
    }
  });

  it('generates SVG for vector models and enforces the per-model rules', async () => {
    const v = await (await postJson('/v1/image_generate', { prompt: 'logo', model: 'recraftv4_1_vector', controls: { colors: [{ rgb: [255, 0, 0] }] } })).json();
    const done = await finished(v.task_id);
    expect(done.result).toMatch(/\.svg$/);
    expect(await (await fetch(done.result)).text()).toContain('<svg');

    const bad: [Record<string, unknown>, string][] = [
      [{ model: 'nope' }, 'model'],
      [{ model: 'gpt-image-2', quality: 'auto' }, 'quality'],
      [{ model: 'gpt-image-2', quality: 'xhigh' }, 'quality'],
      [{ model: 'zimage', quality: 'high' }, 'quality'],
      [{ model: 'gpt-image-2', resolution: '3k', image_size: 'landscape_16_9' }, 'resolution'],
      [{ model: 'seedream-5', resolution: '1k' }, 'resolution'],
      [{ model: 'grok-imagine', resolution: '4k' }, 'resolution'],
      [{ model: 'flux', style: 'transfer' }, 'image_url'],
      [{ model: 'zimage', controls: { colors: [] } }, 'controls'],
      [{ model: 'recraftv4_1_vector', controls: { colors: Array.from({ length: 13 }, () => ({ rgb: [1, 2, 3] })) } }, 'controls'],
      [{ image_size: 'huge' }, 'image_size'],
    ];
    for (const [extra, field] of bad) {
      const r = await postJson('/v1/image_generate', { prompt: 'p', ...extra });
      expect(r.status, JSON.stringify(extra)).toBe(422);
      expect((await r.json()).detail[0].loc[1]).toBe(field);
    }
    expect((await postJson('/v1/image_generate', { prompt: 'p', model: 'gpt-image-2.5-sunburst', quality: 'max', resolution: '3k' })).status).toBe(200);
    expect((await postJson('/v1/image_generate', { model: 'zimage' })).status).toBe(422);
  });

  it('edits images given as Data URIs or loopback URLs, with image_urls and megapixel rules', async () => {
    const src = dataUri('image/jpeg', blueJpeg);
    const t = await (await postJson('/v1/image_edit', { prompt: 'make it red', image_urls: [src, `${filesUrl}/blue.jpg`], model: 'grok' })).json();
    const done = await finished(t.task_id);
    expect(done.status).toBe('SUCCESS');
    const meta = await sharp(Buffer.from(await (await fetch(done.result)).arrayBuffer())).metadata();
    expect(meta.width! / meta.height!).toBeCloseTo(4 / 3, 1);
    for (const [body, field] of [
      [{ model: 'qwen', image_urls: [src, src, src, src] }, 'image_urls'],
      [{ image_urls: [src], megapixel_ratio: 2 }, 'megapixel_ratio'],
      [{ image_urls: ['https://example.com/a.png'] }, 'image_urls'],
      [{ image_urls: ['data:text/plain;base64,aGk='] }, 'image_urls'],
      [{ image_urls: [] }, 'image_urls'],
      [{ image_urls: [src], model: 'gpt-image-2', resolution: '3k' }, 'resolution'],
    ] as [Record<string, unknown>, string][]) {
      const r = await postJson('/v1/image_edit', { prompt: 'p', ...body });
      expect(r.status, JSON.stringify(body).slice(0, 80)).toBe(422);
      expect((await r.json()).detail[0].loc[1]).toBe(field);
    }
  });

  it('lipsyncs from Data URIs into a real MP4 and rejects wrong media', async () => {
    const wav = Buffer.from(await (await fetch((await finished((await (await postJson('/v1/tts_create', { text: 'hi there', speaker: 'Ryan' })).json()).task_id)).result)).arrayBuffer());
    const t = await postJson('/v1/video_lipsync', { audio_url: dataUri('audio/wav', wav), video_url: dataUri('video/mp4', mp4), resolution: '360p' });
    expect(t.status).toBe(200);
    const done = await finished((await t.json()).task_id);
    const info = await probe(Buffer.from(await (await fetch(done.result)).arrayBuffer()), 'mp4');
    expect(info.streams.map((s) => s.codec_type)).toContain('video');

    const img = await postJson('/v1/image_lipsync', { audio_url: dataUri('audio/wav', wav), image_url: dataUri('image/png', greenPng) });
    expect(img.status).toBe(200);
    for (const [path, body, field] of [
      ['/v1/video_lipsync', { audio_url: dataUri('audio/wav', wav), video_url: dataUri('image/png', greenPng) }, 'video_url'],
      ['/v1/video_lipsync', { audio_url: 'https://example.com/a.wav', video_url: dataUri('video/mp4', mp4) }, 'audio_url'],
      ['/v1/video_lipsync', { audio_url: dataUri('audio/wav', wav), video_url: dataUri('video/mp4', mp4), resolution: '1080p' }, 'resolution'],
      ['/v1/image_lipsync', { audio_url: dataUri('audio/wav', wav) }, 'image_url'],
      ['/v1/tts_create', { text: 'x'.repeat(201) }, 'text'],
    ] as [string, Record<string, unknown>, string][]) {
      const r = await postJson(path, body);
      expect(r.status, `${path} ${field}`).toBe(422);
      expect((await r.json()).detail[0].loc[1]).toBe(field);
    }
  });

  it('lists voices, rejects an unknown voice, accepts multipart forms for status and tts', async () => {
    const voices = await (await fetch(`${sim.url}/v1/tts/voices`, { headers: auth() })).json();
    expect(voices.length).toBeGreaterThanOrEqual(10);
    expect(voices[0]).toMatchObject({ api_name: expect.any(String), language: expect.any(String), gender: expect.stringMatching(/^(male|female)$/), age: expect.any(String) });
    expect(await (await fetch(`${sim.url}/v1/tts?voice=Nobody&text=hi`, { headers: auth() })).json()).toMatchObject({ status: 'error' });
    const fd = new FormData();
    fd.append('voice', 'Klaus');
    fd.append('text', 'Guten Tag');
    const t = await (await fetch(`${sim.url}/v1/tts`, { method: 'POST', headers: auth(), body: fd })).json();
    const sfd = new FormData();
    sfd.append('task_id', t.task_id);
    const s = await (await fetch(`${sim.url}/v1/status`, { method: 'POST', headers: auth(), body: sfd })).json();
    expect(s.task_id).toBe(t.task_id);
  });

  it('swaps faces through /v1/imageswap and can terminate', async () => {
    const fd = new FormData();
    fd.append('source', new Blob([new Uint8Array(facesPng)]), 's.png');
    fd.append('target', new Blob([new Uint8Array(blueJpeg)]), 't.jpg');
    const created = await (await fetch(`${sim.url}/v1/imageswap/create`, { method: 'POST', headers: auth(), body: fd })).json();
    expect(created).toMatchObject({ task_id: expect.any(String), status: 'PENDING' });
    const done = await waitFor(async () => {
      const s = await (await fetch(`${sim.url}/v1/imageswap/status?task_id=${created.task_id}`, { headers: auth() })).json();
      return s.status === 'SUCCESS' ? s : undefined;
    }, 80);
    expect(await sharp(Buffer.from(await (await fetch(done.result)).arrayBuffer())).metadata()).toMatchObject({ width: 400, height: 300 });
    expect((await fetch(`${sim.url}/v1/imageswap/terminate?task_id=${created.task_id}`, { method: 'POST', headers: auth() })).status).toBe(409);
    const viaUrl = await fetch(`${sim.url}/v1/imageswap/create?source_url=${encodeURIComponent(`${filesUrl}/blue.jpg`)}&target_url=${encodeURIComponent(`${filesUrl}/blue.jpg`)}`, { headers: auth() });
    expect(viaUrl.status).toBe(200);
  });
});

describe('as strict as the interface (issue 15)', () => {
  it('reads analysis parameters from the query string only: form fields of the same name are ignored', async () => {
    const fd = new FormData();
    fd.append('data', new Blob([new Uint8Array(blueJpeg)]), 'a.jpg');
    fd.append('num_keywords', '2');
    fd.append('lang', 'de');
    const body = await (await fetch(`${sim.url}/v1/keywords`, { method: 'POST', headers: auth(), body: fd })).json();
    expect(body.status).toBe('ok');
    expect(body.keywords.length).toBeGreaterThan(2);
    expect(body.keywords.map((k: { keyword: string }) => k.keyword.toLowerCase())).toContain('sky');
    const viaQuery = await (await upload('/v1/keywords', blueJpeg, '?num_keywords=2&lang=de')).json();
    expect(viaQuery.keywords).toHaveLength(2);
  });

  it('calls back TTS only at `callback` (the interface\'s name); `callback_url` is not read', async () => {
    const got: string[] = [];
    const receiver = createServer((req, res) => {
      got.push(req.url ?? '');
      req.resume();
      req.on('end', () => res.end('ok'));
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
    try {
      const base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
      const wrong = await (await fetch(`${sim.url}/v1/tts`, { method: 'POST', headers: auth(), body: new URLSearchParams({ voice: 'Ryan', text: 'one', callback_url: `${base}/wrong` }) })).json();
      const right = await (await fetch(`${sim.url}/v1/tts`, { method: 'POST', headers: auth(), body: new URLSearchParams({ voice: 'Ryan', text: 'two', callback: `${base}/right` }) })).json();
      await finished(wrong.task_id);
      await finished(right.task_id);
      await waitFor(() => got.includes('/right') || undefined);
      expect(sim.callbacks.filter((c) => c.task_id === wrong.task_id)).toEqual([]);
      expect(got).not.toContain('/wrong');
    } finally {
      await new Promise((r) => receiver.close(r));
    }
  });

  it('forgets tasks and result files 24 hours after they finish (simulator clock, no waiting)', async () => {
    const q = await startSimulator({ accounts: [{ clientId: 'r', clientSecret: 's' }], taskClock: { pendingMs: 10, startedMs: 10 } });
    try {
      const h = { authorization: 'Basic ' + Buffer.from('r:s').toString('base64'), 'content-type': 'application/json' };
      const t = await (await fetch(`${q.url}/v1/image_generate`, { method: 'POST', headers: h, body: JSON.stringify({ prompt: 'kept a day' }) })).json();
      q.advanceClock(1000);
      // The PNG is still being made: wait for it (the state a poller waits on), not for time.
      const done = await waitFor(async () => {
        const s = await (await fetch(`${q.url}/v1/status?task_id=${t.task_id}`, { headers: h })).json();
        return s.status === 'SUCCESS' ? s : undefined;
      }, 40);
      q.advanceClock(23 * 3600_000);
      expect((await fetch(done.result)).status).toBe(200);
      q.advanceClock(3600_000);
      expect((await fetch(done.result)).status).toBe(404);
      expect((await fetch(`${q.url}/v1/status?task_id=${t.task_id}`, { headers: h })).status).toBe(404);
    } finally {
      await q.close();
    }
  });

  it('edits with seedream default to a square image; other models keep the source proportions', async () => {
    const wide = dataUri('image/png', await sharp({ create: { width: 400, height: 200, channels: 3, background: '#884422' } }).png().toBuffer());
    const sizeOf = async (model: string) => {
      const t = await (await postJson('/v1/image_edit', { prompt: 'p', image_urls: [wide], model })).json();
      const done = await finished(t.task_id);
      return sharp(Buffer.from(await (await fetch(done.result)).arrayBuffer())).metadata();
    };
    const seedream = await sizeOf('seedream-5-pro');
    expect(seedream.width).toBe(seedream.height);
    const flux = await sizeOf('flux2');
    expect(flux.width! / flux.height!).toBeCloseTo(2, 1);
  });

  it('answers 400 {status: "error", message} for an image it cannot decode, on every endpoint taking images', async () => {
    const broken = Buffer.concat([blueJpeg.subarray(0, 40), Buffer.alloc(200, 7)]);
    const a = await upload('/v1/faces', broken);
    expect(a.status).toBe(400);
    expect(await a.json()).toMatchObject({ status: 'error', message: expect.stringMatching(/decod/) });
    for (const [path, body] of [
      ['/v1/image_edit', { prompt: 'p', image_urls: [dataUri('image/jpeg', broken)] }],
      ['/v1/image_vectorize', { image_url: dataUri('image/jpeg', broken) }],
    ] as const) {
      const r = await postJson(path, body);
      expect(r.status, path).toBe(400);
      expect(await r.json()).toMatchObject({ status: 'error', message: expect.any(String) });
    }
    const fd = new FormData();
    fd.append('source', new Blob([new Uint8Array(broken)]), 's.jpg');
    fd.append('target', new Blob([new Uint8Array(blueJpeg)]), 't.jpg');
    expect((await fetch(`${sim.url}/v1/imageswap`, { method: 'POST', headers: auth(), body: fd })).status).toBe(400);
    expect(sim.billed().acct?.image_vectorize).toBeUndefined();
  });

  it('serves the interface\'s /v1/imageswap and the vendor\'s /v1/videoswap/*; a disabled path is a 404', async () => {
    const fd = new FormData();
    fd.append('source', new Blob([new Uint8Array(facesPng)]), 's.png');
    fd.append('target', new Blob([new Uint8Array(blueJpeg)]), 't.jpg');
    const created = await (await fetch(`${sim.url}/v1/imageswap`, { method: 'POST', headers: auth(), body: fd })).json();
    expect(created).toMatchObject({ task_id: expect.any(String), status: 'PENDING' });
    const vfd = new FormData();
    vfd.append('source', new Blob([new Uint8Array(facesPng)]), 's.png');
    vfd.append('target', new Blob([new Uint8Array(mp4)]), 't.mp4');
    const video = await (await fetch(`${sim.url}/v1/videoswap/create`, { method: 'POST', headers: auth(), body: vfd })).json();
    const done = await waitFor(async () => {
      const s = await (await fetch(`${sim.url}/v1/videoswap/status?task_id=${video.task_id}`, { headers: auth() })).json();
      return s.status === 'SUCCESS' ? s : undefined;
    }, 80);
    const info = await probe(Buffer.from(await (await fetch(done.result)).arrayBuffer()), 'mp4');
    expect(info.streams.map((x) => x.codec_type)).toContain('video');
    const one = await startSimulator({ accounts: [{ clientId: 'd', clientSecret: 's' }], disabledPaths: ['/v1/imageswap'] });
    try {
      expect((await fetch(`${one.url}/v1/imageswap`, { method: 'POST', headers: { authorization: 'Basic ' + Buffer.from('d:s').toString('base64') }, body: fd })).status).toBe(404);
    } finally {
      await one.close();
    }
  });

  it('injects a stated client error and quota exhaustion answered as 200 {status: "error"}', async () => {
    sim.inject({ kind: 'error', path: '/v1/quality', count: 1, message: 'Image is too small' });
    const r = await upload('/v1/quality', blueJpeg, '', 'other');
    expect(r.status).toBe(400);
    expect(await r.json()).toEqual({ status: 'error', message: 'Image is too small' });
    sim.inject({ kind: 'quota200', path: '/v1/quality', count: 1 });
    const q = await upload('/v1/quality', blueJpeg, '', 'other');
    expect(q.status).toBe(200);
    expect(await q.json()).toMatchObject({ status: 'error', message: expect.stringMatching(/limit|balance/i) });
  });
});

describe('fault injection', () => {
  it('injects latency, drops, 5xx, 502 storms, lost answers, task failures and slow tasks', async () => {
    sim.inject({ kind: 'latency', ms: 150, path: '/v1/auth/check', count: 1 });
    const t0 = Date.now();
    expect((await fetch(`${sim.url}/v1/auth/check`, { headers: auth() })).status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);

    // A held request waits on the wire until the test lets it go (no clock involved).
    sim.inject({ kind: 'hold', path: '/v1/auth/check', count: 1 });
    let answered = false;
    const heldCall = fetch(`${sim.url}/v1/auth/check`, { headers: auth() }).then((r) => {
      answered = true;
      return r;
    });
    await sim.held.until(1, '/v1/auth/check');
    expect(sim.held.count('/v1/keywords')).toBe(0);
    expect(answered).toBe(false);
    expect(sim.held.release('/v1/auth/check')).toBe(1);
    expect((await heldCall).status).toBe(200);
    expect(sim.held.count()).toBe(0);

    sim.inject({ kind: 'drop', path: '/v1/auth/check', count: 1 });
    await expect(fetch(`${sim.url}/v1/auth/check`, { headers: auth() })).rejects.toThrow();
    sim.inject({ kind: '5xx', status: 503, count: 1 });
    expect((await fetch(`${sim.url}/v1/auth/check`, { headers: auth() })).status).toBe(503);
    sim.inject({ kind: '502', path: /keywords/, count: 3 });
    const storm = [];
    for (let i = 0; i < 4; i++) storm.push((await upload('/v1/keywords', blueJpeg, '', 'other')).status);
    expect(storm).toEqual([502, 502, 502, 200]);

    const before = sim.billed().other?.image_generate ?? 0;
    sim.inject({ kind: 'dropAfter', path: '/v1/image_generate', count: 1 });
    await expect(postJson('/v1/image_generate', { prompt: 'lost' }, 'other')).rejects.toThrow();
    expect(sim.tasks().filter((t) => t.clientId === 'other' && t.kind === 'image_generate')).toHaveLength(1);
    expect(sim.billed().other['image_generate:zimage']).toBe(before + 1);

    sim.inject({ kind: 'taskFailure', path: '/v1/image_generate', count: 1 });
    const failing = await (await postJson('/v1/image_generate', { prompt: 'fails' })).json();
    expect((await finished(failing.task_id)).status).toBe('FAILURE');

    sim.inject({ kind: 'slowTask', ms: 400, path: '/v1/image_generate', count: 1 });
    const slow = await (await postJson('/v1/image_generate', { prompt: 'slow' })).json();
    const start = Date.now();
    await finished(slow.task_id);
    expect(Date.now() - start).toBeGreaterThanOrEqual(400);
    sim.clearFaults();
  });
});

describe('request log', () => {
  it('records size, header names, EXIF presence and image size of uploads', async () => {
    await upload('/v1/quality', exifJpeg);
    const withExif = sim.log.at(-1)!;
    await upload('/v1/quality', blueJpeg);
    const clean = sim.log.at(-1)!;
    expect(withExif).toMatchObject({ path: '/v1/quality', method: 'POST', status: 200, uploadHadExif: true, imageSize: { width: 400, height: 300 }, clientId: 'acct' });
    expect(withExif.uploadBytes).toBeGreaterThan(exifJpeg.length);
    expect(withExif.headersPresent).toContain('authorization');
    expect(JSON.stringify(withExif)).not.toContain('secret-acct');
    expect(clean.uploadHadExif).toBe(false);
  });
});

describe('command line', () => {
  it('prints the URL and serves until killed', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'tests/simulator/cli.ts', '--port', '0', '--client-id', 'cli', '--client-secret', 'pw', '--free-quota', '1'], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      let out = '';
      child.stdout.on('data', (c) => (out += c));
      const url = await waitFor(() => /http:\/\/127\.0\.0\.1:\d+/.exec(out)?.[0]);
      const h = { authorization: 'Basic ' + Buffer.from('cli:pw').toString('base64') };
      expect((await fetch(`${url}/v1/auth/check`, { headers: h })).status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
