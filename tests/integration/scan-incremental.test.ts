import { copyFile, rename, unlink, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScanProgress } from '../../src-preload/contract';
import { openLibrary } from '../../src-main/library/context';
import { addFolder, listFolders, refreshOnline, relinkFolder } from '../../src-main/library/folders';
import { getAssetKeywords, setAssetKeywords } from '../../src-main/library/keywords';
import { closeMetadataReader } from '../../src-main/metadata/reader';
import { OFFLINE_REASON, Scanner, scanFolder } from '../../src-main/library/scan';
import { startWatching } from '../../src-main/library/watch';
import { asset, liveCount, setUp, type Fixture } from './scan-helpers';

// Rescans of a changing tree: unchanged, touched, moved, removed, offline, relinked,
// cancelled and resumed, and the watcher. The steps build on each other, in order.

let fx: Fixture;
const zero = { added: 0, updated: 0, removed: 0, moved: 0, cancelled: false };

beforeAll(async () => {
  fx = await setUp();
  await scanFolder(fx.ctx, fx.folderId);
});

afterAll(async () => {
  await closeMetadataReader();
  await fx.cleanup();
});

describe('incremental rescans', () => {
  it('an unchanged rescan changes nothing', async () => {
    const s = await scanFolder(fx.ctx, fx.folderId);
    expect(s).toMatchObject(zero);
    expect(liveCount(fx.ctx)).toBe(fx.tree.expectedAssets);
  });

  it('a touched file is updated, and hand-set keywords survive the re-read', async () => {
    const a = asset(fx.ctx, fx.tree.files.tagged);
    setAssetKeywords(fx.ctx.db, a.id, [...getAssetKeywords(fx.ctx.db, a.id), 'Hand Added']);
    const later = new Date(Date.now() + 5000);
    await utimes(join(fx.tree.root, fx.tree.files.tagged), later, later);
    const s = await scanFolder(fx.ctx, fx.folderId);
    expect(s).toMatchObject({ ...zero, updated: 1 });
    expect(asset(fx.ctx, fx.tree.files.tagged).id).toBe(a.id);
    expect(getAssetKeywords(fx.ctx.db, a.id)).toContain('Hand Added');
    expect(getAssetKeywords(fx.ctx.db, a.id)).toContain('Москва');
  });

  it('a renamed/moved file keeps its id and keywords and counts as moved', async () => {
    const before = asset(fx.ctx, fx.tree.files.orient[3]);
    setAssetKeywords(fx.ctx.db, before.id, ['Kept Keyword']);
    await rename(join(fx.tree.root, fx.tree.files.orient[3]), join(fx.tree.root, 'sub/renamed.jpg'));
    const s = await scanFolder(fx.ctx, fx.folderId);
    expect(s).toMatchObject({ ...zero, moved: 1 });
    const after = asset(fx.ctx, 'sub/renamed.jpg');
    expect(after.id).toBe(before.id);
    expect(after.removed_at).toBeNull();
    expect(after.taken_at).toBe(before.taken_at);
    expect(getAssetKeywords(fx.ctx.db, after.id)).toEqual(['Kept Keyword']);
    expect(fx.ctx.db.prepare('SELECT 1 FROM assets WHERE rel_path = ?').get(fx.tree.files.orient[3])).toBeUndefined();
  });

  it('a deleted file is marked removed (kept for a later move), not counted as live', async () => {
    await unlink(join(fx.tree.root, fx.tree.files.dupB));
    const s = await scanFolder(fx.ctx, fx.folderId);
    expect(s).toMatchObject({ ...zero, removed: 1 });
    expect(asset(fx.ctx, fx.tree.files.dupB).removed_at).not.toBeNull();
    expect(liveCount(fx.ctx)).toBe(fx.tree.expectedAssets - 1);
    expect(listFolders(fx.ctx)[0].assetCount).toBe(fx.tree.expectedAssets - 1);
  });

  it('a file that reappears with removed content revives the removed row', async () => {
    const removed = asset(fx.ctx, fx.tree.files.dupB);
    // The exact bytes come back under a new name: same hash as the removed row.
    await copyFile(join(fx.tree.root, fx.tree.files.dupA), join(fx.tree.root, 'sub/back-again.jpg'));
    const s = await scanFolder(fx.ctx, fx.folderId);
    expect(s).toMatchObject({ ...zero, moved: 1 });
    expect(asset(fx.ctx, 'sub/back-again.jpg').id).toBe(removed.id);
  });

  it('an offline folder keeps everything; relinking it keeps everything too', async () => {
    const live = liveCount(fx.ctx);
    const ids = fx.ctx.db.prepare<[], { id: number }>('SELECT id FROM assets ORDER BY id').all();
    const moved = `${fx.tree.root}-moved`;
    await rename(fx.tree.root, moved);
    expect(refreshOnline(fx.ctx)).toBe(true);
    expect(listFolders(fx.ctx)[0].online).toBe(false);
    expect(refreshOnline(fx.ctx)).toBe(false);
    const s = await scanFolder(fx.ctx, fx.folderId);
    expect(s).toMatchObject(zero);
    expect(s.errors).toEqual([{ path: fx.tree.root, reason: OFFLINE_REASON }]);
    expect(liveCount(fx.ctx)).toBe(live);

    const info = relinkFolder(fx.ctx, fx.folderId, moved);
    expect(info).toMatchObject({ path: moved, online: true, assetCount: live });
    const again = await scanFolder(fx.ctx, fx.folderId);
    expect(again).toMatchObject(zero);
    expect(fx.ctx.db.prepare<[], { id: number }>('SELECT id FROM assets ORDER BY id').all()).toEqual(ids);
    await rename(moved, fx.tree.root);
    relinkFolder(fx.ctx, fx.folderId, fx.tree.root);
  });

  it('a cancelled scan keeps its finished work, removes nothing, and the next scan resumes', async () => {
    const ctx2 = openLibrary(join(fx.dir, 'data2'));
    try {
      const folderId = addFolder(ctx2, fx.tree.root).id;
      const controller = new AbortController();
      let last: ScanProgress | null = null;
      const s = await scanFolder(ctx2, folderId, {
        signal: controller.signal,
        onProgress: (p) => {
          // Cancel once the first files are in flight: they finish and are committed.
          if (p.phase === 'indexing' && p.done === 0) setImmediate(() => controller.abort());
          last = p;
        },
      });
      expect(s.cancelled).toBe(true);
      expect(s.removed).toBe(0);
      expect(last).toMatchObject({ phase: 'cancelled' });
      const partial = liveCount(ctx2);
      expect(partial).toBeGreaterThan(0);
      expect(partial).toBeLessThan(liveCount(fx.ctx));
      const cp = ctx2.db.prepare<[number], { scan_checkpoint: string | null }>('SELECT scan_checkpoint FROM folders WHERE id = ?').get(folderId);
      expect(cp?.scan_checkpoint).toBeTruthy();

      const rest = await scanFolder(ctx2, folderId);
      expect(rest.cancelled).toBe(false);
      expect(rest.added).toBe(liveCount(fx.ctx) - partial);
      expect(liveCount(ctx2)).toBe(liveCount(fx.ctx));
      const done = ctx2.db.prepare<[number], { scan_checkpoint: string | null }>('SELECT scan_checkpoint FROM folders WHERE id = ?').get(folderId);
      expect(done?.scan_checkpoint).toBeNull();
    } finally {
      ctx2.db.close();
    }
  });

  it('the Scanner runs one scan at a time, emits progress, and cancel() resolves as cancelled', async () => {
    const scanner = new Scanner(fx.ctx);
    const events: ScanProgress[] = [];
    const off = fx.ctx.events.on('scanProgress', (p) => events.push(p));
    const first = scanner.enqueue(fx.folderId);
    expect(scanner.isScanning(fx.folderId)).toBe(true);
    await scanner.waitForIdle();
    expect((await first).cancelled).toBe(false);
    expect(scanner.isScanning(fx.folderId)).toBe(false);
    expect(events[events.length - 1].phase).toBe('done');

    const p = scanner.enqueue(fx.folderId);
    scanner.cancel();
    expect((await p).cancelled).toBe(true);
    await scanner.waitForIdle();
    off();
  });

  it('the watcher picks up a new file without a manual rescan', async () => {
    const scanner = new Scanner(fx.ctx);
    const stop = startWatching(fx.ctx, scanner, { debounceMs: 200 });
    try {
      const seen = new Promise<void>((resolve) => {
        const off = fx.ctx.events.on('libraryChanged', () => {
          if (fx.ctx.db.prepare('SELECT 1 FROM assets WHERE rel_path = ?').get('sub/arrived.jpg')) {
            off();
            resolve();
          }
        });
      });
      await sharp({ create: { width: 64, height: 48, channels: 3, background: '#123456' } })
        .jpeg()
        .toFile(join(fx.tree.root, 'sub/arrived.jpg'));
      await seen;
      expect(asset(fx.ctx, 'sub/arrived.jpg').removed_at).toBeNull();
    } finally {
      stop();
      await scanner.waitForIdle();
    }
  });
});
