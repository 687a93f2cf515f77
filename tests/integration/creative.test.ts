// Creative workflows against the simulator: voices, speech (queue positions, split + join),
// FAILURE/REVOKED, every model rule, generation/editing into the library with provenance in
// the file, lipsync, and a failed download fetched again without a new billed task.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExifTool } from 'exiftool-vendored';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreativeTaskView } from '../../src-preload/contract';
import type { Tagsmith } from '../../src-main/api/tagsmith';
import { listVoices, modelRules, type CreativeService } from '../../src-main/creative';
import { budgetFor } from '../../src-main/creative/deadlines';
import { getAssetRow } from '../../src-main/library/assets';
import { openLibrary, type LibraryCtx } from '../../src-main/library/context';
import { closeMetadataReader } from '../../src-main/metadata/reader';
import { EDIT_MODELS, GENERATE_MODELS } from '../../src-main/service/endpoints';
import { startSimulator, type Simulator } from '../simulator/index.js';
import { startTagsmith } from '../helpers/tagsmith';
import { until } from '../helpers/until';

const creds = { clientId: 'creative', clientSecret: 'creative-secret' };
const TUNING = { pollMs: 30, pollMaxMs: 100, retryBaseMs: 50, retryMaxMs: 100, maxAttempts: 1 };
let sim: Simulator;
let dir: string;
let ctx: LibraryCtx;
let app: Tagsmith;
let creative: CreativeService;
let portrait: string;
/** the creative service's clock runs this far ahead: deadlines are tested without waiting */
let clockAhead = 0;


const FINAL = ['done', 'failed', 'cancelled', 'unknown', 'download_failed'];
async function finished(id: number): Promise<CreativeTaskView> {
  await until(() => FINAL.includes(creative.view(id).status));
  await creative.settle();
  return creative.view(id);
}
const billed = (key: string): number => sim.billed()[creds.clientId]?.[key] ?? 0;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, accounts: [creds], taskClock: { pendingMs: 60, startedMs: 120 } });
  dir = await mkdtemp(join(tmpdir(), 'tagsmith-creative-'));
  ctx = openLibrary(join(dir, 'lib'));
  // The app as it starts (createTagsmith: the queue with every job kind, the creative service attached).
  app = startTagsmith(ctx, { url: sim.url, creds }, { tuning: TUNING, creativeNow: () => Date.now() + clockAhead });
  creative = app.creative;
  portrait = join(dir, 'portrait.png');
  await sharp({ create: { width: 640, height: 800, channels: 3, background: '#c08060' } }).png().toFile(portrait);
});

afterAll(async () => {
  await app.dispose();
  ctx.db.close();
  await closeMetadataReader();
  await sim.close();
  await rm(dir, { recursive: true, force: true });
});

describe('voices', () => {
  it('are fetched once, cached with fetched_at, filtered, and refreshed on request', async () => {
    const before = sim.log.filter((e) => e.path === '/v1/tts/voices').length;
    const all = await listVoices(ctx, () => app.client());
    expect(all.voices.length).toBeGreaterThan(5);
    expect(all.fetchedAt).toBeGreaterThan(0);
    const spa = await listVoices(ctx, () => app.client(), { lang: 'spa' });
    expect(spa.voices.map((v) => v.apiName).sort()).toEqual(['Eric', 'Lucia']);
    const youngWomen = await listVoices(ctx, () => app.client(), { gender: 'female', age: 'young' });
    expect(youngWomen.voices.every((v) => v.gender === 'female' && v.age === 'young')).toBe(true);
    expect((await listVoices(ctx, () => app.client(), { text: 'uncle' })).voices.map((v) => v.apiName)).toEqual(['Uncle_Fu']);
    expect(sim.log.filter((e) => e.path === '/v1/tts/voices').length).toBe(before + 1);
    await listVoices(ctx, () => app.client(), { refresh: true });
    expect(sim.log.filter((e) => e.path === '/v1/tts/voices').length).toBe(before + 2);
  });
});

describe('speech', () => {
  it('runs PENDING -> STARTED -> SUCCESS and lands a WAV in Creations as an indexed audio asset with provenance', async () => {
    const seen = new Set<string>();
    const off = ctx.events.on('creativeTask', (t) => seen.add(t.status));
    const task = creative.startSpeech({ voice: 'Serena', text: 'Hello from Tagsmith. This is a test.', title: 'Greeting' });
    const done = await finished(task.id);
    off();
    expect(done.status, done.error ?? '').toBe('done');
    expect(seen.has('pending') || seen.has('started')).toBe(true);
    expect(done.resultPath!.startsWith(join(dir, 'lib', 'Creations'))).toBe(true);
    expect(done.resultPath!.endsWith('.wav')).toBe(true);
    const asset = getAssetRow(ctx, done.resultAssetId!)!;
    expect(asset.kind).toBe('audio');
    expect(creative.creationOf(asset.id)!.params).toMatchObject({ voice: 'Serena', title: 'Greeting' });
    expect(done.parts[0].remoteTaskId).toMatch(/[0-9a-f-]{36}/);
  });

  it('runs a second request one at a time: it visibly waits with a queue position', async () => {
    const a = creative.startSpeech({ voice: 'Ryan', text: 'First of two.' });
    const b = creative.startSpeech({ voice: 'Ryan', text: 'Second of two.' });
    const waiting = await until(() => {
      const v = creative.view(b.id);
      return v.status === 'waiting' && (v.queue ?? 0) > 0 && creative.view(a.id).status !== 'waiting' ? v : null;
    });
    expect(waiting.queue).toBeGreaterThan(0);
    expect((await finished(a.id)).status).toBe('done');
    expect((await finished(b.id)).status).toBe('done');
  });

  it('splits a long text at sentences into N billed tasks (told in the preview) and joins the audio into one file', async () => {
    creative.setSettings({ textLimit: 40 });
    try {
      const text = 'The first sentence is here. The second one follows it. A third closes the paragraph.';
      const preview = creative.previewSpeech({ voice: 'Vivian', text });
      expect(preview.billedTasks).toBe(3);
      expect(preview.message).toMatch(/3 parts, each a billed task/);
      const before = billed('tts');
      const task = creative.startSpeech({ voice: 'Vivian', text });
      const done = await finished(task.id);
      expect(done.status, done.error ?? '').toBe('done');
      expect(billed('tts') - before).toBe(3);
      expect(done.parts).toHaveLength(3);
      const probe = JSON.parse(execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'json', done.resultPath!]).toString()) as { format: { duration: string } };
      expect(Number(probe.format.duration)).toBeGreaterThan(0);
      expect(getAssetRow(ctx, done.resultAssetId!)!.kind).toBe('audio');
    } finally {
      creative.setSettings({ textLimit: null });
    }
  });

  it('reports a FAILURE, and retries it only when the new charge is confirmed', async () => {
    sim.inject({ kind: 'taskFailure', path: '/v1/tts', count: 1 });
    const task = creative.startSpeech({ voice: 'Ryan', text: 'This one fails.' });
    const failed = await finished(task.id);
    expect(failed.status).toBe('failed');
    expect(failed.canRetry).toBe(true);
    await expect(creative.retry(task.id, false)).rejects.toThrow(/billed again/);
    const again = await creative.retry(task.id, true);
    expect(again.retryOf).toBe(task.id);
    expect((await finished(again.id)).status).toBe('done');
  });

  it('cancels a waiting or running task (REVOKED at the service)', async () => {
    // The task never finishes by itself: only the cancel can end it, however slow the machine.
    sim.inject({ kind: 'slowTask', path: '/v1/tts', ms: Infinity, count: 1 });
    const task = creative.startSpeech({ voice: 'Ryan', text: 'This one is cancelled.' });
    await until(() => creative.view(task.id).parts[0].remoteTaskId);
    creative.cancel(task.id);
    const v = await finished(task.id);
    expect(v.status).toBe('cancelled');
    const remote = sim.tasks().find((t) => t.task_id === v.parts[0].remoteTaskId)!;
    expect(remote.status).toBe('REVOKED');
  });
});

describe('generation and editing rules', () => {
  type Case = [string, Record<string, unknown>, RegExp | null];
  const gen: Case[] = [];
  for (const [model, r] of Object.entries(GENERATE_MODELS)) {
    for (const res of ['1k', '2k', '3k', '4k']) {
      // No resolutions documented for a model: no rule is invented, the service decides (issue 32).
      const ok = r.vector || !r.resolutions || r.resolutions.includes(res);
      const needsSquare = r.squareOnly3k && res === '3k';
      gen.push([`${model} ${res} square`, { model, resolution: res, imageSize: 'square' }, ok ? null : /resolution/]);
      if (needsSquare) gen.push([`${model} 3k landscape`, { model, resolution: res, imageSize: 'landscape_16_9' }, /3k.*square/]);
    }
    gen.push([`${model} quality high`, { model, quality: 'high' }, r.qualities ? null : /quality/]);
    gen.push([`${model} quality max`, { model, quality: 'max' }, r.qualities?.includes('max') ? null : /quality/]);
    gen.push([`${model} controls`, { model, controls: { colors: [{ rgb: [1, 2, 3] }] } }, r.vector ? null : /controls/]);
  }
  gen.push(['quality auto', { model: 'gpt-image-2', quality: 'auto' }, /auto/]);
  gen.push(['flux transfer without image', { model: 'flux', style: 'transfer' }, /image_url/]);
  gen.push(['flux transparent', { model: 'flux', style: 'transparent' }, null]);
  gen.push(['flux unknown style', { model: 'flux', style: 'neon' }, /style/]);
  gen.push(['13 colours', { model: 'recraftv4_1_vector', controls: { colors: Array.from({ length: 13 }, () => ({ rgb: [1, 2, 3] })) } }, /12/]);
  gen.push(['12 colours', { model: 'recraftv4_1_vector', controls: { colors: Array.from({ length: 12 }, () => ({ rgb: [1, 2, 3] })), backgroundColor: { rgb: [0, 0, 0] } } }, null]);
  gen.push(['bad size', { imageSize: 'panorama' }, /image_size/]);
  gen.push(['unknown model', { model: 'dall-e' }, /model/]);

  it.each(gen)('generate: %s', (_name, req, err) => {
    const p = creative.previewImageJob({ kind: 'generate', request: { prompt: 'a red fox', ...req } });
    if (err) {
      expect(p.ok).toBe(false);
      expect(p.error!.message).toMatch(err);
    } else expect(p.ok, p.error?.message).toBe(true);
  });

  const edit: Case[] = [];
  for (const [model, r] of Object.entries(EDIT_MODELS)) {
    edit.push([`${model} max images`, { model, n: r.maxImages }, null]);
    edit.push([`${model} one too many`, { model, n: r.maxImages! + 1 }, /image_urls/]);
  }
  edit.push(['grok alias', { model: 'grok', n: 3 }, null]);
  edit.push(['ratio 0.5', { megapixelRatio: 0.5, n: 1 }, null]);
  edit.push(['ratio 1.5', { megapixelRatio: 1.5, n: 1 }, null]);
  edit.push(['ratio 1.6', { megapixelRatio: 1.6, n: 1 }, /megapixel_ratio/]);
  edit.push(['ratio 0.4', { megapixelRatio: 0.4, n: 1 }, /megapixel_ratio/]);
  edit.push(['quality on flux2', { quality: 'low', n: 1 }, /quality/]);
  edit.push(['gpt 3k portrait', { model: 'gpt-image-2', resolution: '3k', imageSize: 'portrait_4_3', n: 1 }, /square/]);
  edit.push(['wan2.7-pro 4k', { model: 'wan2.7-pro', resolution: '4k', n: 1 }, /resolution/]);

  it.each(edit)('edit: %s', (_name, req, err) => {
    const { n, ...rest } = req as { n: number };
    const p = creative.previewImageJob({ kind: 'edit', request: { prompt: 'make it blue', sources: Array.from({ length: n }, () => ({ path: portrait })), ...rest } });
    if (err) {
      expect(p.ok).toBe(false);
      expect(p.error!.message).toMatch(err);
    } else expect(p.ok, p.error?.message).toBe(true);
  });

  it('notes the per-source cost of GPT image models and exposes the rules for the form', () => {
    const p = creative.previewImageJob({ kind: 'edit', request: { prompt: 'x', model: 'gpt-image-2', sources: [{ path: portrait }, { path: portrait }] } });
    expect(p.costNotes.join(' ')).toMatch(/\$0\.02 per source image.*\$0\.04/);
    const rules = modelRules();
    const gpt = rules.generate.find((m) => m.model === 'gpt-image-2')!;
    expect(gpt).toMatchObject({ resolutions: ['1k', '2k', '3k'], squareOnly3k: true, qualities: ['low', 'medium', 'high'] });
    expect(rules.generate.find((m) => m.model === 'zimage')!.qualities).toBeNull();
    expect(rules.generate.find((m) => m.model === 'flux')!.stylesNeedingImage).toEqual(['transfer']);
    expect(rules.edit.find((m) => m.model === 'flux2')!.maxImages).toBe(5);
    expect(rules.maxControlColors).toBe(12);
    expect(rules.megapixelRatio).toEqual({ min: 0.5, max: 1.5 });
  });
});

describe('generated and edited images', () => {
  let generated: CreativeTaskView;

  it('lands a generated PNG in the library with the prompt and DigitalSourceType in the file', async () => {
    const task = await creative.startGenerate({ prompt: 'A lighthouse at dawn', model: 'gpt-image-2', quality: 'low', resolution: '1k', seed: 42 });
    generated = await finished(task.id);
    expect(generated.status, generated.error ?? '').toBe('done');
    expect(generated.resultPath!.endsWith('.png')).toBe(true);
    const et = new ExifTool({ maxProcs: 1 });
    try {
      const tags = (await et.readRaw(generated.resultPath!, ['-XMP:all', '-G1'])) as Record<string, unknown>;
      expect(tags['XMP-iptcExt:DigitalSourceType']).toBe('http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia');
      expect(tags['XMP-dc:Description']).toBe('A lighthouse at dawn');
    } finally {
      await et.end();
    }
    const asset = getAssetRow(ctx, generated.resultAssetId!)!;
    expect(asset.kind).toBe('image');
    expect(asset.caption).toBe('A lighthouse at dawn');
    expect(creative.creationOf(asset.id)!.params).toMatchObject({ model: 'gpt-image-2', seed: 42 });
  });

  it('edits a library image (sent as a prepared Data URI) into a new asset that records its source', async () => {
    const task = await creative.startEdit({ prompt: 'Add a storm', sources: [{ assetId: generated.resultAssetId! }], model: 'flux2' });
    const done = await finished(task.id);
    expect(done.status, done.error ?? '').toBe('done');
    expect(done.sourceAssetIds).toEqual([generated.resultAssetId]);
    expect(done.resultAssetId).not.toBe(generated.resultAssetId);
    expect(getAssetRow(ctx, done.resultAssetId!)!.caption).toBe('Add a storm');
  });
});

describe('lipsync and face swap', () => {
  it('refuses inputs of the wrong type before sending, naming the rule', async () => {
    const before = sim.log.length;
    await expect(creative.startLipsync({ mode: 'image', audio: { path: portrait }, image: { path: portrait } })).rejects.toThrow(/audio must be MP3, WAV/);
    expect(sim.log.length).toBe(before);
  });

  it('turns a portrait and a speech result into an MP4 asset', async () => {
    const speech = creative.list({ kind: 'speech' }).find((t) => t.status === 'done' && t.resultAssetId)!;
    const task = await creative.startLipsync({ mode: 'image', audio: { assetId: speech.resultAssetId! }, image: { path: portrait }, resolution: '360p' });
    const done = await finished(task.id);
    expect(done.status, done.error ?? '').toBe('done');
    expect(done.resultPath!.endsWith('.mp4')).toBe(true);
    expect(getAssetRow(ctx, done.resultAssetId!)!.kind).toBe('video');
    expect(done.sourceAssetIds).toEqual([speech.resultAssetId]);
  });

  it('swaps a face through the imageswap endpoints', async () => {
    const task = await creative.startFaceSwap({ source: { path: portrait }, target: { path: portrait } });
    const done = await finished(task.id);
    expect(done.status, done.error ?? '').toBe('done');
    expect(getAssetRow(ctx, done.resultAssetId!)!.kind).toBe('image');
    expect(sim.log.some((e) => e.path === '/v1/imageswap/status')).toBe(true);
  });
});

describe('Gemini edit reference roles (issue 15)', () => {
  const src = (n: number) => Array.from({ length: n }, () => ({ path: portrait }));
  const preview = (model: string, roles: ('object' | 'character' | 'style')[]) =>
    creative.previewImageJob({ kind: 'edit', request: { prompt: 'p', model, sources: src(roles.length), sourceRoles: roles } });

  it('the forms learn the per-role caps; previews check them and name the cap', () => {
    const rules = modelRules().edit;
    expect(rules.find((r) => r.model === 'gemini-3.1-flash')!.referenceCaps).toEqual({ object: 10, character: 4 });
    expect(rules.find((r) => r.model === 'gemini-3-pro')!.referenceCaps).toEqual({ object: 6, character: 5, style: 3 });
    expect(rules.find((r) => r.model === 'flux2')!.referenceCaps).toBeNull();
    expect(preview('gemini-3.1-flash', ['character', 'character', 'character', 'character', 'object'])).toMatchObject({ ok: true });
    expect(preview('gemini-3.1-flash', Array(5).fill('character'))).toMatchObject({ ok: false, error: { field: 'sourceRoles', message: expect.stringMatching(/at most 4 character references \(5 marked\)/) } });
    expect(preview('gemini-3.1-flash', ['style'])).toMatchObject({ ok: false, error: { field: 'sourceRoles', message: expect.stringMatching(/no style references/) } });
    expect(preview('gemini-3-pro', Array(7).fill('object'))).toMatchObject({ ok: false, error: { message: expect.stringMatching(/at most 6 object/) } });
    expect(preview('gemini-3-pro', ['style', 'style', 'style', 'style'])).toMatchObject({ ok: false, error: { message: expect.stringMatching(/at most 3 style/) } });
    expect(preview('gemini-3-pro', ['style', 'character', 'object'])).toMatchObject({ ok: true, notes: expect.arrayContaining([expect.stringMatching(/role order.*1 object, 1 character, 1 style/)]) });
    expect(preview('flux2', ['object'])).toMatchObject({ ok: false, error: { message: expect.stringMatching(/takes no reference roles/) } });
  });

  it('an edit with roles is refused before sending when a cap is broken, and sent in role order when not', async () => {
    const before = sim.log.filter((e) => e.path === '/v1/image_edit').length;
    await expect(creative.startEdit({ prompt: 'p', model: 'gemini-3.1-flash', sources: src(5), sourceRoles: Array(5).fill('character') })).rejects.toMatchObject({ field: 'sourceRoles' });
    expect(sim.log.filter((e) => e.path === '/v1/image_edit').length).toBe(before);
    const t = await creative.startEdit({ prompt: 'the person from the second picture in the first', model: 'gemini-3-pro', sources: src(2), sourceRoles: ['character', 'object'] });
    const done = await finished(t.id);
    expect(done.status, done.error ?? '').toBe('done');
    expect(done.params.sourceRoles).toEqual(['character', 'object']);
  });
});

describe('deadlines, unknown states, unconfirmed cancels (issue 15)', () => {
  const MIN = 60_000;
  it('budgets come from the interface\'s typical times: TTS ~1 min per minute of audio, lipsync ~10 min per minute of video', () => {
    expect(budgetFor('tts', { speechChars: 9000 })).toBe(30 * MIN); // ~10 min of audio, 3x
    expect(budgetFor('tts', { speechChars: 100 })).toBe(10 * MIN); // the floor
    expect(budgetFor('videoLipsync', { mediaS: 120 })).toBe(60 * MIN); // 2 min of video -> 20 min typical, 3x
    expect(budgetFor('videoFaceSwap', { mediaS: 30 })).toBe(15 * MIN);
    expect(budgetFor('imageGenerate')).toBe(10 * MIN);
  });

  it('a task past its deadline shows "taking unusually long" with keep waiting; cancel still works', async () => {
    sim.inject({ kind: 'slowTask', path: '/v1/image_generate', ms: 600_000, count: 1 });
    const t = await creative.startGenerate({ prompt: 'a very slow picture' });
    await until(() => creative.view(t.id).status === 'started');
    const started = creative.view(t.id);
    expect(started.attention).toBeNull();
    expect(started.deadlineAt).toBeGreaterThan(Date.now());
    clockAhead += 11 * MIN;
    try {
      const late = creative.view(t.id);
      expect(late.attention).toMatchObject({ kind: 'slow', message: expect.stringMatching(/unusually long.*10 min.*keep waiting/i) });
      expect(late.status).toBe('started'); // nothing stopped: the user decides
      const waited = creative.keepWaiting(t.id);
      expect(waited.attention).toBeNull();
      expect(waited.deadlineAt).toBeGreaterThan(Date.now() + clockAhead);
      clockAhead += 11 * MIN;
      expect(creative.view(t.id).attention?.kind).toBe('slow');
      creative.cancel(t.id);
      const done = await finished(t.id);
      expect(done.status).toBe('cancelled');
      expect(done.attention).toBeNull();
      expect(sim.tasks().find((x) => x.task_id === done.parts[0].remoteTaskId)?.status).toBe('REVOKED');
    } finally {
      clockAhead = 0;
    }
  });

  it('a status outside the interface\'s five is shown as an unknown state, and the task goes on when it moves', async () => {
    sim.inject({ kind: 'oddStatus', path: '/v1/status', message: 'PAUSED_BY_OPERATOR' });
    try {
      const t = await creative.startGenerate({ prompt: 'an odd state' });
      const odd = await until(() => {
        const v = creative.view(t.id);
        return v.attention?.kind === 'unknown_state' ? v : null;
      });
      expect(odd.attention!.message).toContain('PAUSED_BY_OPERATOR');
      expect(odd.canCancel).toBe(true);
      sim.clearFaults();
      expect((await finished(t.id)).status).toBe('done');
    } finally {
      sim.clearFaults();
    }
  });

  it('a cancel the service does not confirm says so: it may still run and bill the task', async () => {
    sim.inject({ kind: 'slowTask', path: '/v1/image_generate', ms: 600_000, count: 1 });
    sim.inject({ kind: '5xx', status: 503, path: /^\/v1\/tasks\// });
    try {
      const t = await creative.startGenerate({ prompt: 'cannot be stopped' });
      await until(() => creative.view(t.id).status === 'started');
      creative.cancel(t.id);
      const done = await finished(t.id);
      expect(done.status).toBe('cancelled');
      expect(done.attention).toMatchObject({ kind: 'cancel_unconfirmed', message: expect.stringContaining('Cancel not confirmed — the service may still run and bill it') });
      expect(sim.tasks().find((x) => x.task_id === done.parts[0].remoteTaskId)?.status).toBe('STARTED');
    } finally {
      sim.clearFaults();
    }
  });
});

describe('downloads', () => {
  it('a failed download is fetched again without a new billed task', async () => {
    // The result file is missing when first fetched (404), then available again.
    const files = sim.files;
    const held = new Map<string, { mime: string; data: Buffer }>();
    const realSet = files.set.bind(files);
    files.set = (k, v) => { held.set(k, v); return files; };
    let task: CreativeTaskView;
    try {
      task = creative.startSpeech({ voice: 'Klaus', text: 'Guten Tag.' });
      const failed = await finished(task.id);
      expect(failed.status).toBe('download_failed');
      expect(failed.canRefetch).toBe(true);
    } finally {
      files.set = realSet;
    }
    for (const [k, v] of held) files.set(k, v);
    const before = JSON.stringify(sim.billed());
    const done = await creative.refetch(task.id);
    expect(done.status, done.error ?? '').toBe('done');
    expect((await stat(done.resultPath!)).size).toBeGreaterThan(44);
    expect(JSON.stringify(sim.billed())).toBe(before);
  });
});
