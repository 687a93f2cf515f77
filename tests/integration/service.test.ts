// The service client against the simulator: a round trip per endpoint, rules refused before
// sending, error kinds, credentials only to the service origin, private uploads.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceClient } from '../../src-main/service/client';
import { ServiceError } from '../../src-main/service/errors';
import { prepareImage, prepareVideo } from '../../src-main/service/prepare';
import { ugcClassOf, parseQualityUgc } from '../../src-main/service/parse';
import { startSimulator, type Simulator } from '../simulator/index.js';

const run = promisify(execFile);
let sim: Simulator;
let client: ServiceClient;
let dir: string;
let photo: string;
let mp4: string;
let wav: string;

const creds = { clientId: 'svc', clientSecret: 'svc-secret' };

async function waitTask(id: string, swap = false) {
  // Polls until the task ends (the test's timeout is the only bound); 60 ms apart keeps the
  // status calls well under the service's 30 requests a second.
  for (;;) {
    const s = swap ? await client.faceSwapStatus(id) : await client.status(id);
    if (['SUCCESS', 'FAILURE', 'REVOKED'].includes(s.status)) return s;
    await new Promise((r) => setTimeout(r, 60));
  }
}

async function expectLocal(p: Promise<unknown>, field: string) {
  const before = sim.log.length;
  const e = await p.then(() => null, (x: unknown) => x);
  expect(e).toBeInstanceOf(ServiceError);
  expect((e as ServiceError).kind).toBe('invalid_input');
  expect((e as ServiceError).field).toBe(field);
  expect((e as ServiceError).message).toContain(field);
  expect(sim.log.length).toBe(before);
}

beforeAll(async () => {
  sim = await startSimulator({ port: 0, accounts: [creds], taskClock: { pendingMs: 30, startedMs: 60 } });
  client = new ServiceClient({ baseUrl: sim.url, credentials: creds });
  dir = await mkdtemp(join(tmpdir(), 'svc-test-'));
  // A 1200x800 photo with EXIF (orientation 6 = rotate 90) and GPS.
  photo = join(dir, 'photo.jpg');
  await sharp({ create: { width: 1200, height: 800, channels: 3, background: '#3a7bd5' } })
    .jpeg()
    .withExif({ IFD0: { Make: 'Cam', Model: 'X1' }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 0/1' } })
    .withMetadata({ orientation: 6 })
    .toFile(photo);
  mp4 = join(dir, 'clip.mp4');
  await run('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=size=160x120:rate=10:duration=2', '-metadata', 'location=+48.8566+002.3522/', '-metadata', 'title=secret place', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-movflags', '+use_metadata_tags', mp4]);
  wav = join(dir, 'voice.wav');
  await run('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=1', wav]);
});

afterAll(async () => {
  await client?.close();
  await sim?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('service client round trips', () => {
  it('keywords, with colours, from a derivative without metadata ~300 px on the short side', async () => {
    const img = await prepareImage(photo);
    expect(Math.min(img.width, img.height)).toBe(300);
    expect(img.height).toBeGreaterThan(img.width); // EXIF orientation 6 applied
    const r = await client.keywords(img, { num_keywords: 80, lang: 'de', colors: true, num_colors: 3 });
    expect(r.keywords.length).toBeGreaterThan(0);
    expect(r.keywords.length).toBeLessThanOrEqual(50);
    expect(r.colors!.length).toBeGreaterThan(0);
    expect(r.colors!.length).toBeLessThanOrEqual(3);
    const entry = sim.log.at(-1)!;
    expect(entry.path).toBe('/v1/keywords');
    expect(entry.status).toBe(200);
    expect(entry.uploadHadExif).toBe(false);
    expect(Math.min(entry.imageSize!.width, entry.imageSize!.height)).toBe(300);
    expect(entry.queryKeys.sort()).toEqual(['colors', 'lang', 'num_colors', 'num_keywords']);
    expect(entry.headersPresent).toContain('authorization');
  });

  it('caption (status: true), faces, quality, UGC quality', async () => {
    const img = await prepareImage(photo);
    expect((await client.caption(img, { caption_len: 'short' })).caption.length).toBeGreaterThan(0);
    expect(Array.isArray((await client.faces(img)).faces)).toBe(true);
    const q = await client.quality(img);
    expect(q.score).toBeGreaterThanOrEqual(0);
    const ugcImg = await prepareImage(photo, 'qualityUgc');
    const u = await client.qualityUgc(ugcImg);
    expect(u.class).toBe(ugcClassOf(u.score));
  });

  it('parses the UGC class from a number or a string, and computes it when absent', () => {
    expect(parseQualityUgc({ quality: { score: 0.5, class: '3' }, status: 'ok' }).class).toBe(3);
    expect(parseQualityUgc({ quality: { score: 0.5, class: 3 }, status: 'ok' }).class).toBe(3);
    expect(parseQualityUgc({ quality: { score: 0.8 }, status: 'ok' }).class).toBe(5);
    expect(parseQualityUgc({ quality: { score: 0.2 }, status: 'ok' }).class).toBe(2);
    expect(parseQualityUgc({ quality: { score: 1 }, status: 'ok' }).class).toBe(5);
  });

  it('video keywords from a copy without container metadata', async () => {
    const v = await prepareVideo(mp4);
    try {
      expect(v.warnings.join(' ')).toMatch(/under 5 s/);
      const { stdout } = await run('ffprobe', ['-v', 'error', '-show_entries', 'format_tags', '-of', 'json', v.path]);
      expect(stdout).not.toMatch(/location|secret place/);
      const r = await client.videoKeywords({ path: v.path }, { num_keywords: 5 });
      expect(r.keywords.length).toBeGreaterThan(0);
    } finally {
      await v.cleanup();
    }
  });

  it('refuses a video above the limit with the reason', async () => {
    await expect(prepareVideo(mp4, { maxBytes: 1000 })).rejects.toThrow(/at most/);
  });

  it('voices, TTS (with fallback path), status, download without credentials', async () => {
    const voices = await client.voices();
    expect(voices.length).toBeGreaterThan(0);
    const t = await client.tts({ voice: voices[0].api_name, text: 'Hello there' });
    const done = await waitTask(t.task_id);
    expect(done.status).toBe('SUCCESS');
    const dest = join(dir, 'out', 'speech.wav');
    const before = sim.log.length;
    const d = await client.download(done.result!, dest);
    expect(d.bytes).toBeGreaterThan(44);
    expect((await readFile(dest)).subarray(0, 4).toString()).toBe('RIFF');
    const fileReq = sim.log.slice(before).find((e) => e.path.startsWith('/files/'))!;
    expect(fileReq.headersPresent).not.toContain('authorization');
  });

  it('vendor JSON TTS, lipsync (video and image) with streamed Data URIs', async () => {
    const tj = await client.ttsJson({ text: 'hi' });
    expect(tj.task_id).toMatch(/-/);
    const img = await prepareImage(photo);
    const face = join(dir, 'face.jpg');
    await writeFile(face, img.data);
    const vl = await client.videoLipsync({ audio: { path: wav }, video: { path: mp4 }, resolution: '360p' });
    const il = await client.imageLipsync({ audio: { path: wav }, image: { path: face } });
    expect((await waitTask(vl.task_id)).status).toBe('SUCCESS');
    expect((await waitTask(il.task_id)).status).toBe('SUCCESS');
    expect(sim.log.filter((e) => e.path === '/v1/image_lipsync').at(-1)!.uploadHadExif).toBe(false);
  });

  it('image generate, edit, vectorize, face swap; cancel', async () => {
    const g = await client.imageGenerate({ prompt: 'a red fox', model: 'gpt-image-2', quality: 'high', resolution: '3k', image_size: 'square' });
    expect((await waitTask(g.task_id)).status).toBe('SUCCESS');
    const vec = await client.imageGenerate({ prompt: 'logo', model: 'recraftv4_1_vector', controls: { colors: [{ rgb: [255, 0, 0] }] } });
    expect((await waitTask(vec.task_id)).result).toMatch(/\.svg$/);
    const img = await prepareImage(photo);
    const e = await client.imageEdit({ prompt: 'make it night', image_urls: [{ data: img.data, mime: 'image/jpeg' }], megapixel_ratio: 0.5 });
    expect((await waitTask(e.task_id)).status).toBe('SUCCESS');
    const vz = await client.imageVectorize({ image: { data: img.data, mime: 'image/jpeg' } });
    expect((await waitTask(vz.task_id)).status).toBe('SUCCESS');
    const fs = await client.faceSwap({ source: { data: img.data, mime: 'image/jpeg' }, target: { data: img.data, mime: 'image/jpeg' } });
    expect((await waitTask(fs.task_id, true)).status).toBe('SUCCESS');
    const slow = await client.imageGenerate({ prompt: 'slow' });
    expect(await client.cancelTask(slow.task_id)).toBe('cancelled');
    expect((await client.status(slow.task_id)).status).toBe('REVOKED');
    expect(await client.cancelTask(g.task_id)).toBe('final');
    expect(await client.authCheck()).toBe(true);
  });

  it('video face swap through /v1/videoswap/*: a donor face onto a clip, cancelled with terminate', async () => {
    const img = await prepareImage(photo);
    const t = await client.videoFaceSwap({ source: { data: img.data, mime: 'image/jpeg' }, target: { path: mp4 } });
    const done = await (async () => {
      for (;;) {
        const s = await client.videoFaceSwapStatus(t.task_id);
        if (['SUCCESS', 'FAILURE', 'REVOKED'].includes(s.status)) return s;
        await new Promise((r) => setTimeout(r, 60));
      }
    })();
    expect(done.status).toBe('SUCCESS');
    expect(done.result).toMatch(/\.mp4$/);
    expect(sim.log.some((e) => e.path === '/v1/videoswap/create' && e.status === 200)).toBe(true);
    expect(await client.videoFaceSwapTerminate(t.task_id)).toBe('final');
  });
});

describe('video keywording inputs: other containers become MP4 before upload (issue 15)', () => {
  it('MKV with H.264: a stream copy; WebM with VP9: a fast transcode; the service refuses the MKV as it is', async () => {
    const mkv = join(dir, 'clip.mkv');
    const webm = join(dir, 'clip.webm');
    await run('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=size=160x120:rate=10:duration=1', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-y', mkv]);
    await run('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=size=160x120:rate=10:duration=1', '-c:v', 'libvpx-vp9', '-b:v', '200k', '-y', webm]);
    // its own simulator with two accounts: video keywording allows one request per second per account
    const creds2 = { clientId: 'svc-2', clientSecret: 'svc-2-secret' };
    const other = await startSimulator({ accounts: [creds, creds2] });
    const c = new ServiceClient({ baseUrl: other.url, credentials: creds });
    const c2 = new ServiceClient({ baseUrl: other.url, credentials: creds2 });
    const copied = await prepareVideo(mkv);
    const transcoded = await prepareVideo(webm);
    try {
      expect(copied.path).toMatch(/\.mp4$/);
      expect(copied.warnings.join(' ')).toMatch(/MKV is not a format the service takes.*stream copy in MP4/);
      expect(transcoded.path).toMatch(/\.mp4$/);
      expect(transcoded.warnings.join(' ')).toMatch(/WEBM .*transcoded copy in MP4/);
      const probe = JSON.parse((await run('ffprobe', ['-v', 'error', '-show_entries', 'stream=codec_name:format=format_name', '-of', 'json', transcoded.path])).stdout);
      expect(probe.streams[0].codec_name).toBe('h264');
      expect(probe.format.format_name).toContain('mp4');
      expect((await c.videoKeywords({ path: copied.path })).keywords.length).toBeGreaterThan(0);
      // what the conversion spares the user: the service takes MP4, MPEG, MOV or AVI only
      const e = await c2.videoKeywords({ path: mkv }).then(() => null, (x: unknown) => x as ServiceError);
      expect(e).toMatchObject({ kind: 'invalid_input', status: 400 });
    } finally {
      await copied.cleanup();
      await transcoded.cleanup();
      await c.close();
      await c2.close();
      await other.close();
    }
  });
});

describe('two documented paths: the client falls back either way and remembers', () => {
  for (const [served, missing] of [['/v1/imageswap/create', '/v1/imageswap'], ['/v1/imageswap', '/v1/imageswap/create']]) {
    it(`face swap on a service that serves only ${served}`, async () => {
      const one = await startSimulator({ accounts: [creds], taskClock: { pendingMs: 20, startedMs: 20 }, disabledPaths: [missing] });
      const c = new ServiceClient({ baseUrl: one.url, credentials: creds });
      try {
        const img = await prepareImage(photo);
        const swap = () => c.faceSwap({ source: { data: img.data, mime: 'image/jpeg' }, target: { data: img.data, mime: 'image/jpeg' } });
        expect((await swap()).task_id).toBeTruthy();
        expect((await swap()).task_id).toBeTruthy();
        const creates = one.log.filter((e) => e.path.startsWith('/v1/imageswap') && e.method === 'POST');
        // the first call may try the other path once (a free 404); the second goes straight to the served one
        expect(creates.filter((e) => e.path === served && e.status === 200)).toHaveLength(2);
        expect(creates.filter((e) => e.path === missing).length).toBeLessThanOrEqual(1);
        expect(creates.at(-1)!.path).toBe(served);
        expect(one.billed()[creds.clientId].imageswap).toBe(2);
      } finally {
        await c.close();
        await one.close();
      }
    });
  }
});

describe('parameters refused before sending', () => {
  const img = { data: Buffer.from('x'), mime: 'image/jpeg' };
  it('analysis rules', async () => {
    await expectLocal(client.keywords(img, { threshold: 1.5 }), 'threshold');
    await expectLocal(client.keywords(img, { num_keywords: 0 }), 'num_keywords');
    await expectLocal(client.keywords(img, { lang: 'xx' as 'en' }), 'lang');
    await expectLocal(client.keywords(img, { num_colors: 20, colors: true }), 'num_colors');
    await expectLocal(client.videoKeywords(img, { lang: 'en' } as never), 'lang');
    await expectLocal(client.caption(img, { caption_len: 'huge' as 'short' }), 'caption_len');
  });
  it('generation and editing rules', async () => {
    await expectLocal(client.imageGenerate({ prompt: '' }), 'prompt');
    await expectLocal(client.imageGenerate({ prompt: 'x', model: 'nope' }), 'model');
    await expectLocal(client.imageGenerate({ prompt: 'x', model: 'zimage', quality: 'high' }), 'quality');
    await expectLocal(client.imageGenerate({ prompt: 'x', model: 'gpt-image-2', quality: 'xhigh' }), 'quality');
    await expectLocal(client.imageGenerate({ prompt: 'x', model: 'gpt-image-2', quality: 'auto' }), 'quality');
    await expectLocal(client.imageGenerate({ prompt: 'x', model: 'gpt-image-2', resolution: '3k', image_size: 'portrait_4_3' }), 'resolution');
    await expectLocal(client.imageGenerate({ prompt: 'x', model: 'grok-imagine', resolution: '4k' }), 'resolution');
    await expectLocal(client.imageGenerate({ prompt: 'x', model: 'flux', style: 'transfer' }), 'image_url');
    await expectLocal(client.imageGenerate({ prompt: 'x', model: 'recraftv4_1_vector', controls: { colors: Array.from({ length: 13 }, () => ({ rgb: [1, 2, 3] })) } }), 'controls.colors');
    await expectLocal(client.imageGenerate({ prompt: 'x', model: 'zimage', controls: { colors: [] } }), 'controls');
    await expectLocal(client.imageEdit({ prompt: 'x', image_urls: [] }), 'image_urls');
    await expectLocal(client.imageEdit({ prompt: 'x', model: 'qwen', image_urls: [img, img, img, img] }), 'image_urls');
    await expectLocal(client.imageEdit({ prompt: 'x', image_urls: [img], megapixel_ratio: 2 }), 'megapixel_ratio');
    expect(await client.imageGenerate({ prompt: 'x', model: 'gpt-image-2.5-sunburst', quality: 'max' }).then((t) => t.task_id)).toBeTruthy();
  });
  it('TTS and lipsync rules', async () => {
    await expectLocal(client.tts({ voice: '', text: 'x' }), 'voice');
    await expectLocal(client.tts({ voice: 'v', text: ' ' }), 'text');
    await expectLocal(client.videoLipsync({ audio: { path: wav } }), 'video_url');
    await expectLocal(client.imageLipsync({ audio: 'not a uri', image: img }), 'audio_url');
    await expectLocal(client.videoLipsync({ audio: { path: wav }, video: { path: mp4 }, resolution: '1080p' as '720p' }), 'resolution');
  });
});

describe('error kinds', () => {
  const errOf = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e as ServiceError);
  it('maps 401, 429, 502, 5xx, 422, status:error, offline, unknown outcome, cancel', async () => {
    const img = await prepareImage(photo);
    const wrong = new ServiceClient({ baseUrl: sim.url, credentials: { clientId: 'svc', clientSecret: 'nope-secret-value' } });
    const e401 = await errOf(wrong.keywords(img));
    expect(e401?.kind).toBe('credentials');
    expect(e401?.message).not.toContain('nope-secret-value');
    await wrong.close();
    sim.inject({ kind: 'quota', path: '/v1/keywords', count: 1 });
    expect((await errOf(client.keywords(img)))?.kind).toBe('quota');
    sim.inject({ kind: '502', path: '/v1/keywords', count: 1 });
    expect((await errOf(client.keywords(img)))?.kind).toBe('rate_limited');
    sim.inject({ kind: '5xx', path: '/v1/keywords', count: 1, status: 503 });
    expect((await errOf(client.keywords(img)))?.kind).toBe('service');
    // An input the service cannot use: 400 {status: "error", message}: final, with the service's words.
    const e400 = await errOf(client.keywords({ data: Buffer.from('GIF89a....'), mime: 'image/gif' }));
    expect(e400?.kind).toBe('invalid_input');
    expect(e400?.status).toBe(400);
    expect(e400?.message).toMatch(/JPEG or PNG/);
    sim.inject({ kind: 'error', status: 418, path: '/v1/keywords', count: 1, message: 'Teapots are not photos' });
    expect(await errOf(client.keywords(img))).toMatchObject({ kind: 'invalid_input', message: expect.stringContaining('Teapots are not photos') });
    // 200 {status: "error"}: quota words hold billed work; any other message is final for the file.
    sim.inject({ kind: 'quota200', path: '/v1/keywords', count: 1, message: 'Not enough credits on the balance' });
    expect(await errOf(client.keywords(img))).toMatchObject({ kind: 'quota', message: expect.stringContaining('Not enough credits') });
    sim.inject({ kind: 'quota200', path: '/v1/keywords', count: 1, message: 'Image has no content' });
    expect(await errOf(client.keywords(img))).toMatchObject({ kind: 'invalid_input', message: expect.stringContaining('Image has no content') });
    const e422 = await errOf(client.status('00000000-0000-0000-0000-000000000000'));
    expect(e422?.kind).toBe('not_found');
    sim.inject({ kind: 'dropAfter', path: '/v1/image_generate', count: 1 });
    expect((await errOf(client.imageGenerate({ prompt: 'lost' })))?.kind).toBe('unknown_outcome');
    sim.inject({ kind: 'hold', path: '/v1/keywords', count: 1 });
    const ac = new AbortController();
    const p = errOf(client.keywords(img, {}, { signal: ac.signal }));
    await sim.held.until(1, '/v1/keywords'); // on the wire: the cancel must abort the request itself
    ac.abort();
    expect((await p)?.kind).toBe('cancelled');
    sim.held.release('/v1/keywords');
    const dead = new ServiceClient({ baseUrl: 'http://127.0.0.1:9', credentials: creds });
    expect((await errOf(dead.keywords(img)))?.kind).toBe('offline');
    await dead.close();
  });

  it('never sends credentials to another host, even when the base URL has a path', async () => {
    let sawAuth: boolean | null = null;
    const other: Server = createServer((req, res) => {
      sawAuth = !!req.headers.authorization;
      res.end('file');
    });
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', () => r()));
    const url = `http://localhost:${(other.address() as AddressInfo).port}/x.bin`;
    const dest = join(dir, 'x.bin');
    await client.download(url, dest);
    expect(sawAuth).toBe(false);
    expect((await stat(dest)).size).toBe(4);
    other.close();
  });
});
