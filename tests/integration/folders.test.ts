import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../src-main/core/errors';
import { openLibrary, type LibraryCtx } from '../../src-main/library/context';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { STEP } from '../../src-main/core/steps';
import { createApi } from '../../src-main/api';
import { addFolder, listFolders, relinkFolder, removeFolder } from '../../src-main/library/folders';
import { setAssetKeywords } from '../../src-main/library/keywords';
import { closeMetadataReader } from '../../src-main/metadata/reader';
import { scanFolder } from '../../src-main/library/scan';
import { seedAssets, seedFolder } from '../helpers/seed';
import { watchTurns } from '../helpers/turns';
import { until } from '../helpers/until';

// Adding, refusing, relinking and forgetting library folders.

let dir: string;
let ctx: LibraryCtx;

const jpeg = (path: string, colour: string): Promise<unknown> =>
  sharp({ create: { width: 64, height: 48, channels: 3, background: colour } }).jpeg().toFile(path);

function thrown(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('expected an ApiError');
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tagsmith-folders-'));
  ctx = openLibrary(join(dir, 'data'));
  mkdirSync(join(dir, 'a/inner'), { recursive: true });
  mkdirSync(join(dir, 'b'));
});

afterEach(async () => {
  ctx.db.close();
  await closeMetadataReader();
  rmSync(dir, { recursive: true, force: true });
});

describe('library folders', () => {
  it('adds a folder by its absolute real path', () => {
    const f = addFolder(ctx, join(dir, 'a/inner/..'));
    expect(f).toMatchObject({ path: join(dir, 'a'), online: true, assetCount: 0, errorCount: 0, scanning: false, lastScanAt: null });
    expect(listFolders(ctx, () => true)[0].scanning).toBe(true);
  });

  it('refuses what does not exist, files, duplicates and overlapping folders, saying why', () => {
    writeFileSync(join(dir, 'file.txt'), 'x');
    expect(thrown(() => addFolder(ctx, join(dir, 'nope')))).toMatchObject({ kind: 'validation', field: 'path' });
    expect(thrown(() => addFolder(ctx, join(dir, 'file.txt')))).toMatchObject({ kind: 'validation', field: 'path' });
    addFolder(ctx, join(dir, 'a'));
    expect(thrown(() => addFolder(ctx, join(dir, 'a'))).kind).toBe('conflict');
    const nested = thrown(() => addFolder(ctx, join(dir, 'a/inner')));
    expect(nested.kind).toBe('conflict');
    expect(nested.message).toContain(join(dir, 'a'));
    const containing = thrown(() => addFolder(ctx, dir));
    expect(containing.kind).toBe('conflict');
    expect(containing.message).toContain('contains');
  });

  it('removing a folder forgets its rows, unshared thumbnails and unused keywords, never its files', async () => {
    await jpeg(join(dir, 'a/one.jpg'), '#ff0000');
    await jpeg(join(dir, 'b/two.jpg'), '#0000ff');
    // The same picture in both folders shares one cached thumbnail: it stays for the copy in b.
    await jpeg(join(dir, 'a/three.jpg'), '#00ff00');
    copyFileSync(join(dir, 'a/three.jpg'), join(dir, 'b/three-copy.jpg'));
    const a = addFolder(ctx, join(dir, 'a'));
    const b = addFolder(ctx, join(dir, 'b'));
    await scanFolder(ctx, a.id);
    await scanFolder(ctx, b.id);
    const one = ctx.db.prepare<[], { id: number; thumb: string }>("SELECT id, thumb FROM assets WHERE name = 'one.jpg'").get()!;
    const two = ctx.db.prepare<[], { id: number; thumb: string }>("SELECT id, thumb FROM assets WHERE name = 'two.jpg'").get()!;
    const three = ctx.db.prepare<[], { thumb: string }>("SELECT thumb FROM assets WHERE name = 'three.jpg'").get()!;
    expect(ctx.db.prepare("SELECT thumb FROM assets WHERE name = 'three-copy.jpg'").pluck().get()).toBe(three.thumb);
    setAssetKeywords(ctx.db, one.id, ['OnlyInA', 'Shared']);
    setAssetKeywords(ctx.db, two.id, ['Shared']);
    await removeFolder(ctx, a.id);
    expect(listFolders(ctx).map((f) => f.id)).toEqual([b.id]);
    expect(existsSync(join(dir, 'a/one.jpg'))).toBe(true);
    const names = ctx.db.prepare<[], { name: string }>('SELECT name FROM keywords').all().map((r) => r.name);
    expect(names).toEqual(['Shared']);
    await until(() => !existsSync(join(ctx.paths.cacheDir, one.thumb)), 'the removed folder\'s thumbnail to be deleted');
    expect(existsSync(join(ctx.paths.cacheDir, two.thumb))).toBe(true);
    expect(existsSync(join(ctx.paths.cacheDir, three.thumb))).toBe(true);
    await expect(removeFolder(ctx, a.id)).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('relinking validates the new path and refuses overlaps', () => {
    const a = addFolder(ctx, join(dir, 'a'));
    addFolder(ctx, join(dir, 'b'));
    expect(thrown(() => relinkFolder(ctx, a.id, join(dir, 'b'))).kind).toBe('conflict');
    expect(thrown(() => relinkFolder(ctx, a.id, join(dir, 'missing'))).kind).toBe('validation');
    mkdirSync(join(dir, 'c'));
    expect(relinkFolder(ctx, a.id, join(dir, 'c')).path).toBe(join(dir, 'c'));
  });

  describe('a folder of many photos', () => {
    const N = 3 * STEP + 17; // more than three transactions whatever the machine's speed (one is at most STEP photos)
    let big: number;
    let other: number;
    const photosOf = (folderId: number): number => ctx.db.prepare('SELECT count(*) FROM assets WHERE folder_id = ?').pluck().get(folderId) as number;
    const keywords = (): string[] => ctx.db.prepare('SELECT name FROM keywords ORDER BY name').pluck().all() as string[];

    beforeEach(() => {
      big = seedFolder(ctx.db, join(dir, 'a'));
      other = seedFolder(ctx.db, join(dir, 'b'));
      seedAssets(ctx.db, Array.from({ length: N }, (_, i) => ({ folderId: big, relPath: `p${i}.jpg`, keywords: ['OnlyInA', `own ${i}`] })));
      seedAssets(ctx.db, [{ folderId: other, relPath: 'kept.jpg', keywords: ['Kept'] }]);
    });

    it('goes in steps: it leaves the folder list at once, no scan adds its files back, and every photo goes', async () => {
      let scan: Promise<unknown> | null = null;
      const { seen } = await watchTurns(
        () => removeFolder(ctx, big),
        () => {
          // A scan the watcher asks for while the photos go.
          scan ??= scanFolder(ctx, big).catch((e: unknown) => e);
          return { listed: listFolders(ctx).map((f) => f.id), photos: photosOf(big) };
        },
      );
      expect(await scan).toMatchObject({ kind: 'not_found' });
      expect(seen.every((s) => s.listed.length === 1 && s.listed[0] === other)).toBe(true);
      // Several transactions, each seen by the event loop.
      const counts = new Set(seen.map((s) => s.photos));
      expect(counts.size).toBeGreaterThanOrEqual(3);
      expect(photosOf(big)).toBe(0);
      expect(ctx.db.prepare('SELECT count(*) FROM folders WHERE id = ?').pluck().get(big)).toBe(0);
      expect(photosOf(other)).toBe(1);
      expect(keywords()).toEqual(['Kept']);
    });

    it('is finished at the next start when the app quit during it; the folder can be added back only after', async () => {
      const removal = removeFolder(ctx, big);
      await nextTurn();
      await nextTurn();
      ctx.db.close(); // the app quits between two steps
      await removal;
      ctx = openLibrary(join(dir, 'data'));
      const left = photosOf(big);
      expect(left).toBeGreaterThan(0);
      expect(left).toBeLessThan(N);
      expect(listFolders(ctx).map((f) => f.id)).toEqual([other]);
      const again = thrown(() => addFolder(ctx, join(dir, 'a')));
      expect(again.kind).toBe('conflict');
      expect(again.message).toContain('still being removed');
      // The app starts: it finishes the removal, and adding the folder back waits for that.
      const host = createApi(ctx, { watch: false });
      try {
        const added = await host.invoke('addFolder', { path: join(dir, 'a') });
        expect(added).toMatchObject({ ok: true, value: { path: join(dir, 'a') } });
        expect(photosOf(big)).toBe(0);
        expect(keywords()).toEqual(['Kept']);
      } finally {
        await host.dispose();
      }
    });

    it('can be added back straight after removing it: the add waits for the removal', async () => {
      const host = createApi(ctx, { watch: false });
      try {
        const removed = host.invoke('removeFolder', { id: big });
        const added = await host.invoke('addFolder', { path: join(dir, 'a') });
        expect(await removed).toEqual({ ok: true, value: null });
        expect(added).toMatchObject({ ok: true, value: { path: join(dir, 'a'), assetCount: 0 } });
        expect(photosOf(big)).toBe(0);
        expect(listFolders(ctx).map((f) => f.path).sort()).toEqual([join(dir, 'a'), join(dir, 'b')]);
      } finally {
        await host.dispose();
      }
    });
  });
});
