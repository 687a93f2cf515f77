import { mkdirSync, mkdtempSync, realpathSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tagsmith, type CliRun } from '../helpers/cli';
import { startSimulator, type Simulator } from '../simulator/index.js';

// `tagsmith quality | faces` and the search command's analysis flags as scripts use them:
// real child processes against the simulator, a generated folder indexed by `tagsmith index`.

const creds = { clientId: 'cli-an', clientSecret: 'cli-an-secret' };
let sim: Simulator;
let root: string;
let photos: string;
let library: string;

const cli = (args: string[]): Promise<CliRun> => tagsmith(library, args, { serviceUrl: sim.url, creds });

const p = (name: string): string => join(photos, name);
type Asset = { path: string; quality?: { score: number | null; ugcScore: number | null; ugcClass: number | null }; faces?: { age: number; score: number; bbox: number[]; class: string }[]; colors?: unknown[] };
const paths = (r: CliRun) => r.json<Asset[]>().map((a) => a.path).sort();

async function checker(file: string, a: string, b: string): Promise<void> {
  const w = 600;
  const h = 400;
  const cells = Array.from({ length: h / 8 }, (_, y) => Array.from({ length: w / 8 }, (_, x) => ((x + y) % 2 ? `<rect x="${x * 8}" y="${y * 8}" width="8" height="8" fill="${b}"/>` : '')).join('')).join('');
  await sharp(Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><rect width="${w}" height="${h}" fill="${a}"/>${cells}</svg>`))
    .jpeg({ quality: 95 }).withMetadata({ orientation: 1 }).toFile(file);
}

beforeAll(async () => {
  sim = await startSimulator({ port: 0, accounts: [creds] });
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tagsmith-cli-an-')));
  photos = join(root, 'photos');
  library = join(root, 'lib');
  mkdirSync(photos, { recursive: true });
  await checker(p('blue.jpg'), '#1e50c8', '#6e9bff');
  await sharp({ create: { width: 600, height: 400, channels: 3, background: '#1e50c8' } }).jpeg().withMetadata({ orientation: 1 }).toFile(p('flat.jpg'));
  const kid = `<svg xmlns="http://www.w3.org/2000/svg" width="600" height="400"><rect width="600" height="400" fill="#808080"/><rect x="300" y="100" width="120" height="120" fill="#ff00ff"/><rect x="345" y="145" width="30" height="30" fill="#ffff00"/></svg>`;
  await sharp(Buffer.from(kid)).jpeg({ quality: 95, chromaSubsampling: '4:4:4' }).withMetadata({ orientation: 1 }).toFile(p('kid.jpg'));
  const idx = await cli(['index', photos, '--json']);
  expect(idx.code, idx.stderr).toBe(0);
});

afterAll(async () => {
  await sim.close();
  await rm(root, { recursive: true, force: true });
});

describe('tagsmith quality / faces / search flags', () => {
  it('quality scores files and prints the contract JSON; a second run costs nothing', async () => {
    const r = await cli(['quality', p('blue.jpg'), p('flat.jpg'), '--yes', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = r.json<{ run: number; billable: number; cached: number; assets: Asset[] }>();
    expect(out).toMatchObject({ run: expect.any(Number), billable: 2, cached: 0 });
    expect(out.assets.map((a) => a.path)).toEqual([p('blue.jpg'), p('flat.jpg')]);
    expect(out.assets[0].quality!.score).toBeGreaterThan(0.7);
    expect(out.assets[1].quality!.score).toBeLessThan(0.5);
    expect(out.assets[0].quality).toMatchObject({ ugcScore: null, ugcClass: null });
    const again = await cli(['quality', p('blue.jpg'), p('flat.jpg'), '--json']);
    expect(again.json()).toMatchObject({ billable: 0 });

    const ugc = await cli(['quality', '--query', 'blue', '--ugc', '--json']);
    expect(ugc.code, ugc.stderr).toBe(0);
    const u = ugc.json<{ assets: Asset[] }>().assets[0];
    expect(u.quality!.ugcClass).toBe(Math.min(5, Math.floor(u.quality!.ugcScore! * 5) + 1));
    expect(u.quality!.score).toBe(out.assets[0].quality!.score);
  });

  it('faces prints normalised boxes and ages', async () => {
    const r = await cli(['faces', p('kid.jpg'), p('flat.jpg'), '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = r.json<{ billable: number; assets: (Asset & { releaseNeeded: boolean })[] }>();
    expect(out.billable).toBe(2);
    const [kid, flat] = out.assets;
    expect(kid.faces).toHaveLength(1);
    expect(kid).toMatchObject({ releaseNeeded: true, faces: [{ class: 'Age - Child' }] });
    [300 / 600, 100 / 400, 420 / 600, 220 / 400].forEach((v, i) => expect(Math.abs(kid.faces![0].bbox[i] - v)).toBeLessThan(0.015));
    expect(flat).toMatchObject({ faces: [], releaseNeeded: false });
  });

  it('search filters by quality, UGC class, faces, child and colour; show carries the measurements', async () => {
    expect(paths(await cli(['search', '--min-quality', '0.7', '--json']))).toEqual([p('blue.jpg')]);
    expect(paths(await cli(['search', '--min-quality', '0', '--json']))).toEqual([p('blue.jpg'), p('flat.jpg')]);
    const show = (await cli(['show', p('blue.jpg'), '--json'])).json<Asset>();
    const cls = show.quality!.ugcClass!;
    expect(paths(await cli(['search', '--ugc-class', String(cls), '--json']))).toEqual([p('blue.jpg')]);
    expect(paths(await cli(['search', '--ugc-class', String(cls === 1 ? 2 : 1), '--json']))).toEqual([]);
    expect(paths(await cli(['search', '--has-faces', '--json']))).toEqual([p('kid.jpg')]);
    expect(paths(await cli(['search', '--child', '--json']))).toEqual([p('kid.jpg')]);
    const kid = (await cli(['search', '--child', '--json'])).json<Asset[]>()[0];
    expect(kid.faces![0]).toEqual({ age: expect.any(Number), score: expect.any(Number), bbox: expect.any(Array), class: 'Age - Child' });
    expect(kid.quality).toBeUndefined();

    // Colours come from keywording with colors=true; the filter matches by perceptual distance.
    const kw = await cli(['keyword', p('blue.jpg'), p('kid.jpg'), '--colors', '--yes', '--json']);
    expect(kw.code, kw.stderr).toBe(0);
    expect(paths(await cli(['search', '--color', '#1e50c8', '--json']))).toEqual([p('blue.jpg')]);
    expect(paths(await cli(['search', '--color', '#1e50c8', '--min-quality', '0.7', '--json']))).toEqual([p('blue.jpg')]);
    expect(paths(await cli(['search', '--color', '#d03a2a', '--json']))).toEqual([]);
    const blue = (await cli(['show', p('blue.jpg'), '--json'])).json<Asset>();
    expect(blue.colors![0]).toEqual({ name: expect.any(String), hex: expect.stringMatching(/^#[0-9a-f]{6}$/), percentage: expect.any(Number) });
    const bad = await cli(['search', '--color', 'bluish', '--json']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--color must be a hex colour/);
    expect(await cli(['search', '--min-quality', '1.5', '--json'])).toMatchObject({ code: 2 });
  });
});
