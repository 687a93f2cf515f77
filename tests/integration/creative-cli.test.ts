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
