import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changesSince } from '../../src-main/catalogue/change-log';
import { openLibrary, type LibraryCtx } from '../../src-main/library/context';
import { editKeywords } from '../../src-main/library/edits';
import { addFolder } from '../../src-main/library/folders';
import { getAssetKeywords } from '../../src-main/library/keywords';
import { mediaHashOfFile } from '../../src-main/library/media-hash';
import { closeMetadataReader } from '../../src-main/metadata/reader';
import { scanFolder } from '../../src-main/library/scan';
import { thumbQueue } from '../../src-main/library/thumb-queue';

// Issue 36 point 2: time to grid. A new photo is in the grid with the preview it carries before
// any byte of its image data is read: its content hash (and media hash) are taken by the pass
// after the grid, its full-thumbnail job, from one read. Nothing is lost meanwhile: a photo
// moved before that pass (Tagsmith closed) keeps its keywords, found by its size and
// modification time, which a move keeps.

let root: string;
let photos: string;
let dataDir: string;
let ctx: LibraryCtx;
let folderId: number;

interface Row {
  id: number;
  rel_path: string;
  thumb: string | null;
  content_hash: string | null;
  media_hash: string | null;
  removed_at: number | null;
}
const rows = (): Row[] => ctx.db.prepare<[], Row>('SELECT id, rel_path, thumb, content_hash, media_hash, removed_at FROM assets ORDER BY rel_path').all();
const sha256 = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tagsmith-grid-hash-')));
  photos = join(root, 'photos');
  mkdirSync(photos);
  // Camera-like JPEGs: each with a 160 px EXIF thumbnail (what the grid shows first), each its own picture.
  const thumb = join(root, 'thumb.jpg');
  await sharp({ create: { width: 160, height: 120, channels: 3, background: '#20c020' } }).jpeg().toFile(thumb);
  const colours = ['#2040d0', '#d04020', '#40d020', '#a0a0a0', '#303030', '#d0d040'];
  for (const [i, colour] of colours.entries()) {
    const file = join(photos, `IMG_${i}.jpg`);
    await sharp({ create: { width: 900 + i * 10, height: 600, channels: 3, background: colour } }).jpeg().toFile(file);
    execFileSync('exiftool', ['-q', '-overwrite_original', `-ThumbnailImage<=${thumb}`, file]);
  }
  await sharp({ create: { width: 500, height: 400, channels: 3, background: '#2040d0' } }).png().toFile(join(photos, 'plain.png'));
  dataDir = join(root, 'data');
  ctx = openLibrary(dataDir);
  folderId = addFolder(ctx, photos).id;
}, 300_000);

afterAll(async () => {
  await closeMetadataReader();
  ctx?.db.close();
  await rm(root, { recursive: true, force: true });
});

describe('time to grid', () => {
  it('shows every new photo before its content hash, which the pass after the grid records', async () => {
    const atFirstShow = new Map<string, Row>();
    const off = ctx.events.on('libraryChanged', () => {
      for (const r of rows()) if (r.thumb !== null && !atFirstShow.has(r.rel_path)) atFirstShow.set(r.rel_path, r);
    });
    await scanFolder(ctx, folderId);
    off();
    // In the grid with a picture, and no hash yet (the JPEGs' image data not read)...
    const jpegs = [...atFirstShow.values()].filter((r) => r.rel_path.endsWith('.jpg'));
    expect(jpegs).toHaveLength(6);
    // (The PNG shows once its full thumbnail, which takes its hash, is made.)
    for (const r of jpegs) expect(r.content_hash, r.rel_path).toBeNull();
    // ...and when the scan returns, every photo has the hashes a whole read gives.
    const now = rows();
    expect(now).toHaveLength(7);
    for (const r of now) {
      const file = join(photos, r.rel_path);
      expect(r.content_hash, r.rel_path).toBe(sha256(file));
      expect(r.media_hash, r.rel_path).toBe(await mediaHashOfFile(file, r.rel_path.endsWith('.png') ? 'png' : 'jpeg', readFileSync(file)));
    }
    // Other machines learn each hash: the scan's add, then a change with the hash.
    const changes = changesSince(ctx.db, 0, 1000).filter((c) => c.op === 'asset.change');
    expect(changes.map((c) => c.asset?.path).sort()).toEqual(now.map((r) => r.rel_path).sort());
    for (const c of changes) expect(c.value).toEqual({ size: expect.any(Number), mtimeMs: expect.any(Number), hash: c.asset?.hash });
  });
});

describe('a photo moved before its hash was taken', () => {
  it('keeps its keywords when moved while Tagsmith was closed', async () => {
    const moving = join(root, 'moving');
    mkdirSync(moving);
    for (const name of ['IMG_0.jpg', 'IMG_1.jpg', 'IMG_2.jpg', 'IMG_3.jpg']) renameSync(join(photos, name), join(moving, name));
    const id = addFolder(ctx, moving).id;
    // The scan stops as soon as the photos are in the grid, as when Tagsmith is closed then.
    const stop = new AbortController();
    const off = ctx.events.on('libraryChanged', () => stop.abort());
    await scanFolder(ctx, id, { signal: stop.signal });
    off();
    await thumbQueue(ctx).idle();
    const inFolder = (): Row[] => ctx.db.prepare<[number], Row>('SELECT id, rel_path, thumb, content_hash, media_hash, removed_at FROM assets WHERE folder_id = ?').all(id);
    const unhashed = inFolder().filter((r) => r.content_hash === null);
    // At most the two jobs already running when it stopped took theirs.
    expect(unhashed.length).toBeGreaterThanOrEqual(2);
    const [moved, deleted] = unhashed;
    await editKeywords(ctx, [moved.id, deleted.id], ['harbour'], []);
    ctx.db.close();

    // Closed: one photo is moved into a sub-folder, another deleted.
    mkdirSync(join(moving, 'sorted'));
    renameSync(join(moving, moved.rel_path), join(moving, 'sorted', moved.rel_path));
    renameSync(join(moving, deleted.rel_path), join(root, 'trash.jpg'));
    ctx = openLibrary(dataDir);
    await scanFolder(ctx, id);
    const byId = new Map(inFolder().map((r) => [r.id, r]));
    expect(byId.get(moved.id)).toMatchObject({ rel_path: `sorted/${moved.rel_path}`, removed_at: null });
    expect(byId.get(moved.id)!.content_hash).toBe(sha256(join(moving, 'sorted', moved.rel_path)));
    expect(getAssetKeywords(ctx.db, moved.id)).toEqual(['harbour']);
    expect(byId.get(deleted.id)!.removed_at).not.toBeNull();
    // No photo twice.
    expect(inFolder().filter((r) => r.removed_at === null)).toHaveLength(3);
  });
});
