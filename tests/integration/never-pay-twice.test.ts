import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tagsmith, type CliRun } from '../helpers/cli';
import { heifEnc } from '../fixtures/heif';
import { startSimulator, type Simulator } from '../simulator/index.js';

// Never pay twice, per format Tagsmith writes into: keyword, write the keywords into the file
// with the real writer, let another tool touch the file's metadata too (so the next index
// reads it again from scratch), keyword again => no billed call at the simulator. Real child
// processes of the CLI, as a script runs them. Also: a library catalogued before TIFF, HEIC
// and DNG had a metadata-free key keeps its cached answers through the key's change.

const creds = { clientId: 'npt', clientSecret: 'npt-secret' };
let sim: Simulator;
let root: string;
let photos: string;

const cli = (library: string, args: string[]): Promise<CliRun> => tagsmith(library, args, { serviceUrl: sim.url, creds });

async function ok(library: string, args: string[]): Promise<CliRun> {
  const r = await cli(library, args);
  expect(r.code, `${args.join(' ')}: ${r.stderr}${r.stdout}`).toBe(0);
  return r;
}

const billed = (): number => Object.values(sim.billed()[creds.clientId] ?? {}).reduce((a, b) => a + b, 0);
const exiftool = (...args: string[]) => execFileSync('exiftool', ['-overwrite_original', '-q', ...args]);

const picture = (colour: string) => sharp({ create: { width: 320, height: 240, channels: 3, background: colour } });
const FILES: Record<string, (file: string) => Promise<void>> = {
  'a.jpg': async (f) => void (await picture('#c03030').jpeg().withMetadata({ orientation: 1 }).toFile(f)),
  'b.png': async (f) => void (await picture('#30c030').png().toFile(f)),
  'c.webp': async (f) => void (await picture('#3030c0').webp().toFile(f)),
  'd.tif': async (f) => void (await picture('#c0c030').tiff({ compression: 'lzw' }).toFile(f)),
  'e.heic': async (f) => {
    await picture('#30c0c0').jpeg().toFile(`${f}.jpg`);
    await heifEnc(f, `${f}.jpg`);
    await rm(`${f}.jpg`);
  },
  'f.dng': async (f) => {
    await picture('#c030c0').tiff({ compression: 'deflate' }).toFile(f);
    exiftool('-DNGVersion=1.4.0.0', '-EXIF:Make=Nikon', f);
  },
  'g.mp4': async (f) => void execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=size=160x120:rate=10', '-t', '6', '-pix_fmt', 'yuv420p', '-y', f]),
  'h.mov': async (f) => void execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=160x120:rate=10', '-t', '6', '-pix_fmt', 'yuv420p', '-y', f]),
};
const paths = (): string[] => Object.keys(FILES).map((n) => join(photos, n));

beforeAll(async () => {
  sim = await startSimulator({ port: 0, accounts: [creds] });
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tagsmith-npt-')));
  photos = join(root, 'photos');
  mkdirSync(photos);
  for (const [name, make] of Object.entries(FILES)) await make(join(photos, name));
}, 300_000);

afterAll(async () => {
  await sim.close();
  await rm(root, { recursive: true, force: true });
});

interface KeywordJson {
  billable: number;
  assets: { path: string; suggestions: unknown[]; error?: string }[];
}

describe('never pay twice', () => {
  it('keyword, write into the file, keyword again: 0 billed calls for JPEG, PNG, WebP, TIFF, HEIC, DNG, MP4 and MOV', async () => {
    const lib = join(root, 'lib');
    await ok(lib, ['index', photos, '--json']);
    const first = (await ok(lib, ['keyword', ...paths(), '--json'])).json<KeywordJson>();
    for (const a of first.assets) expect(a.error, a.path).toBeUndefined();
    const paid = billed();
    expect(paid).toBe(Object.keys(FILES).length);

    await ok(lib, ['tag', ...paths(), '--add', 'paid once']);
    const written = (await ok(lib, ['export', ...paths(), '--write-files', '--json'])).json<{ written: number; failed: number }>();
    expect(written).toMatchObject({ written: Object.keys(FILES).length, failed: 0 });
    // Another tool edits the metadata too: the next index reads every file again.
    for (const f of paths()) exiftool('-XMP-dc:Title=Edited elsewhere', f);
    const reindexed = (await ok(lib, ['index', photos, '--json'])).json<{ updated: number; errors: unknown[] }>();
    expect(reindexed).toMatchObject({ updated: Object.keys(FILES).length, errors: [] });
    for (const f of paths()) expect(execFileSync('exiftool', ['-s3', '-XMP-dc:Subject', f]).toString(), f).toContain('paid once');

    const again = (await ok(lib, ['keyword', ...paths(), '--json'])).json<KeywordJson>();
    for (const a of again.assets) expect(a.error, a.path).toBeUndefined();
    expect(again.billable).toBe(0);
    expect(billed()).toBe(paid);
  }, 600_000);

  it('a picture keyworded before its media hash is taken (the scan has only just shown it) is still never paid for twice', async () => {
    const lib = join(root, 'early-lib');
    const early = ['a.jpg', 'b.png', 'c.webp', 'd.tif', 'f.dng'].map((n) => join(photos, n));
    await ok(lib, ['index', photos, '--json']);
    // The state a scan leaves a new picture in until its full thumbnail's job takes the media
    // hash: shown in the grid, no media hash yet.
    const db = new Database(join(lib, 'library.sqlite'));
    const mediaHashes = db.prepare<[], { media_hash: string | null }>("SELECT media_hash FROM assets WHERE format IN ('jpeg', 'png', 'webp', 'tiff', 'dng') ORDER BY rel_path");
    const taken = mediaHashes.all().map((r) => r.media_hash);
    db.prepare("UPDATE assets SET media_hash = NULL, thumb_state = 'preview' WHERE format IN ('jpeg', 'png', 'webp', 'tiff', 'dng')").run();
    const before = billed();
    expect((await ok(lib, ['keyword', ...early, '--json'])).json<KeywordJson>().billable).toBe(early.length);
    expect(billed()).toBe(before + early.length);
    // The run took each media hash first (not the content hash): the same key as always.
    expect(mediaHashes.all().map((r) => r.media_hash)).toEqual(taken);
    db.close();

    // Written into the files, edited elsewhere, indexed again: nothing is billed again.
    await ok(lib, ['tag', ...early, '--add', 'early']);
    await ok(lib, ['export', ...early, '--write-files', '--json']);
    for (const f of early) exiftool('-XMP-dc:Title=Edited early', f);
    expect((await ok(lib, ['index', photos, '--json'])).json<{ updated: number }>().updated).toBe(early.length);
    expect((await ok(lib, ['keyword', ...early, '--json'])).json<KeywordJson>().billable).toBe(0);
    expect(billed()).toBe(before + early.length);
  }, 600_000);

  it('a library keyed by content hashes before (TIFF, HEIC, DNG) keeps its cached answers', async () => {
    const lib = join(root, 'old-lib');
    const old = ['d.tif', 'e.heic', 'f.dng'].map((n) => join(photos, n));
    await ok(lib, ['index', photos, '--json']);
    // What the previous version stored for these formats: the content hash as media hash.
    const db = new Database(join(lib, 'library.sqlite'));
    db.prepare("UPDATE assets SET media_hash = content_hash WHERE format IN ('tiff', 'heic', 'dng')").run();
    db.close();
    const before = billed();
    expect((await ok(lib, ['keyword', ...old, '--json'])).json<KeywordJson>().billable).toBe(3);
    expect(billed()).toBe(before + 3);

    // The next index re-keys them (the files are unchanged); then a write and an outside edit.
    await ok(lib, ['index', photos, '--json']);
    const keys = new Database(join(lib, 'library.sqlite'), { readonly: true });
    const hashes = keys.prepare<[], { media_hash: string }>("SELECT media_hash FROM assets WHERE format IN ('tiff', 'heic', 'dng')").all();
    keys.close();
    expect(hashes.map((h) => h.media_hash.slice(0, 2))).toEqual(['m:', 'm:', 'm:']);
    await ok(lib, ['tag', ...old, '--add', 'kept']);
    await ok(lib, ['export', ...old, '--write-files', '--json']);
    for (const f of old) exiftool('-XMP-dc:Title=Edited again', f);
    expect((await ok(lib, ['index', photos, '--json'])).json<{ updated: number }>().updated).toBe(3);

    expect((await ok(lib, ['keyword', ...old, '--json'])).json<KeywordJson>().billable).toBe(0);
    expect((await ok(lib, ['keyword', ...old, '--force', '--json'])).json<KeywordJson>().assets.every((a) => !a.error)).toBe(true);
    expect(billed()).toBe(before + 3);
  }, 600_000);
});
