import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tagsmithSync, type CliRun } from '../helpers/cli';
import { createApi, type ApiHost } from '../../src-main/api';
import { findAssetByPath } from '../../src-main/library/assets';
import { openLibrary } from '../../src-main/library/context';

// Colour labels end to end through the CLI (a real child process): read from files and from
// a RAW's sidecar as Debian's exiftool wrote them, set and cleared, searched, undone,
// written into the files by `export --write-files` as XMP Label with Lightroom's names, and
// read back from a file another program changed.

let root: string;
let photos: string;
let library: string;
const p = (name: string): string => join(photos, name);

const tagsmith = (...args: string[]): CliRun => tagsmithSync(library, args);

/** Debian's exiftool, not the library's: an outside reader and writer. */
const exiftool = (...args: string[]): string => execFileSync('exiftool', args, { encoding: 'utf8' });
const xmpLabel = (file: string): string => exiftool('-s3', '-XMP-xmp:Label', file).trim();

const label = (path: string): string | null => tagsmith('show', path, '--json').json<{ label: string | null }>().label;
const found = (...args: string[]): string[] => {
  const r = tagsmith('search', ...args, '--json');
  expect(r.code, r.stderr).toBe(0);
  return r.json<{ path: string }[]>().map((a) => a.path).sort();
};

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tagsmith-labels-')));
  photos = join(root, 'photos');
  library = join(root, 'lib');
  mkdirSync(photos);
  const picture = (background: string) => sharp({ create: { width: 64, height: 48, channels: 3, background } });
  await picture('#a33').jpeg().toFile(p('plain.jpg'));
  await picture('#aa3').jpeg().toFile(p('yellow.jpg'));
  exiftool('-q', '-overwrite_original', '-XMP-xmp:Label=Yellow', p('yellow.jpg'));
  // A camera RAW (TIFF-based, as a CR2 is) whose label lives in its Lightroom-named sidecar.
  await picture('#3a3').tiff().toFile(p('IMG_7.cr2'));
  exiftool('-q', '-overwrite_original', '-IFD0:Make=Canon', '-IFD0:Model=Canon EOS 5D', p('IMG_7.cr2'));
  exiftool('-q', '-o', p('IMG_7.xmp'), '-XMP-xmp:Label=Green', '-XMP-xmp:Rating=2');
  const r = tagsmith('index', photos, '--json');
  expect(r.code, r.stderr).toBe(0);
});

describe('colour labels', () => {
  it('reads labels from files and sidecars, sets, searches, undoes, writes XMP Label and reads it back', () => {
    expect(label(p('plain.jpg'))).toBeNull();
    expect(label(p('yellow.jpg'))).toBe('yellow');
    expect(label(p('IMG_7.cr2'))).toBe('green');
    expect(found('--label', 'yellow')).toEqual([p('yellow.jpg')]);
    expect(found('--label', 'none')).toEqual([p('plain.jpg')]);

    // Set: both named files change, in one undoable edit.
    const set = tagsmith('label', p('plain.jpg'), p('IMG_7.cr2'), '--color', 'purple', '--json');
    expect(set.code, set.stderr).toBe(0);
    expect(set.json()).toMatchObject({ updated: 2, assets: [{ path: p('plain.jpg'), label: 'purple' }, { path: p('IMG_7.cr2'), label: 'purple' }] });
    expect(found('--label', 'purple')).toEqual([p('IMG_7.cr2'), p('plain.jpg')].sort());
    expect(found('--label', 'green')).toEqual([]);
    expect(found('--label', 'none')).toEqual([]);
    const undo = tagsmith('undo', '--json');
    expect(undo.code, undo.stderr).toBe(0);
    expect(undo.stdout).toContain('label 2 photos purple');
    expect(label(p('plain.jpg'))).toBeNull();
    expect(label(p('IMG_7.cr2'))).toBe('green');

    // Set again, clear one, and write the files.
    expect(tagsmith('label', p('plain.jpg'), p('IMG_7.cr2'), '--color', 'purple').code).toBe(0);
    expect(tagsmith('label', p('yellow.jpg'), '--color', 'none').code).toBe(0);
    expect(found('--label', 'none')).toEqual([p('yellow.jpg')]);
    const rawBytes = readFileSync(p('IMG_7.cr2'));
    const w = tagsmith('export', p('plain.jpg'), p('yellow.jpg'), p('IMG_7.cr2'), '--write-files', '--json');
    expect(w.code, w.stderr).toBe(0);
    expect(w.json()).toMatchObject({ written: 3, failed: 0 });
    expect(xmpLabel(p('plain.jpg'))).toBe('Purple');
    expect(xmpLabel(p('yellow.jpg'))).toBe('');
    expect(xmpLabel(p('IMG_7.xmp'))).toBe('Purple');
    // The sidecar's other values stay, and the RAW itself is never written.
    expect(exiftool('-s3', '-XMP-xmp:Rating', p('IMG_7.xmp')).trim()).toBe('2');
    expect(readFileSync(p('IMG_7.cr2')).equals(rawBytes)).toBe(true);

    // Another program changes the labels (Lightroom only the RAW's sidecar); the rescan takes the files' values.
    exiftool('-q', '-overwrite_original', '-XMP-xmp:Label=Blue', p('plain.jpg'));
    exiftool('-q', '-overwrite_original', '-XMP-xmp:Label=Red', p('IMG_7.xmp'));
    expect(tagsmith('index', photos).code).toBe(0);
    expect(label(p('plain.jpg'))).toBe('blue');
    expect(label(p('IMG_7.cr2'))).toBe('red');
    expect(found('--label', 'red')).toEqual([p('IMG_7.cr2')]);
  }, 180_000);

  it('refuses a colour it does not know, naming the five, and filters flags', () => {
    const bad = tagsmith('label', p('plain.jpg'), '--color', 'orange');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('red, yellow, green, blue, purple, none');
    expect(tagsmith('label', p('plain.jpg')).code).toBe(2);
    expect(tagsmith('search', '--label', 'pink').code).toBe(2);
    expect(found('--flag', 'none')).toHaveLength(3);
    expect(found('--flag', 'pick')).toEqual([]);
    expect(tagsmith('search', '--flag', 'maybe').code).toBe(2);
  });
});

describe('colour labels through the Api', () => {
  let host: ApiHost | null = null;
  afterAll(async () => {
    await host?.dispose();
  });

  it('a label is a pending write like keywords: unsaved until written, then in sync; undo and validation', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'tagsmith-labels-api-')));
    const pics = join(dir, 'pics');
    mkdirSync(pics);
    await sharp({ create: { width: 40, height: 30, channels: 3, background: '#246' } }).jpeg().toFile(join(pics, 'a.jpg'));
    const ctx = openLibrary(join(dir, 'lib'));
    host = createApi(ctx, { watch: false });
    const api = host.api;
    await api.addFolder({ path: pics });
    await host.scanner.waitForIdle();
    const id = findAssetByPath(ctx, join(pics, 'a.jpg'))!;
    expect((await api.getAsset({ id })).label).toBeNull();

    await api.setLabel({ ids: [id], label: 'green' });
    expect(await api.getAsset({ id })).toMatchObject({ label: 'green', colorLabel: 'Green' });
    expect(await api.syncState({ id })).toMatchObject({ status: 'unsaved', unsavedFields: ['label'] });
    expect((await api.search({ query: { label: 'green' }, page: { offset: 0, limit: 5 } })).items.map((a) => a.id)).toEqual([id]);

    expect((await api.writeMetadata({ ids: [id] })).map((r) => r.status)).toEqual(['written']);
    expect(xmpLabel(join(pics, 'a.jpg'))).toBe('Green');
    expect((await api.syncState({ id })).status).toBe('written');

    // Clearing it is a change too, written as the tag's removal.
    await api.setLabel({ ids: [id], label: null });
    expect(await api.syncState({ id })).toMatchObject({ status: 'unsaved', unsavedFields: ['label'] });
    expect(await api.undo()).toBe('Undo: clear the colour label of 1 photo');
    expect((await api.getAsset({ id })).label).toBe('green');
    await api.setLabel({ ids: [id], label: null });
    await api.writeMetadata({ ids: [id] });
    expect(xmpLabel(join(pics, 'a.jpg'))).toBe('');

    // The renderer's path validates: only the five, or null.
    expect(await host.invoke('setLabel', { ids: [id], label: 'orange' })).toMatchObject({ ok: false, error: { kind: 'validation' } });
    expect(await host.invoke('search', { query: { label: 'pink' }, page: { offset: 0, limit: 1 } })).toMatchObject({ ok: false });
  });
});
