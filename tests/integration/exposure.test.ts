import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tagsmith, type CliRun } from '../helpers/cli';
import type { SearchQuery } from '../../src-preload/contract';
import { getAssetDetail } from '../../src-main/library/assets';
import { openLibrary, type LibraryCtx } from '../../src-main/library/context';
import { addFolder } from '../../src-main/library/folders';
import { closeMetadataReader } from '../../src-main/metadata/reader';
import { scanFolder } from '../../src-main/library/scan';
import { searchIds } from '../../src-main/search/search';

// Exposure in the catalogue: read at indexing, filled in for pictures catalogued before
// (without hashing them again), shown by `show --json` / `search --json` and the Api's
// detail, and searchable by lens text and ISO, focal length and aperture ranges, from the
// Api and the CLI (`--iso 800-`, `--focal -35`).

let root: string;
let photos: string;
let ctx: LibraryCtx;
let folderId: number;

const SHOTS: Record<string, string[]> = {
  'portrait.jpg': ['-ISO=100', '-FNumber=2.8', '-ExposureTime=1/250', '-FocalLength=50', '-FocalLengthIn35mmFormat=75', '-ExposureCompensation=+0.7', '-EXIF:Flash#=1', '-LensModel=EF50mm f/1.8 STM'],
  'night.jpg': ['-ISO=1600', '-FNumber=8', '-ExposureTime=2.5', '-FocalLength=24', '-FocalLengthIn35mmFormat=24', '-ExposureCompensation=-1', '-EXIF:Flash#=16', '-LensModel=RF24-70mm F2.8 L IS USM'],
  'street.jpg': ['-ISO=800', '-FNumber=5.6', '-ExposureTime=1/1000', '-FocalLength=35', '-LensModel=XF35mmF1.4 R'],
  'plain.jpg': [],
};

const EMPTY = { aperture: null, shutter: null, iso: null, focalLength: null, focalLength35: null, exposureBias: null, flash: null };

const cli = (library: string, args: string[]): Promise<CliRun> => tagsmith(library, args);

const names = (ids: number[]) => ids.map((id) => getAssetDetail(ctx, id).name).sort();

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tagsmith-exposure-')));
  photos = join(root, 'photos');
  mkdirSync(photos);
  for (const [name, tags] of Object.entries(SHOTS)) {
    const file = join(photos, name);
    await sharp({ create: { width: 120, height: 80, channels: 3, background: '#808080' } }).jpeg().withMetadata({ orientation: 1 }).toFile(file);
    if (tags.length) execFileSync('exiftool', ['-q', '-overwrite_original', ...tags, file]);
  }
  ctx = openLibrary(join(root, 'lib'));
  folderId = addFolder(ctx, photos).id;
  await scanFolder(ctx, folderId);
});

afterAll(async () => {
  ctx.db.close();
  await closeMetadataReader();
  await rm(root, { recursive: true, force: true });
});

describe('exposure', () => {
  it('is stored at indexing and shown in the detail, null members where the file records nothing', () => {
    const byName = new Map(searchIds(ctx, {}).map((id) => [getAssetDetail(ctx, id).name, getAssetDetail(ctx, id)]));
    expect(byName.get('portrait.jpg')!.exposure).toEqual({ aperture: 2.8, shutter: '1/250', iso: 100, focalLength: 50, focalLength35: 75, exposureBias: 0.7, flash: true });
    expect(byName.get('night.jpg')!.exposure).toEqual({ aperture: 8, shutter: '2.5', iso: 1600, focalLength: 24, focalLength35: 24, exposureBias: -1, flash: false });
    expect(byName.get('plain.jpg')!.exposure).toEqual(EMPTY);
    expect(byName.get('street.jpg')!.lens).toBe('XF35mmF1.4 R');
  });

  it.each<[string, SearchQuery, string[]]>([
    ['iso from 800', { iso: { min: 800 } }, ['night.jpg', 'street.jpg']],
    ['iso up to 400', { iso: { max: 400 } }, ['portrait.jpg']],
    ['iso 100-800', { iso: { min: 100, max: 800 } }, ['portrait.jpg', 'street.jpg']],
    ['focal up to 35', { focalLength: { max: 35 } }, ['night.jpg', 'street.jpg']],
    ['aperture 2-6', { aperture: { min: 2, max: 6 } }, ['portrait.jpg', 'street.jpg']],
    ['lens text, any case', { lens: 'ef50' }, ['portrait.jpg']],
    ['lens and iso together', { lens: 'mm', iso: { min: 1000 } }, ['night.jpg']],
    ['nothing in range', { iso: { min: 3200 } }, []],
  ])('the Api searches by %s', (_, query, expected) => {
    expect(names(searchIds(ctx, query))).toEqual(expected);
  });

  it('is filled in for pictures catalogued before, on the next scan, without hashing them again', async () => {
    // What a catalogue from before migration 13 holds: no exposure, not read yet. The content
    // hash is replaced by a marker: a scan that hashed the file again would overwrite it.
    ctx.db.prepare(`UPDATE assets SET aperture = NULL, shutter = NULL, iso = NULL, focal_length = NULL, focal_length_35 = NULL,
      exposure_bias = NULL, flash = NULL, exposure_read = 0, content_hash = 'marker-' || id`).run();
    expect(searchIds(ctx, { iso: { min: 1 } })).toEqual([]);
    const summary = await scanFolder(ctx, folderId);
    expect(summary).toMatchObject({ added: 0, updated: 0 });
    expect(names(searchIds(ctx, { iso: { min: 1 } }))).toEqual(['night.jpg', 'portrait.jpg', 'street.jpg']);
    const rows = ctx.db.prepare<[], { content_hash: string; id: number; exposure_read: number }>('SELECT id, content_hash, exposure_read FROM assets').all();
    for (const r of rows) expect(r).toEqual({ id: r.id, content_hash: `marker-${r.id}`, exposure_read: 1 });
  });
});

describe('tagsmith search and show with exposure', () => {
  let library: string;
  beforeAll(async () => {
    library = join(root, 'cli-lib');
    const r = await cli(library, ['index', photos, '--json']);
    expect(r.code, r.stderr).toBe(0);
  });

  const search = async (...args: string[]): Promise<string[]> => {
    const r = await cli(library, ['search', ...args, '--json']);
    expect(r.code, r.stderr).toBe(0);
    return (JSON.parse(r.stdout) as { path: string }[]).map((a) => a.path.slice(photos.length + 1)).sort();
  };

  it('filters with either end of a range open, as the issue writes them', async () => {
    expect(await search('--iso', '800-')).toEqual(['night.jpg', 'street.jpg']);
    expect(await search('--focal', '-35')).toEqual(['night.jpg', 'street.jpg']);
    expect(await search('--iso', '100-800', '--aperture', '2.8-5.6')).toEqual(['portrait.jpg', 'street.jpg']);
    expect(await search('--lens', 'RF24')).toEqual(['night.jpg']);
    expect(await search('--aperture=-4')).toEqual(['portrait.jpg']);
  });

  it('refuses a range it cannot read, saying how to write one', async () => {
    for (const bad of ['lots', '800-100', '1-2-3']) {
      const r = await cli(library, ['search', '--iso', bad]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/--iso/);
    }
  });

  it('prints exposure in show --json and search --json, always an object', async () => {
    const shown = await cli(library, ['show', join(photos, 'portrait.jpg'), '--json']);
    expect(JSON.parse(shown.stdout)).toMatchObject({
      exposure: { aperture: 2.8, shutter: '1/250', iso: 100, focalLength: 50, focalLength35: 75, exposureBias: 0.7, flash: true },
    });
    const all = JSON.parse((await cli(library, ['search', '--json'])).stdout) as { path: string; exposure: unknown }[];
    expect(all).toHaveLength(4);
    expect(all.find((a) => a.path.endsWith('plain.jpg'))!.exposure).toEqual(EMPTY);
    expect(all.find((a) => a.path.endsWith('night.jpg'))!.exposure).toMatchObject({ shutter: '2.5', flash: false, exposureBias: -1 });
  });

  it('opens a catalogue made before exposure and fills it in on the next index', async () => {
    const db = new Database(join(library, 'library.sqlite'));
    db.prepare('UPDATE assets SET iso = NULL, exposure_read = 0').run();
    db.close();
    expect(await search('--iso', '1-')).toEqual([]);
    expect((await cli(library, ['index', photos, '--json'])).code).toBe(0);
    expect(await search('--iso', '1-')).toEqual(['night.jpg', 'portrait.jpg', 'street.jpg']);
  });
});
