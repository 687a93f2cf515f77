import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setFlag } from '../../src-main/analysis/culling';
import { findAssetByPath } from '../../src-main/library/assets';
import { openLibrary } from '../../src-main/library/context';
import { addFolder } from '../../src-main/library/folders';
import { closeMetadataReader } from '../../src-main/metadata/reader';
import { scanFolder } from '../../src-main/library/scan';

// A photo another program rejected (Lightroom's X: XMP Rating -1, in the file or in a RAW's
// sidecar) is catalogued as rejected, as exiftool reads its rating, not as a photo with no
// stars; writing the library back leaves the file's -1 as it is.

const BIN = resolve(__dirname, '../../bin/tagsmith.js');
let root: string;
let photos: string;
let library: string;

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, '--library', library, ...args], { env: { ...process.env, TAGSMITH_HOME: '', TAGSMITH_QUIET: '1' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdin.end('');
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

const exiftool = (...args: string[]) => execFileSync('exiftool', ['-q', '-overwrite_original', ...args], { stdio: 'ignore' });
const rating = (file: string): string => execFileSync('exiftool', ['-s3', '-n', '-XMP-xmp:Rating', file], { encoding: 'utf8' }).trim();

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tagsmith-reject-')));
  photos = join(root, 'photos');
  library = join(root, 'lib');
  mkdirSync(photos);
  const jpeg = (name: string) => sharp({ create: { width: 48, height: 32, channels: 3, background: '#678' } }).jpeg().toFile(join(photos, name));
  await jpeg('rejected.jpg');
  exiftool('-XMP-xmp:Rating=-1', '-XMP-dc:Subject=Ausschuss', join(photos, 'rejected.jpg'));
  await jpeg('three.jpg');
  exiftool('-XMP-xmp:Rating=3', join(photos, 'three.jpg'));
  await sharp({ create: { width: 48, height: 32, channels: 3, background: '#876' } }).tiff().toFile(join(photos, 'IMG_7.cr2'));
  writeFileSync(join(photos, 'IMG_7.xmp'), `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:Rating="-1"/></rdf:RDF></x:xmpmeta>`);
}, 120_000);

afterAll(async () => {
  await closeMetadataReader();
  await rm(root, { recursive: true, force: true });
});

describe('rejects read from files', () => {
  it('catalogues XMP Rating -1 (file or RAW sidecar) as rejected, keeps it on a write', { timeout: 300_000 }, async () => {
    const index = await cli(['index', photos, '--json']);
    expect(index.code, index.stderr).toBe(0);
    const names = async (args: string[]) => (JSON.parse((await cli(['search', ...args, '--json'])).stdout) as { path: string }[])
      .map((a) => a.path.slice(photos.length + 1)).sort();
    expect(await names(['--flag', 'reject'])).toEqual(['IMG_7.cr2', 'rejected.jpg']);
    expect(await names(['--flag', 'none'])).toEqual(['three.jpg']);
    const shown = JSON.parse((await cli(['show', join(photos, 'rejected.jpg'), '--json'])).stdout) as { rating: number; keywords: string[] };
    expect(shown).toMatchObject({ rating: 0, keywords: ['Ausschuss'] });

    // Writing the library back: the reject stays -1 in the file, the 3 stars stay 3.
    const tag = await cli(['tag', join(photos, 'rejected.jpg'), join(photos, 'three.jpg'), '--add', 'Neu', '--json']);
    expect(tag.code, tag.stderr).toBe(0);
    const exp = await cli(['export', join(photos, 'rejected.jpg'), join(photos, 'three.jpg'), '--write-files', '--json']);
    expect(exp.code, exp.stderr).toBe(0);
    const result = JSON.parse(exp.stdout) as { assets: { path: string; changedFields: string[]; error?: string }[] };
    expect(result.assets.map((a) => [a.path.slice(photos.length + 1), a.changedFields, a.error ?? null]).sort()).toEqual([
      ['rejected.jpg', ['keywords'], null], ['three.jpg', ['keywords'], null],
    ]);
    expect(rating(join(photos, 'rejected.jpg'))).toBe('-1');
    expect(rating(join(photos, 'three.jpg'))).toBe('3');
    expect(await names(['--flag', 'reject'])).toEqual(['IMG_7.cr2', 'rejected.jpg']);
  });

  it('follows a reject (and an un-reject) made in another program when the changed file is rescanned', { timeout: 300_000 }, async () => {
    // Its own folder: the first scan sees nothing rejected, then a user rejects in Lightroom.
    const dir = join(root, 'later');
    mkdirSync(dir);
    const jpeg = (name: string) => sharp({ create: { width: 48, height: 32, channels: 3, background: '#456' } }).jpeg().toFile(join(dir, name));
    await jpeg('keep.jpg');
    exiftool('-XMP-xmp:Rating=2', '-XMP-dc:Subject=Strand', join(dir, 'keep.jpg'));
    await jpeg('was-out.jpg');
    exiftool('-XMP-xmp:Rating=-1', join(dir, 'was-out.jpg'));
    await sharp({ create: { width: 48, height: 32, channels: 3, background: '#654' } }).tiff().toFile(join(dir, 'IMG_8.cr2'));
    const sidecar = (value: number) => writeFileSync(join(dir, 'IMG_8.xmp'), `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:Rating="${value}"/></rdf:RDF></x:xmpmeta>`);
    sidecar(3);
    const index = async () => {
      const r = await cli(['index', dir, '--json']);
      expect(r.code, r.stderr).toBe(0);
    };
    const names = async (args: string[]) => (JSON.parse((await cli(['search', ...args, '--json'])).stdout) as { path: string }[])
      .filter((a) => a.path.startsWith(`${dir}/`)).map((a) => a.path.slice(dir.length + 1)).sort();
    const show = async (name: string) => JSON.parse((await cli(['show', join(dir, name), '--json'])).stdout) as { rating: number; keywords: string[] };

    await index();
    expect(await names(['--flag', 'reject'])).toEqual(['was-out.jpg']);

    // Rejected in another program: in the file (keep.jpg) and in a RAW's sidecar; was-out.jpg
    // is un-rejected there and given 4 stars.
    exiftool('-XMP-xmp:Rating=-1', join(dir, 'keep.jpg'));
    exiftool('-XMP-xmp:Rating=4', join(dir, 'was-out.jpg'));
    sidecar(-1);
    await index();
    expect(await names(['--flag', 'reject'])).toEqual(['IMG_8.cr2', 'keep.jpg']);
    expect(await names(['--flag', 'none'])).toEqual(['was-out.jpg']);
    expect(await show('was-out.jpg')).toMatchObject({ rating: 4 });
    expect(await show('keep.jpg')).toMatchObject({ rating: 0, keywords: ['Strand'] });

    // And un-rejected again: the flag goes, the stars the file now holds are read.
    exiftool('-XMP-xmp:Rating=5', join(dir, 'keep.jpg'));
    sidecar(1);
    await index();
    expect(await names(['--flag', 'reject'])).toEqual([]);
    expect(await names(['--flag', 'none'])).toEqual(['IMG_8.cr2', 'keep.jpg', 'was-out.jpg']);
    expect(await show('keep.jpg')).toMatchObject({ rating: 5, keywords: ['Strand'] });
    expect(rating(join(dir, 'keep.jpg'))).toBe('5');
  });

  it("keeps a reject or pick made in Tagsmith when another program changes something else in the file", { timeout: 300_000 }, async () => {
    const dir = join(root, 'mine');
    mkdirSync(dir);
    for (const name of ['mine-out.jpg', 'mine-pick.jpg']) {
      await sharp({ create: { width: 48, height: 32, channels: 3, background: '#345' } }).jpeg().toFile(join(dir, name));
      exiftool('-XMP-xmp:Rating=3', join(dir, name));
    }
    const ctx = openLibrary(join(root, 'mine-lib'));
    try {
      const folder = addFolder(ctx, dir).id;
      await scanFolder(ctx, folder);
      const id = (name: string) => findAssetByPath(ctx, join(dir, name))!;
      const flag = (name: string) => ctx.db.prepare<[number], { flag: string | null }>('SELECT flag FROM assets WHERE id = ?').get(id(name))!.flag;
      await setFlag(ctx, [id('mine-out.jpg')], 'reject');
      await setFlag(ctx, [id('mine-pick.jpg')], 'pick');
      // Another program captions both files; their ratings stay 3.
      exiftool('-XMP-dc:Description=Anderswo beschriftet', join(dir, 'mine-out.jpg'), join(dir, 'mine-pick.jpg'));
      await scanFolder(ctx, folder);
      // The rescan did read the changed files (their new caption), and kept the user's flags.
      const caption = ctx.db.prepare<[number], { caption: string | null }>('SELECT caption FROM assets WHERE id = ?').get(id('mine-out.jpg'))!.caption;
      expect(caption).toBe('Anderswo beschriftet');
      expect([flag('mine-out.jpg'), flag('mine-pick.jpg')]).toEqual(['reject', 'pick']);
      // Then rejected there: the later decision, made in the file, replaces the pick.
      exiftool('-XMP-xmp:Rating=-1', join(dir, 'mine-pick.jpg'));
      await scanFolder(ctx, folder);
      expect([flag('mine-out.jpg'), flag('mine-pick.jpg')]).toEqual(['reject', 'reject']);
    } finally {
      ctx.db.close();
    }
  });
});
