import { existsSync, mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ExifTool } from 'exiftool-vendored';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { tagsmithSync, type CliOptions, type CliRun } from '../helpers/cli';

// The CLI as outside checks use it: a real child process, `node bin/tagsmith.js`, against a
// small generated tree and a fresh library directory.

let root: string;
let photos: string;
let library: string;

const cli = (args: string[], opts: CliOptions = {}): CliRun => tagsmithSync(null, args, { timeout: 120_000, ...opts });
const lib = (...args: string[]): CliRun => cli(['--library', library, ...args]);

async function jpeg(file: string, color: { r: number; g: number; b: number }): Promise<void> {
  await sharp({ create: { width: 320, height: 240, channels: 3, background: color } }).jpeg().toFile(file);
}

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tagsmith-cli-')));
  photos = join(root, 'photos');
  library = join(root, 'lib');
  mkdirSync(join(photos, 'sub'), { recursive: true });
  await jpeg(join(photos, 'red.jpg'), { r: 200, g: 0, b: 0 });
  await jpeg(join(photos, 'green.jpg'), { r: 0, g: 200, b: 0 });
  await jpeg(join(photos, 'sub', 'blue.jpg'), { r: 0, g: 0, b: 200 });
  const et = new ExifTool({ maxProcs: 1 });
  try {
    await et.write(
      join(photos, 'red.jpg'),
      {
        'EXIF:DateTimeOriginal': '2021:06:15 14:30:05',
        'EXIF:Make': 'Canon',
        'EXIF:Model': 'Canon EOS R5',
        'EXIF:GPSLatitude': 33.4489,
        'EXIF:GPSLatitudeRef': 'S',
        'EXIF:GPSLongitude': 70.6693,
        'EXIF:GPSLongitudeRef': 'W',
      } as never,
      { writeArgs: ['-overwrite_original'] },
    );
  } finally {
    await et.end();
  }
  // A JPEG header followed by garbage: the indexer must record it and carry on.
  writeFileSync(join(photos, 'broken.jpg'), Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(64, 7)]));
});

describe('tagsmith CLI: arguments and errors', () => {
  it('prints help and exits 0', () => {
    const r = cli(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Usage: tagsmith/);
    const t = cli(['tag', '--help']);
    expect(t.code).toBe(0);
    expect(t.stdout).toMatch(/tag PATH\.\.\./);
  });

  it('rejects bad arguments with exit 2, a one-line reason and a usage hint', () => {
    for (const args of [[], ['frobnicate'], ['search', '--bogus'], ['search', '--type', 'pdf'], ['rate', 'x.jpg', '--stars', '9'], ['tag', 'x.jpg'], ['search', '--limit', 'abc']]) {
      const r = lib(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^tagsmith: .+\n/);
    }
  });

  it('fails with exit 1 and a clear message when the library cannot be opened', () => {
    const file = join(root, 'not-a-dir');
    writeFileSync(file, 'x');
    const r = cli(['--library', file, 'folders', '--json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/cannot open the library/);
  });

  it('fails with exit 1 when indexing a path that does not exist', () => {
    const r = lib('index', join(root, 'nowhere'), '--json');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/does not exist/);
  });
});

const hasIndexer = existsSync(resolve(__dirname, '../../src-main/library/scan.ts'));

describe.runIf(hasIndexer)('tagsmith CLI: index, search, show, edits', () => {
  beforeAll(() => {
    const r = lib('--json', 'index', photos);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const summary = r.json() as { added: number; updated: number; removed: number; moved: number; errors: { path: string; reason: string }[] };
    expect(summary).toMatchObject({ added: 4, updated: 0, removed: 0, moved: 0 });
    expect(summary.errors).toHaveLength(1);
    expect(summary.errors[0].path).toBe(join(photos, 'broken.jpg'));
    expect(summary.errors[0].reason).toMatch(/\S/);
  });

  it('re-indexing an added folder (or a path inside it) rescans it', () => {
    const r = lib('index', join(photos, 'sub'), '--json');
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ added: 0, removed: 0, moved: 0 });
    const f = lib('folders', '--json');
    expect(f.json()).toEqual([expect.objectContaining({ path: photos, online: true, assetCount: 4 })]);
  });

  it('search returns every match with the documented shape', () => {
    const r = lib('search', '--json');
    expect(r.code).toBe(0);
    const list = r.json() as Record<string, unknown>[];
    expect(list.map((a) => a.path).sort()).toEqual(['broken.jpg', 'green.jpg', 'red.jpg', 'sub/blue.jpg'].map((p) => join(photos, p)).sort());
    const red = list.find((a) => a.path === join(photos, 'red.jpg'))!;
    expect(Object.keys(red).sort()).toEqual(
      ['path', 'kind', 'width', 'height', 'durationS', 'takenAt', 'cameraMake', 'cameraModel', 'gps', 'rating', 'keywords', 'caption', 'title', 'thumbnail', 'exposure'].sort(),
    );
    expect(red.exposure).toEqual({ aperture: null, shutter: null, iso: null, focalLength: null, focalLength35: null, exposureBias: null, flash: null });
    expect(red).toMatchObject({ kind: 'image', width: 320, height: 240, durationS: null, takenAt: '2021-06-15T14:30:05', cameraMake: 'Canon', cameraModel: 'Canon EOS R5', rating: 0, keywords: [] });
    const gps = red.gps as { lat: number; lon: number };
    expect(gps.lat).toBeCloseTo(-33.4489, 3);
    expect(gps.lon).toBeCloseTo(-70.6693, 3);
    for (const a of list) {
      if (a.thumbnail !== null) expect(existsSync(a.thumbnail as string)).toBe(true);
    }
    expect(red.thumbnail).toEqual(expect.any(String));
  });

  it('search filters: text, --type, --folder, --limit, --no-keywords', () => {
    expect((lib('search', 'gre', '--json').json() as { path: string }[]).map((a) => a.path)).toEqual([join(photos, 'green.jpg')]);
    expect(lib('search', '--type', 'video', '--json').json()).toEqual([]);
    expect((lib('search', '--folder', join(photos, 'sub'), '--json').json() as { path: string }[]).map((a) => a.path)).toEqual([join(photos, 'sub', 'blue.jpg')]);
    expect(lib('search', '--limit', '2', '--json').json()).toHaveLength(2);
    const r = lib('search', '--folder', join(root, 'elsewhere'), '--json');
    expect(r.code).toBe(1);
  });

  it('show gives one asset plus its errors; an unknown path exits 1', () => {
    const ok = lib('show', join(photos, 'red.jpg'), '--json');
    expect(ok.code).toBe(0);
    expect(ok.json()).toMatchObject({ path: join(photos, 'red.jpg'), errors: [] });
    const broken = lib('show', join(photos, 'broken.jpg'), '--json').json() as { errors: { stage: string; reason: string }[] };
    expect(broken.errors.length).toBeGreaterThan(0);
    expect(broken.errors[0]).toEqual({ stage: expect.any(String), reason: expect.any(String) });
    const missing = lib('show', join(photos, 'nope.jpg'), '--json');
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toMatch(/nope\.jpg/);
  });

  it('tag, caption, rate and undo change the catalogue and report the assets after the change', () => {
    const red = join(photos, 'red.jpg');
    const green = join(photos, 'green.jpg');
    const t = lib('tag', red, green, '--add', 'sunset,Beach', '--json');
    expect(t.code).toBe(0);
    expect(t.json()).toMatchObject({ updated: 2, assets: [{ path: red, keywords: ['sunset', 'Beach'] }, { path: green, keywords: ['sunset', 'Beach'] }] });
    expect(lib('tag', red, '--remove', 'SUNSET', '--add', 'sea', '--json').json()).toMatchObject({ updated: 1, assets: [{ keywords: ['Beach', 'sea'] }] });
    expect(lib('caption', red, '--set', 'Red square', '--json').json()).toMatchObject({ updated: 1, assets: [{ caption: 'Red square' }] });
    expect(lib('rate', red, '--stars', '4', '--json').json()).toMatchObject({ updated: 1, assets: [{ rating: 4 }] });
    expect((lib('search', '--keyword', 'beach', '--json').json() as unknown[]).length).toBe(2);
    expect((lib('search', '--no-keywords', '--json').json() as { path: string }[]).map((a) => a.path).sort()).toEqual(
      [join(photos, 'broken.jpg'), join(photos, 'sub', 'blue.jpg')].sort(),
    );
    expect(lib('search', 'square', '--json').json()).toMatchObject([{ path: red }]);
    expect(lib('undo', '--json').json()).toEqual({ undone: 'Undo: rate 1 photo 4 stars' });
    expect(lib('show', red, '--json').json()).toMatchObject({ rating: 0, caption: 'Red square' });
    expect(lib('caption', red, '--clear', '--json').json()).toMatchObject({ assets: [{ caption: null }] });
  });

  it('an edit naming a file not in the library changes nothing and exits 1', () => {
    const r = lib('tag', join(photos, 'green.jpg'), join(root, 'ghost.jpg'), '--add', 'ghost', '--json');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/ghost\.jpg.*Nothing was changed/);
    expect((lib('show', join(photos, 'green.jpg'), '--json').json() as { keywords: string[] }).keywords).not.toContain('ghost');
  });

  it('prints human text without --json', () => {
    const r = lib('search', 'gre');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(join(photos, 'green.jpg'));
    expect(() => JSON.parse(r.stdout)).toThrow();
  });
});
