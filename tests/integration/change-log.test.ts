import { mkdirSync, mkdtempSync, realpathSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { beforeEach, describe, expect, it } from 'vitest';
import { changesSince, deviceId, lastPosition, type LoggedChange } from '../../src-main/catalogue/change-log';
import { compare, parse } from '../../src-main/catalogue/hlc';
import { STEP } from '../../src-main/core/steps';
import { addToCollection, createCollection, removeFromCollection } from '../../src-main/library/collections';
import { openLibrary, type LibraryCtx } from '../../src-main/library/context';
import { editKeywords, setCaption, setRating, undo } from '../../src-main/library/edits';
import { addFolder, removeFolder } from '../../src-main/library/folders';
import { scanFolder } from '../../src-main/library/scan';
import { seedAssets, seedFolder } from '../helpers/seed';

// The catalogue's change log: every change applied through the door is recorded in order, with
// this library's device, a sequence number and a hybrid-logical-clock time, the asset by id and
// by folder + path, keywords and collection membership as adds and removes, other fields as
// sets; undo is a change of its own; a reader pages through "every change after X".

let dir: string;
let ctx: LibraryCtx;
let ids: number[];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tagsmith-change-log-'));
  ctx = openLibrary(dir);
  const folder = seedFolder(ctx.db, '/photos');
  ids = seedAssets(ctx.db, [
    { folderId: folder, relPath: 'a/one.jpg', keywords: ['Sky', 'Sea'] },
    { folderId: folder, relPath: 'two.jpg', keywords: [] },
  ]);
});

const all = (after = 0): LoggedChange[] => changesSince(ctx.db, after, 100_000);
const brief = (c: LoggedChange): unknown[] => [c.op, c.assetId, c.field, c.value, c.undo];

describe('the change log', () => {
  it('keeps one device id for the library, across openings', () => {
    const device = deviceId(ctx.db);
    expect(device).toMatch(/^[0-9a-f]{16}$/);
    ctx.db.close();
    ctx = openLibrary(dir);
    expect(deviceId(ctx.db)).toBe(device);
    // Another library is another device.
    const other = openLibrary(mkdtempSync(join(tmpdir(), 'tagsmith-change-log-')));
    expect(deviceId(other.db)).not.toBe(device);
    other.db.close();
  });

  it('records a set per asset for a scalar field, stamped in order with device, sequence and clock, naming the asset for other machines', async () => {
    expect(lastPosition(ctx.db)).toBe(0);
    await setRating(ctx, ids, 4);
    await setCaption(ctx, [ids[1]], '  Harbour at dusk ');
    const log = all();
    expect(log.map(brief)).toEqual([
      ['set', ids[0], 'rating', 4, false],
      ['set', ids[1], 'rating', 4, false],
      ['set', ids[1], 'caption', 'Harbour at dusk', false],
    ]);
    const device = deviceId(ctx.db);
    expect(log.map((c) => [c.device, c.seq])).toEqual([
      [device, 1],
      [device, 2],
      [device, 3],
    ]);
    for (let i = 1; i < log.length; i++) expect(compare(parse(log[i - 1].hlc), parse(log[i].hlc))).toBeLessThan(0);
    expect(log[0].asset).toEqual({ folder: '/photos', path: 'a/one.jpg', hash: null });
    // The edit it belongs to is the undo stack's entry.
    const edits = ctx.db.prepare('SELECT id FROM edits ORDER BY id').pluck().all() as number[];
    expect(log.map((c) => c.editId)).toEqual([edits[0], edits[0], edits[1]]);
    expect(lastPosition(ctx.db)).toBe(log[2].position);
  });

  it('records keywords and collection membership as adds and removes', async () => {
    await editKeywords(ctx, ids, ['Boat'], ['sea']);
    const c = createCollection(ctx, { name: 'Harbour', kind: 'manual' });
    await addToCollection(ctx, c.id, [ids[1]]);
    await removeFromCollection(ctx, c.id, [ids[1]]);
    // A collection is named across a studio's replicas by its uid (migration 36).
    const uid = expect.stringMatching(/^[0-9a-f]{32}$/);
    expect(all().map(brief)).toEqual([
      ['remove', ids[0], 'keywords', 'Sea', false],
      ['add', ids[0], 'keywords', 'Boat', false],
      ['add', ids[1], 'keywords', 'Boat', false],
      ['collection.create', null, null, { id: c.id, uid, name: 'Harbour', kind: 'manual', parentId: null, parentUid: null, query: null }, false],
      ['add', ids[1], 'collections', { collection: c.id, uid, position: 1 }, false],
      ['remove', ids[1], 'collections', { collection: c.id, uid }, false],
    ]);
  });

  it('records an undo as new changes that put the values back, marked as undo', async () => {
    await editKeywords(ctx, [ids[0]], ['Boat'], ['Sky']);
    await setRating(ctx, [ids[1]], 2);
    const before = lastPosition(ctx.db);
    expect(await undo(ctx)).toBe('Undo: rate 1 photo 2 stars');
    expect(await undo(ctx)).toMatch(/^Undo: /);
    const undone = all(before);
    expect(undone.map(brief)).toEqual([
      ['set', ids[1], 'rating', 0, true],
      ['remove', ids[0], 'keywords', 'Boat', true],
      ['add', ids[0], 'keywords', 'Sky', true],
    ]);
    // Nothing earlier is rewritten: the log only grows.
    expect(all().length).toBe(undone.length + 3);
  });

  it('records what a scan finds (added, moved, changed, gone) and a folder removed with every photo in it', async () => {
    const photos = join(realpathSync(dir), 'photos');
    mkdirSync(photos);
    for (const [name, colour] of [['a', '#a33'], ['b', '#3a3'], ['c', '#33a']]) {
      await sharp({ create: { width: 40, height: 30, channels: 3, background: colour } }).jpeg().toFile(join(photos, `${name}.jpg`));
    }
    const folder = addFolder(ctx, photos);
    await scanFolder(ctx, folder.id);
    const added = all();
    // Each photo reaches the grid before its content hash (time to grid): it is added, then
    // its hash is recorded as a change once the pass after the grid has taken it.
    // (A photo with no preview of its own is committed at once, so adds and hashes interleave.)
    expect(added[0].op).toBe('folder.add');
    const adds = added.filter((c) => c.op === 'asset.add');
    const hashes = added.filter((c) => c.op === 'asset.change');
    expect(adds.length + hashes.length).toBe(added.length - 1);
    expect(adds.map((c) => c.asset?.path).sort()).toEqual(['a.jpg', 'b.jpg', 'c.jpg']);
    expect(adds[0].asset?.folder).toBe(photos);
    expect(hashes.map((c) => c.asset?.path).sort()).toEqual(['a.jpg', 'b.jpg', 'c.jpg']);
    for (const c of hashes) {
      expect(c.asset?.hash).toMatch(/^[0-9a-f]{64}$/);
      expect(c.value).toMatchObject({ hash: c.asset?.hash, size: expect.any(Number), mtimeMs: expect.any(Number) });
      expect(c.position).toBeGreaterThan(adds.find((a) => a.assetId === c.assetId)!.position);
    }
    const seen = lastPosition(ctx.db);
    renameSync(join(photos, 'a.jpg'), join(photos, 'moved.jpg'));
    unlinkSync(join(photos, 'b.jpg'));
    writeFileSync(join(photos, 'c.jpg'), await sharp({ create: { width: 64, height: 48, channels: 3, background: '#999' } }).jpeg().toBuffer());
    await scanFolder(ctx, folder.id);
    const later = all(seen).map((c) => [c.op, c.asset?.path]);
    // The moved photo is hashed at once (a vanished photo has its size): found by its hash.
    // The changed one is hashed after the grid: its change, then the hash's.
    expect(later).toHaveLength(4);
    expect(later).toEqual(expect.arrayContaining([['asset.move', 'moved.jpg'], ['asset.change', 'c.jpg'], ['asset.change', 'c.jpg'], ['asset.vanish', 'b.jpg']]));
    const before = lastPosition(ctx.db);
    await removeFolder(ctx, folder.id);
    const removed = all(before);
    expect(removed[0]).toMatchObject({ op: 'folder.remove', value: { id: folder.id, path: photos } });
    // Every photo of the folder, named as it was (the catalogue no longer has it).
    expect(removed.slice(1).map((c) => [c.op, c.asset?.folder, c.asset?.path]).sort()).toEqual([
      ['asset.remove', photos, 'b.jpg'],
      ['asset.remove', photos, 'c.jpg'],
      ['asset.remove', photos, 'moved.jpg'],
    ]);
  });

  it('pages through every change after a position, oldest first', async () => {
    const n = 2 * STEP + 5; // more than one chunk of the edit
    const folder = seedFolder(ctx.db, '/more');
    const many = seedAssets(ctx.db, Array.from({ length: n }, (_, i) => ({ folderId: folder, relPath: `p${i}.jpg` })));
    await setRating(ctx, many, 3);
    const seen: number[] = [];
    for (let after = 0; ; ) {
      const page = changesSince(ctx.db, after, 50);
      if (!page.length) break;
      seen.push(...page.map((c) => c.assetId!));
      after = page[page.length - 1].position;
    }
    expect(seen).toEqual(many);
    const seqs = all().map((c) => c.seq);
    expect(seqs).toEqual(Array.from({ length: n }, (_, i) => i + 1));
  });
});
