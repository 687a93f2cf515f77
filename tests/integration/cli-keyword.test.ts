import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExifTool } from 'exiftool-vendored';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tagsmith, type CliRun } from '../helpers/cli';
import { startSimulator, type Simulator } from '../simulator/index.js';

// `tagsmith keyword | caption (AI) | export` as scripts use them: real child processes
// (`node bin/tagsmith.js --library DIR --service-url URL ...`), credentials from the
// environment, the simulator on loopback, a generated tree indexed by `tagsmith index`.

const creds = { clientId: 'cli-kw', clientSecret: 'cli-kw-secret' };
let sim: Simulator;
let root: string;
let photos: string;
let library: string;

// Asynchronous: the simulator answers from this very process.
const cli = (args: string[], opts: { creds?: boolean } = {}): Promise<CliRun> =>
  tagsmith(library, args, { serviceUrl: sim.url, creds: opts.creds === false ? { clientId: '', clientSecret: '' } : creds });

const p = (name: string): string => join(photos, name);
const keywordCalls = (): number => sim.log.filter((e) => e.path === '/v1/keywords').length;

interface KeywordJson {
  run: number;
  billable: number;
  cached: number;
  assets: { path: string; suggestions: { keyword: string; score: number }[]; accepted: string[]; keywords: string[]; error?: string }[];
}

beforeAll(async () => {
  sim = await startSimulator({ port: 0, accounts: [creds] });
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tagsmith-cli-kw-')));
  photos = join(root, 'photos');
  library = join(root, 'lib');
  mkdirSync(photos, { recursive: true });
  const colours = { 'sea.jpg': '#2f6fe0', 'grass.jpg': '#2ea83a', 'brick.jpg': '#d03a2a' };
  for (const [name, c] of Object.entries(colours)) {
    // With an EXIF block, as camera files have (see the report: a JPEG without one fails the writer's read-back check).
    await sharp({ create: { width: 480, height: 320, channels: 3, background: c } }).jpeg().withMetadata({ orientation: 1 }).toFile(p(name));
  }
  writeFileSync(p('broken.jpg'), Buffer.from('not a jpeg at all'));
  const idx = await cli(['index', photos, '--json']);
  expect(idx.code, idx.stderr).toBe(0);
});

afterAll(async () => {
  await sim.close();
  await rm(root, { recursive: true, force: true });
});

describe('tagsmith keyword', () => {
  it('keywords files through the queue, accepts above a score, and prints the contract JSON', async () => {
    const before = keywordCalls();
    const r = await cli(['keyword', p('sea.jpg'), p('grass.jpg'), '--num', '8', '--accept-above', '0.3', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = r.json<KeywordJson>();
    expect(out).toMatchObject({ run: expect.any(Number), billable: 2, cached: 0 });
    expect(keywordCalls() - before).toBe(2);
    expect(out.assets.map((a) => a.path)).toEqual([p('sea.jpg'), p('grass.jpg')]);
    for (const a of out.assets) {
      expect(Object.keys(a).sort()).toEqual(['accepted', 'keywords', 'path', 'suggestions']);
      expect(a.suggestions.length).toBeGreaterThan(0);
      expect(a.suggestions.length).toBeLessThanOrEqual(8);
      const scores = a.suggestions.map((s) => s.score);
      expect(scores).toEqual([...scores].sort((x, y) => y - x));
      expect(a.accepted).toEqual(a.suggestions.filter((s) => s.score >= 0.3).map((s) => s.keyword));
      expect(a.keywords).toEqual(a.accepted);
    }
    // `show` lists the accepted keywords in the order they will be written.
    const show = await cli(['show', p('sea.jpg'), '--json']);
    expect(show.json<{ keywords: string[] }>().keywords).toEqual(out.assets[0].keywords);
  });

  it('makes zero service calls for pictures already analysed', async () => {
    const calls = sim.log.length;
    const again = await cli(['keyword', p('sea.jpg'), p('grass.jpg'), '--num', '8', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.json<KeywordJson>()).toMatchObject({ billable: 0 });
    // Suggestions of the earlier run are shown for review.
    expect(again.json<KeywordJson>().assets[0].suggestions.length).toBeGreaterThan(0);
    const forced = await cli(['keyword', p('sea.jpg'), p('grass.jpg'), '--num', '8', '--force', '--json']);
    expect(forced.json<KeywordJson>()).toMatchObject({ billable: 0, cached: 2 });
    expect(sim.log.length).toBe(calls);
  });

  it('exits 0 with a per-file error when one file cannot be analysed; other languages are separate calls', async () => {
    const r = await cli(['keyword', p('brick.jpg'), p('broken.jpg'), '--lang', 'de', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const [brick, broken] = r.json<KeywordJson>().assets;
    expect(brick.error).toBeUndefined();
    expect(brick.suggestions.length).toBeGreaterThan(0);
    expect(broken.error).toBeTruthy();
    expect(broken.suggestions).toEqual([]);
  });

  it('selects by --query, and refuses bad arguments (exit 2) and a run without credentials (exit 1, nothing sent)', async () => {
    const q = await cli(['keyword', '--query', 'grass', '--json']);
    expect(q.code, q.stderr).toBe(0);
    expect(q.json<KeywordJson>().assets.map((a) => a.path)).toEqual([p('grass.jpg')]);
    expect((await cli(['keyword', '--json'])).code).toBe(2);
    expect((await cli(['keyword', p('sea.jpg'), '--lang', 'xx'])).code).toBe(2);
    expect((await cli(['keyword', p('sea.jpg'), '--accept-above', '2'])).code).toBe(2);
    const calls = sim.log.length;
    const nocreds = await cli(['keyword', p('sea.jpg'), '--lang', 'it', '--json'], { creds: false });
    expect(nocreds.code).toBe(1);
    expect(nocreds.stderr).toMatch(/No service credentials.*Nothing was sent/);
    expect(sim.log.length).toBe(calls);
    expect((await cli(['keyword', '--query', 'nothing-matches-this'])).code).toBe(1);
  });
});

describe('tagsmith caption (AI) and export', () => {
  it('suggests captions of the asked length for review; --accept makes them the captions; --set still works', async () => {
    const r = await cli(['caption', p('sea.jpg'), '--length', 'short', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = r.json<{ run: number; assets: { path: string; caption: string; accepted: boolean }[] }>();
    expect(out.run).toEqual(expect.any(Number));
    expect(out.assets).toEqual([expect.objectContaining({ path: p('sea.jpg'), accepted: false })]);
    const words = out.assets[0].caption.split(/\s+/).length;
    expect(words).toBeGreaterThanOrEqual(3);
    expect(words).toBeLessThanOrEqual(6);
    expect((await cli(['show', p('sea.jpg'), '--json'])).json<{ caption: string | null }>().caption).toBeNull();

    const accepted = await cli(['caption', p('sea.jpg'), '--length', 'short', '--accept', '--json']);
    expect(accepted.json()).toMatchObject({ billable: 0, assets: [{ caption: out.assets[0].caption, accepted: true }] });
    expect((await cli(['show', p('sea.jpg'), '--json'])).json<{ caption: string | null }>().caption).toBe(out.assets[0].caption);

    const long = await cli(['caption', p('sea.jpg'), '--length', 'long', '--json']);
    expect(long.json<{ assets: { caption: string }[] }>().assets[0].caption.split(/\s+/).length).toBeGreaterThan(12);
    const manual = await cli(['caption', p('grass.jpg'), '--set', 'Green field', '--json']);
    expect(manual.json()).toMatchObject({ updated: 1, assets: [{ caption: 'Green field' }] });
    expect((await cli(['caption', p('grass.jpg'), '--set', 'x', '--length', 'short'])).code).toBe(2);
  });

  it('exports an agency CSV with keywords in order, and writes the files', async () => {
    expect((await cli(['tag', p('brick.jpg'), '--add', 'wall,Red,Brick, texture'])).code).toBe(0);
    expect((await cli(['caption', p('brick.jpg'), '--set', 'A red brick wall, close up'])).code).toBe(0);
    const csv = join(root, 'adobe.csv');
    // The small test photo and its comma'd caption fail Adobe Stock's rules: held back, then forced.
    const held = await cli(['export', p('brick.jpg'), '--csv', csv, '--agency', 'adobe', '--json']);
    expect(held.json()).toMatchObject({ csv, agency: 'adobe', rows: 0, heldBack: [p('brick.jpg')] });
    const r = await cli(['export', p('brick.jpg'), '--csv', csv, '--agency', 'adobe', '--force', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ csv, agency: 'adobe', rows: 1 });
    const brick = (await cli(['show', p('brick.jpg'), '--json'])).json<{ keywords: string[]; caption: string }>();
    expect(readFileSync(csv, 'utf8')).toBe(`Filename,Title,Keywords,Category,Releases\r\nbrick.jpg,"A red brick wall, close up","${brick.keywords.join(',')}",,\r\n`);

    const w = await cli(['export', p('brick.jpg'), '--write-files', '--json']);
    expect(w.code, w.stderr).toBe(0);
    expect(w.json(), w.stdout).toMatchObject({ written: 1, failed: 0, assets: [{ path: p('brick.jpg'), status: 'written' }] });
    // The file carries exactly the library's keywords, in their order.
    const et = new ExifTool({ maxProcs: 1 });
    try {
      const tags = (await et.read(p('brick.jpg'))) as { Keywords?: string[] | string; Subject?: string[] | string; Description?: string };
      expect([tags.Keywords].flat()).toEqual(brick.keywords);
      expect([tags.Subject].flat()).toEqual(brick.keywords);
      expect(tags.Description).toBe(brick.caption);
    } finally {
      await et.end();
    }
    expect((await cli(['export', p('brick.jpg'), '--json'])).code).toBe(2);
  });
});

describe('video keywording inputs (issue 15)', () => {
  it('an MKV goes as an MP4 stream copy, a WebM as a transcoded MP4; both are keyworded; the 5-60 s recommendation is a warning', async () => {
    const vids = join(root, 'videos');
    mkdirSync(vids, { recursive: true });
    execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'color=c=0x2f6fe0:size=160x120:rate=10:duration=2', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-y', join(vids, 'clip.mkv')]);
    execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'color=c=0x2ea83a:size=160x120:rate=10:duration=2', '-c:v', 'libvpx-vp9', '-b:v', '200k', '-y', join(vids, 'clip.webm')]);
    const idx = await cli(['index', vids, '--json']);
    expect(idx.code, idx.stderr).toBe(0);
    const before = sim.log.filter((e) => e.path === '/v1/video_keywords').length;
    const r = await cli(['keyword', join(vids, 'clip.mkv'), join(vids, 'clip.webm'), '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = r.json<KeywordJson>();
    for (const a of out.assets) {
      expect(a.error, a.path).toBeUndefined();
      expect(a.suggestions.length, a.path).toBeGreaterThan(0);
    }
    expect(out.assets.find((a) => a.path.endsWith('.mkv'))!.suggestions.map((s) => s.keyword.toLowerCase())).toContain('blue');
    // warned before anything is sent: the MP4 copy and the length outside 5-60 s
    expect(r.stderr).toMatch(/clip\.mkv: MKV is not a format the service takes.*MP4 copy/);
    expect(r.stderr).toMatch(/clip\.webm: WEBM is not a format the service takes/);
    expect(r.stderr).toMatch(/clip\.mkv: The video is 2\.0 s long; the service recommends 5 to 60 s/);
    // the service saw two MP4 uploads and refused none
    const calls = sim.log.filter((e) => e.path === '/v1/video_keywords').slice(before);
    expect(calls.map((e) => e.status)).toEqual([200, 200]);
  });
});

