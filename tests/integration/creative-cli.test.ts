import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import sharp from 'sharp';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tagsmith, type CliRun } from '../helpers/cli';
import { startSimulator, type Simulator } from '../simulator/index.js';

// `tagsmith voices | speak | generate | tasks | search` as child processes against the simulator.

const creds = { clientId: 'cli-creative', clientSecret: 'cli-creative-secret' };
let sim: Simulator;
let root: string;
let library: string;

const cli = (args: string[]): Promise<CliRun> => tagsmith(library, args, { serviceUrl: sim.url, creds });

beforeAll(async () => {
  sim = await startSimulator({ port: 0, accounts: [creds], taskClock: { pendingMs: 40, startedMs: 80 } });
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tagsmith-cli-creative-')));
  library = join(root, 'lib');
});

afterAll(async () => {
  await sim.close();
  await rm(root, { recursive: true, force: true });
});

interface TaskJson { task: number; status: string; path: string; assetId: number }

describe('creative CLI', () => {
  it('voices --lang filters the cached list', async () => {
    const r = await cli(['voices', '--lang', 'spa', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json<{ voices: { apiName: string }[] }>().voices.map((v) => v.apiName).sort()).toEqual(['Eric', 'Lucia']);
  });

  it('speak and generate wait for their results, which search finds as library assets; tasks lists them', async () => {
    const s = await cli(['speak', '--voice', 'Ryan', '--text', 'Hello from the command line.', '--json']);
    expect(s.code, s.stderr).toBe(0);
    const speech = s.json<TaskJson>();
    expect(speech).toMatchObject({ status: 'done' });
    expect(speech.path.startsWith(join(library, 'Creations'))).toBe(true);
    expect(speech.assetId).toBeGreaterThan(0);

    const g = await cli(['generate', '--prompt', 'a quiet harbour', '--model', 'gpt-image-2', '--quality', 'low', '--seed', '7', '--json']);
    expect(g.code, g.stderr).toBe(0);
    expect(g.json<TaskJson>()).toMatchObject({ status: 'done' });

    const bad = await cli(['generate', '--prompt', 'x', '--model', 'zimage', '--quality', 'high', '--json']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/quality/);

    const audio = await cli(['search', '--type', 'audio', '--json']);
    expect(audio.code, audio.stderr).toBe(0);
    expect(audio.stdout).toContain(speech.path);
    const images = await cli(['search', 'harbour', '--type', 'image', '--json']);
    expect(images.stdout).toContain('Creations');

    const t = await cli(['tasks', '--json']);
    expect(t.code, t.stderr).toBe(0);
    const list = t.json<{ tasks: TaskJson[] }>().tasks;
    expect(list.map((x) => x.status)).toEqual(['done', 'done']);
    // speak and generate keep their fields and add the tasks array of vectorize and swap
    expect(speech).toMatchObject({ tasks: [{ taskId: speech.task, status: 'done', result: { path: speech.path } }] });
  });
});

interface TasksJson { tasks: { taskId: number | null; status: string; result: { path: string } | null; error?: string }[] }

describe('vectorize, swap, edit options (issue 15)', () => {
  let pics: string;
  beforeAll(async () => {
    pics = join(root, 'pics');
    mkdirSync(pics, { recursive: true });
    await sharp({ create: { width: 320, height: 240, channels: 3, background: '#2f6fe0' } }).png().toFile(join(pics, 'logo.png'));
    await sharp({ create: { width: 200, height: 260, channels: 3, background: '#c08060' } })
      .composite([{ input: { create: { width: 60, height: 80, channels: 3, background: '#ff00ff' } }, left: 70, top: 60 }]).jpeg().toFile(join(pics, 'face.jpg'));
    await sharp({ create: { width: 400, height: 300, channels: 3, background: '#6a8a4a' } }).jpeg().toFile(join(pics, 'portrait.jpg'));
    execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'color=c=0x2f6fe0:size=160x120:rate=5:duration=1', '-pix_fmt', 'yuv420p', '-y', join(pics, 'clip.mp4')]);
    const idx = await cli(['index', pics, '--json']);
    expect(idx.code, idx.stderr).toBe(0);
  });

  it('vectorize IMAGE... waits and prints {tasks} with the indexed SVG; a file it cannot take does not stop the rest', async () => {
    const r = await cli(['vectorize', join(pics, 'logo.png'), join(pics, 'clip.mp4'), '--json']);
    expect(r.code).toBe(1);
    const { tasks } = r.json<TasksJson>();
    expect(tasks).toHaveLength(2);
    const [svg, refused] = tasks;
    expect(svg).toMatchObject({ taskId: expect.any(Number), status: 'done', result: { path: expect.stringMatching(/\.svg$/) } });
    expect(svg.result!.path.startsWith(join(library, 'Creations'))).toBe(true);
    expect(refused).toMatchObject({ taskId: null, status: 'failed', result: null, error: expect.stringMatching(/JPEG, PNG or WebP/) });
    // an asset of the library, with provenance in the file and the link to its source
    const found = await cli(['search', '--type', 'image', '--json']);
    expect(found.stdout).toContain(svg.result!.path);
    // exiftool reads the XMP in the SVG's <metadata> (its names for XMP inside SVG: SvgMetadata*)
    const tags = JSON.parse(execFileSync('exiftool', ['-j', svg.result!.path]).toString())[0];
    expect(tags.SvgMetadataDescription).toBe('Vectorized from logo.png');
    expect(tags.SvgMetadataDigitalSourceType).toMatch(/trainedAlgorithmicMedia/);
    expect(tags.SvgMetadataCreatorTool).toMatch(/image_vectorize/);
    expect(readFileSync(svg.result!.path, 'utf8')).toContain('<svg');
    expect(sim.billed()[creds.clientId].image_vectorize).toBe(1);
  });

  it('vectorize --no-wait queues and returns at once; tasks --json shows the same state', async () => {
    const r = await cli(['vectorize', join(pics, 'logo.png'), '--no-wait', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const [t] = r.json<TasksJson>().tasks;
    expect(t).toMatchObject({ taskId: expect.any(Number), status: 'waiting', result: null });
    const list = (await cli(['tasks', '--json'])).json<{ tasks: { task: number; status: string }[] }>().tasks;
    expect(list.find((x) => x.task === t.taskId)?.status).toBe('waiting');
  });

  it('swap --donor --target IMAGE: image face swap into the library', async () => {
    const r = await cli(['swap', '--donor', join(pics, 'face.jpg'), '--target', join(pics, 'portrait.jpg'), '--json']);
    expect(r.code, r.stderr).toBe(0);
    const [t] = r.json<TasksJson>().tasks;
    expect(t).toMatchObject({ status: 'done', result: { path: expect.stringMatching(/\.png$/) } });
    expect((await sharp(t.result!.path).metadata()).width).toBe(400);
    expect(sim.log.some((e) => e.path === '/v1/imageswap' && e.status === 200)).toBe(true);
  });

  it('swap --donor --target VIDEO: video face swap (/v1/videoswap) into the library', async () => {
    const r = await cli(['swap', '--donor', join(pics, 'face.jpg'), '--target', join(pics, 'clip.mp4'), '--json']);
    expect(r.code, r.stderr).toBe(0);
    const [t] = r.json<TasksJson>().tasks;
    expect(t).toMatchObject({ status: 'done', result: { path: expect.stringMatching(/\.mp4$/) } });
    const found = await cli(['search', '--type', 'video', '--json']);
    expect(found.stdout).toContain(t.result!.path);
    expect(sim.billed()[creds.clientId].videoswap).toBe(1);
  });

  it('edit takes --quality and --megapixel-ratio; generate takes vector colours', async () => {
    const e = await cli(['edit', '--prompt', 'warmer', join(pics, 'portrait.jpg'), '--model', 'gpt-image-2', '--quality', 'low', '--megapixel-ratio', '0.5', '--json']);
    expect(e.code, e.stderr).toBe(0);
    expect(e.json<{ status: string; tasks: unknown[] }>()).toMatchObject({ status: 'done', tasks: [{ status: 'done' }] });
    const bad = await cli(['edit', '--prompt', 'x', join(pics, 'portrait.jpg'), '--megapixel-ratio', '2', '--json']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/megapixel-ratio/);
    const g = await cli(['generate', '--prompt', 'a logo', '--model', 'recraftv4_1_vector', '--color', '200,30,30:0.5', '--color', '20,20,200', '--background', '255,255,255', '--json']);
    expect(g.code, g.stderr).toBe(0);
    expect(g.json<{ path: string }>().path).toMatch(/\.svg$/);
    expect(readFileSync(g.json<{ path: string }>().path, 'utf8')).toContain('rgb(200,30,30)');
  });
});

describe('task control from the command line (issue 32)', () => {
  const creates = (): number => sim.log.filter((e) => e.path === '/v1/image_generate' && e.method === 'POST').length;

  it('--wait-s stops waiting and says how to follow the task; tasks cancel reaches the service', async () => {
    sim.inject({ kind: 'slowTask', path: '/v1/image_generate', ms: 600_000, count: 1 });
    const before = creates();
    const g = await cli(['generate', '--prompt', 'a very slow picture', '--wait-s', '1', '--json']);
    expect(g.stderr).toMatch(/still running at the service .*tagsmith tasks fetch \d+/);
    const id = g.json<TaskJson>().task;
    expect(creates()).toBe(before + 1);
    const c = await cli(['tasks', 'cancel', String(id), '--json']);
    expect(c.code, c.stderr).toBe(0);
    const remote = c.json<{ tasks: { status: string; remoteTaskIds: string[] }[] }>().tasks[0];
    expect(remote.status).toBe('cancelled');
    expect(sim.tasks().find((t) => t.task_id === remote.remoteTaskIds[0])?.status).toBe('REVOKED');
    expect(sim.log.filter((e) => e.method === 'DELETE' && e.path === `/v1/tasks/${remote.remoteTaskIds[0]}`).length).toBe(1);
    expect(creates()).toBe(before + 1);
  });

  it('an unreadable answer: the command says so in one line, and tasks fetch lands the result without a new create', async () => {
    sim.inject({ kind: 'garbled', path: '/v1/image_generate', count: 1, message: '{"data":{"id":"{task_id}"}}' });
    const before = creates();
    const g = await cli(['generate', '--prompt', 'answered oddly', '--json']);
    expect(g.code).toBe(1);
    const t = g.json<TaskJson & { error: string }>();
    expect(t.status).toBe('unknown');
    expect(t.error).toMatch(/^Answered, unreadable/);
    const r = await cli(['tasks', 'retry', String(t.task)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--bill-again/);
    const f = await cli(['tasks', 'fetch', String(t.task), '--json']);
    expect(f.code, f.stderr).toBe(0);
    expect(f.json<{ tasks: { status: string; path: string }[] }>().tasks[0]).toMatchObject({ status: 'done' });
    expect(creates()).toBe(before + 1);
  });

  it('a field the service refuses reads with the name the app gives it, never the parameter name; --json keeps its shape (issue 35)', async () => {
    const weights = 'https://example.com/weights.safetensors';
    sim.inject({ kind: 'fieldError', path: '/v1/image_generate', field: 'lora_url', message: 'must point to a .safetensors file the service can reach', count: 1 });
    const text = await cli(['generate', '--prompt', 'a harbour with weights', '--model', 'flux', '--lora-url', weights]);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain('LoRA weights URL: must point to a .safetensors file the service can reach (the service refused the request)');
    expect(text.stdout + text.stderr).not.toMatch(/lora_url/);

    sim.inject({ kind: 'fieldError', path: '/v1/image_generate', field: 'lora_url', message: 'must point to a .safetensors file the service can reach', count: 1 });
    const json = await cli(['generate', '--prompt', 'a harbour with weights', '--model', 'flux', '--lora-url', weights, '--json']);
    expect(json.code).toBe(1);
    const t = json.json<Record<string, unknown>>();
    expect(Object.keys(t).sort()).toEqual(['assetId', 'error', 'eta', 'kind', 'path', 'queue', 'remoteTaskIds', 'status', 'task', 'tasks']);
    expect(t).toMatchObject({ status: 'failed', tasks: [{ status: 'failed', result: null }] });
  });

  it('401, 429 and 502 from voices: exit 1 with one clear line, no stack trace', async () => {
    const wrong = await tagsmith(library, ['voices', '--refresh'], { serviceUrl: sim.url, creds: { clientId: 'cli-creative', clientSecret: 'wrong' } });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/did not accept the Client ID and Secret/);
    expect(wrong.stderr).not.toMatch(/\n\s+at /);
    for (const kind of ['quota', '502'] as const) {
      sim.inject({ kind, path: '/v1/tts/voices', count: 1 });
      const r = await cli(['voices', '--refresh']);
      expect(r.code, kind).toBe(1);
      expect(r.stderr.trim().split('\n').length, r.stderr).toBe(1);
      expect(r.stderr).not.toMatch(/\n\s+at |unexpected error/);
    }
  });
});
