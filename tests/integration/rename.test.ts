import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tagsmithSync, type CliRun } from '../helpers/cli';
import { createApi } from '../../src-main/api';
import { openLibrary } from '../../src-main/library/context';
import { getAssetKeywords } from '../../src-main/library/keywords';

// Batch rename (issue 16) end to end through the CLI (a real child process) on real files:
// templates with dates, sequences, camera and title; the preview (--dry-run) that moves
// nothing; collisions with each other and with files on disk (case-insensitively) refused
// before anything moves; illegal characters; sidecars of both naming conventions and RAW+JPEG
// pairs; undo; and, through the Api with the watcher running, a rename that keeps every
// asset's id and keywords (the watcher's rescan does not see a delete and an add).

let root: string;
let photos: string;
let library: string;
const p = (name: string): string => join(photos, name);

const tagsmith = (...args: string[]): CliRun => tagsmithSync(library, args);

const exiftool = (...args: string[]): string => execFileSync('exiftool', args, { encoding: 'utf8' });
const files = (): string[] => readdirSync(photos).sort();
const picture = (background: string) => sharp({ create: { width: 64, height: 48, channels: 3, background } });

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tagsmith-rename-')));
  photos = join(root, 'photos');
  library = join(root, 'lib');
  mkdirSync(photos);
  await picture('#a33').jpeg().toFile(p('a.jpg'));
  await picture('#3a3').jpeg().toFile(p('b.jpg'));
  exiftool('-q', '-overwrite_original', '-DateTimeOriginal=2024:05:31 14:03:09', '-IFD0:Model=Canon EOS R5', p('a.jpg'));
  exiftool('-q', '-overwrite_original', '-DateTimeOriginal=2023:12:01 07:08:00', '-XMP-dc:Title=Sunset / Beach: day 1', p('b.jpg'));
  // A RAW (TIFF-based, as a CR2 is) with its JPEG, and both sidecar conventions.
  await picture('#33a').tiff().toFile(p('IMG_1.CR2'));
  await picture('#33a').jpeg().toFile(p('IMG_1.JPG'));
  exiftool('-q', '-overwrite_original', '-IFD0:Make=Canon', '-IFD0:Model=Canon EOS 5D', '-DateTimeOriginal=2022:01:02 03:04:05', p('IMG_1.CR2'));
  exiftool('-q', '-o', p('IMG_1.xmp'), '-XMP-xmp:Rating=3', p('IMG_1.CR2'));
  exiftool('-q', '-o', p('IMG_1.CR2.xmp'), '-XMP-xmp:Label=Red', p('IMG_1.CR2'));
  // No capture date at all.
  await picture('#888').png().toFile(p('nodate.png'));
  writeFileSync(p('notes.txt'), 'not a photo');
  const r = tagsmith('index', photos);
  expect(r.code, r.stderr).toBe(0);
  expect(tagsmith('tag', p('a.jpg'), '--add', 'harbour,boats').code).toBe(0);
}, 600_000);

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('tagsmith rename', () => {
  it('lists the tokens in --help', () => {
    const r = tagsmith('rename', '--help');
    expect(r.code).toBe(0);
    for (const token of ['{name}', '{date:', '{seq:', '{camera}', '{title}', '--start', '--dry-run', '--template']) expect(r.stdout).toContain(token);
  });

  it('previews with --dry-run: [{from, to}] with the date formats, the extension kept, nothing moved', () => {
    const before = files();
    const cases: [string, string][] = [
      ['{date:YYYYMMDD-HHmmss}', '20240531-140309.jpg'],
      ['{date:YY-MM-DD}_{date:HH.mm.ss}', '24-05-31_14.03.09.jpg'],
      ['{date}', '20240531.jpg'],
      ['{camera} {name} #{seq:3}', 'Canon EOS R5 a #001.jpg'],
    ];
    for (const [template, name] of cases) {
      const r = tagsmith('--json', 'rename', p('a.jpg'), '--template', template, '--dry-run');
      expect(r.code, r.stderr).toBe(0);
      expect(r.json()).toEqual([{ from: p('a.jpg'), to: p(name) }]);
    }
    expect(files()).toEqual(before);
  });

  it('numbers shots from --start in the order given, a title with illegal characters made legal', () => {
    const r = tagsmith('--json', 'rename', p('b.jpg'), p('a.jpg'), '--template', '{title}{seq:2}', '--start', '9', '--dry-run');
    expect(r.code, r.stderr).toBe(0);
    // a.jpg has no title: only the sequence is left.
    expect(r.json()).toEqual([{ from: p('b.jpg'), to: p('Sunset _ Beach_ day 109.jpg') }, { from: p('a.jpg'), to: p('10.jpg') }]);
  });

  it('refuses templates it cannot use, saying why', () => {
    const unknown = tagsmith('rename', p('a.jpg'), '--template', '{nmae}');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('{nmae} is not a token');
    const slash = tagsmith('rename', p('a.jpg'), '--template', 'trip/{name}');
    expect(slash.code).toBe(2);
    expect(slash.stderr).toContain('“/”');
    const missing = tagsmith('rename', p('a.jpg'));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--template');
  });

  it('refuses collisions before anything moves: with each other, with a file on disk in another case, a missing date', () => {
    const before = files();
    const each = tagsmith('rename', p('a.jpg'), p('b.jpg'), '--template', 'same');
    expect(each.code).toBe(1);
    expect(each.stderr).toContain('“same.jpg” would be the new name of 2 files');
    expect(each.stderr).toContain('Nothing was renamed');

    writeFileSync(p('Taken.JPG'), 'someone else’s file');
    const disk = tagsmith('rename', p('a.jpg'), '--template', 'taken');
    expect(disk.code).toBe(1);
    expect(disk.stderr).toContain('“Taken.JPG” already exists in this folder');
    rmSync(p('Taken.JPG'));

    // Two files whose names would swap: refused, not half-done.
    expect(tagsmith('rename', p('a.jpg'), p('b.jpg'), '--template', 'x{seq}').code).toBe(0);
    const swap = tagsmith('rename', p('x2.jpg'), p('x1.jpg'), '--template', 'x{seq}');
    expect(swap.code).toBe(1);
    expect(swap.stderr).toContain('“x1.jpg” is the current name of “x1.jpg”, which this rename also changes');
    expect(files()).toEqual([...before.filter((n) => n !== 'a.jpg' && n !== 'b.jpg'), 'x1.jpg', 'x2.jpg'].sort());
    expect(tagsmith('undo').code).toBe(0);

    const nodate = tagsmith('rename', p('nodate.png'), p('a.jpg'), '--template', '{date}-{seq}');
    expect(nodate.code).toBe(1);
    expect(nodate.stderr).toContain('nodate.png: has no capture date');
    expect(files()).toEqual(before);
  });

  it('renames a RAW with its JPEG partner and both sidecars, keeps its data, and undo puts every name back', () => {
    const r = tagsmith('--json', 'rename', p('IMG_1.CR2'), '--template', 'trip-{seq:3}', '--start', '7');
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toEqual([{ from: p('IMG_1.CR2'), to: p('trip-007.CR2') }, { from: p('IMG_1.JPG'), to: p('trip-007.JPG') }]);
    expect(files()).toEqual(['a.jpg', 'b.jpg', 'nodate.png', 'notes.txt', 'trip-007.CR2', 'trip-007.CR2.xmp', 'trip-007.JPG', 'trip-007.xmp']);
    // The catalogue follows: the sidecar's label is still the RAW's.
    const shown = tagsmith('--json', 'show', p('trip-007.CR2'));
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.json()).toMatchObject({ path: p('trip-007.CR2'), label: 'red' });
    expect(exiftool('-s3', '-XMP-xmp:Rating', p('trip-007.xmp')).trim()).toBe('3');
    expect(tagsmith('show', p('IMG_1.CR2')).code).toBe(1);
    // A rescan sees nothing new and nothing gone.
    const rescan = tagsmith('--json', 'index', photos);
    expect(rescan.code, rescan.stderr).toBe(0);
    expect(rescan.json()).toMatchObject({ added: 0, removed: 0 });

    const undo = tagsmith('undo');
    expect(undo.code, undo.stderr).toBe(0);
    expect(undo.stdout).toContain('Undo: rename 2 files');
    expect(files()).toEqual(['IMG_1.CR2', 'IMG_1.CR2.xmp', 'IMG_1.JPG', 'IMG_1.xmp', 'a.jpg', 'b.jpg', 'nodate.png', 'notes.txt']);
    expect(tagsmith('--json', 'show', p('IMG_1.CR2')).json()).toMatchObject({ label: 'red' });
  });

  it('renames what a --query finds; keywords stay with the file; a case-only rename works', () => {
    const r = tagsmith('--json', 'rename', '--query', 'harbour', '--template', '{name}-{camera}');
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toEqual([{ from: p('a.jpg'), to: p('a-Canon EOS R5.jpg') }]);
    expect(tagsmith('--json', 'show', p('a-Canon EOS R5.jpg')).json()).toMatchObject({ keywords: ['harbour', 'boats'] });
    const found = tagsmith('--json', 'search', 'harbour');
    expect(found.json<{ path: string }[]>().map((a) => a.path)).toEqual([p('a-Canon EOS R5.jpg')]);
    expect(tagsmith('undo').code).toBe(0);

    const upper = tagsmith('--json', 'rename', p('a.jpg'), '--template', 'A');
    expect(upper.code, upper.stderr).toBe(0);
    expect(files()).toContain('A.jpg');
    expect(existsSync(p('a.jpg'))).toBe(false);
    expect(tagsmith('undo').code).toBe(0);
    expect(files()).toContain('a.jpg');
  });
});

describe('rename through the Api with the watcher running', () => {
  it('keeps ids, keywords and ratings: the watcher’s rescan does not see a delete and an add', async () => {
    const ctx = openLibrary(library);
    const host = createApi(ctx, { startQueue: false });
    try {
      const ids = (ctx.db.prepare('SELECT id FROM assets WHERE removed_at IS NULL ORDER BY id').all() as { id: number }[]).map((r) => r.id);
      const a = ctx.db.prepare("SELECT id FROM assets WHERE rel_path = 'a.jpg'").get() as { id: number };
      await host.api.setRating({ ids: [a.id], rating: 4 });
      const preview = await host.api.previewRename({ assetIds: [a.id], template: 'renamed-{seq:2}' });
      expect(preview).toMatchObject({ templateError: null, problems: 0, changes: 1, items: [{ assetId: a.id, to: p('renamed-01.jpg'), changed: true }] });
      const scanned = new Promise<void>((done) => {
        const off = ctx.events.on('scanProgress', (s) => {
          if (s.phase === 'done') {
            off();
            done();
          }
        });
      });
      const result = await host.api.renameAssets({ assetIds: [a.id], template: 'renamed-{seq:2}' });
      expect(result).toEqual({ renamed: [{ assetId: a.id, from: p('a.jpg'), to: p('renamed-01.jpg') }], failed: [] });
      await scanned; // the watcher saw the rename and rescanned the folder
      await host.scanner.waitForIdle();
      const after = (ctx.db.prepare('SELECT id FROM assets WHERE removed_at IS NULL ORDER BY id').all() as { id: number }[]).map((r) => r.id);
      expect(after).toEqual(ids);
      const row = ctx.db.prepare('SELECT rel_path, rating FROM assets WHERE id = ?').get(a.id);
      expect(row).toEqual({ rel_path: 'renamed-01.jpg', rating: 4 });
      expect(getAssetKeywords(ctx.db, a.id)).toEqual(['harbour', 'boats']);
      expect(await host.api.undo()).toContain('Undo: rename 1 file');
      expect(existsSync(p('a.jpg'))).toBe(true);
      expect((ctx.db.prepare('SELECT rel_path FROM assets WHERE id = ?').get(a.id) as { rel_path: string }).rel_path).toBe('a.jpg');
      // A template error is reported by the preview, and refused by the rename with a validation error.
      expect((await host.api.previewRename({ assetIds: [a.id], template: '{x}' })).templateError).toContain('{x} is not a token');
      expect(await host.invoke('renameAssets', { assetIds: [a.id], template: '{x}' })).toMatchObject({ ok: false, error: { kind: 'validation', field: 'template' } });
    } finally {
      await host.dispose();
    }
  }, 600_000);
});
