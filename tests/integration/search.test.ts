import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { SearchQuery } from '../../src-preload/contract';
import { findAssetByPath, getAssetDetail } from '../../src-main/library/assets';
import { openLibrary, type LibraryCtx } from '../../src-main/library/context';
import { facets, ftsQuery, search, searchIds } from '../../src-main/search/search';
import { seedAsset, seedAssets, seedFolder, seedSyntheticLibrary } from '../helpers/seed';

let ctx: LibraryCtx;
let folder: number;
const newCtx = () => openLibrary(mkdtempSync(join(tmpdir(), 'tagsmith-search-')));
const names = (q: SearchQuery, opts = {}) => search(ctx, q, { offset: 0, limit: 100 }, opts).items.map((i) => i.name);

beforeEach(() => {
  ctx = newCtx();
  folder = seedFolder(ctx.db, '/photos');
  seedAssets(ctx.db, [
    { folderId: folder, relPath: 'beach.jpg', takenAt: '2021-07-01T10:00:00', keywords: ['Beach', 'sea'], rating: 4, cameraMake: 'Canon', cameraModel: 'Canon EOS R5', caption: 'Sunset over the bay', contentHash: 'h1', size: 300 },
    { folderId: folder, relPath: 'dog.jpg', takenAt: '2020-01-02T08:00:00+02:00', keywords: ['dog'], rating: 2, cameraMake: 'SONY', cameraModel: 'ILCE-7M3', contentHash: 'h2', size: 100 },
    { folderId: folder, relPath: 'copy/beach.jpg', takenAt: '2021-07-01T10:00:00', keywords: ['Beach'], contentHash: 'h1', size: 300 },
    { folderId: folder, relPath: 'undated.png', keywords: [], contentHash: 'h3', size: 50, hasError: true },
    { folderId: folder, relPath: 'clip.mp4', kind: 'video', takenAt: '2022-03-03T12:00:00', contentHash: 'h4', durationS: 12, title: 'Surf clip', size: 900 },
    { folderId: folder, relPath: 'gone.jpg', takenAt: '2019-01-01T00:00:00', keywords: ['dog'], removedAt: 1 },
  ]);
});

describe('search', () => {
  it('lists live assets by capture date with undated ones last, in both directions', () => {
    expect(names({})).toEqual(['dog.jpg', 'beach.jpg', 'beach.jpg', 'clip.mp4', 'undated.png']);
    expect(names({ order: 'desc' })).toEqual(['clip.mp4', 'beach.jpg', 'beach.jpg', 'dog.jpg', 'undated.png']);
    expect(search(ctx, {}, { offset: 0, limit: 2 }).total).toBe(5);
  });

  it('pages across the dated/undated boundary without gaps or repeats', () => {
    const all = searchIds(ctx, {});
    const paged = [0, 2, 4].flatMap((offset) => search(ctx, {}, { offset, limit: 2 }).items.map((i) => i.id));
    expect(paged).toEqual(all);
  });

  it('sorts by name, size and date added with a stable tiebreak', () => {
    expect(names({ sort: 'name' })).toEqual(['beach.jpg', 'beach.jpg', 'clip.mp4', 'dog.jpg', 'undated.png']);
    expect(names({ sort: 'size', order: 'desc' })).toEqual(['clip.mp4', 'beach.jpg', 'beach.jpg', 'dog.jpg', 'undated.png']);
    const [first, second] = search(ctx, { sort: 'size', order: 'desc' }, { offset: 0, limit: 5 }).items.slice(1, 3);
    expect(first.id).toBeGreaterThan(second.id);
  });

  it('matches words as prefixes across name, keywords, caption and title, all words required', () => {
    expect(names({ text: 'sun' })).toEqual(['beach.jpg']);
    expect(names({ text: 'sea BEA' })).toEqual(['beach.jpg']);
    expect(names({ text: 'surf' })).toEqual(['clip.mp4']);
    expect(names({ text: 'dog' })).toEqual(['dog.jpg']);
  });

  it('treats FTS syntax in user text as plain words', () => {
    expect(ftsQuery('a" OR b*')).toBe('"a"""* AND "OR"* AND "b*"*');
    for (const text of ['"', 'NEAR(a b)', 'dog OR', '*', 'a AND', '-dog', ':', "'; DROP TABLE assets; --"]) {
      expect(() => search(ctx, { text }, { offset: 0, limit: 10 })).not.toThrow();
    }
    expect(names({ text: '   ' })).toHaveLength(5);
  });

  it('filters by keyword (case-insensitive, all required), absent keywords and no keywords', () => {
    expect(names({ keywords: ['beach'] })).toEqual(['beach.jpg', 'beach.jpg']);
    expect(names({ keywords: ['BEACH', 'Sea'] })).toEqual(['beach.jpg']);
    expect(names({ withoutKeywords: ['sea', 'DOG'] }).sort()).toEqual(['beach.jpg', 'clip.mp4', 'undated.png']);
    expect(names({ noKeywords: true }).sort()).toEqual(['clip.mp4', 'undated.png']);
  });

  it('filters by kind, rating, dates (inclusive, local wall-clock), camera, folder, duplicates and errors', () => {
    expect(names({ kinds: ['video'] })).toEqual(['clip.mp4']);
    expect(names({ minRating: 3 })).toEqual(['beach.jpg']);
    expect(names({ takenFrom: '2020-01-02', takenTo: '2021-07-01' })).toEqual(['dog.jpg', 'beach.jpg', 'beach.jpg']);
    expect(names({ takenFrom: '2021-07-02' })).toEqual(['clip.mp4']);
    expect(names({ camera: 'ILCE-7M3' })).toEqual(['dog.jpg']);
    expect(names({ camera: 'Canon' })).toEqual(['beach.jpg']);
    expect(names({ duplicatesOnly: true })).toEqual(['beach.jpg', 'beach.jpg']);
    expect(names({ errorsOnly: true })).toEqual(['undated.png']);
    expect(names({ folderId: folder + 1 })).toEqual([]);
  });

  it('a duplicate whose twin was removed is no longer a duplicate', () => {
    ctx.db.prepare("UPDATE assets SET removed_at = 1 WHERE rel_path = 'copy/beach.jpg'").run();
    expect(names({ duplicatesOnly: true })).toEqual([]);
  });

  it('maps rows to summaries with thumbnail tokens, folder state and counts', () => {
    ctx.db.prepare("UPDATE assets SET thumb = 'thumbs/ab/1.jpg' WHERE rel_path = 'beach.jpg'").run();
    ctx.db.prepare('UPDATE folders SET online = 0').run();
    const item = search(ctx, { text: 'sunset' }, { offset: 0, limit: 1 }).items[0];
    expect(item).toMatchObject({ name: 'beach.jpg', kind: 'image', rating: 4, keywordCount: 2, hasError: false, folderOnline: false, stackCount: 0 });
    expect(decodeURIComponent(item.thumb!.slice(2))).toBe(join(ctx.paths.cacheDir, 'thumbs/ab/1.jpg'));
  });
});

describe('RAW+JPEG stacks', () => {
  beforeEach(() => {
    seedAssets(ctx.db, [
      { folderId: folder, relPath: 'IMG_1.CR2', format: 'cr2', isRaw: true, takenAt: '2023-01-01T00:00:00', keywords: ['rawonly'] },
      { folderId: folder, relPath: 'IMG_1.JPG', takenAt: '2023-01-01T00:00:00' },
      { folderId: folder, relPath: 'IMG_2.NEF', format: 'nef', isRaw: true, takenAt: '2023-01-02T00:00:00' },
    ]);
  });

  it('shows one item per stack, the JPEG, with the count of the others', () => {
    const items = search(ctx, { takenFrom: '2023-01-01' }, { offset: 0, limit: 10 }).items;
    expect(items.map((i) => [i.name, i.stackCount])).toEqual([['IMG_1.JPG', 1], ['IMG_2.NEF', 0]]);
    expect(search(ctx, {}, { offset: 0, limit: 1 }).total).toBe(7);
  });

  it('shows the RAW when only the RAW matches', () => {
    expect(names({ keywords: ['rawonly'] })).toEqual(['IMG_1.CR2']);
    expect(names({ text: 'cr2' })).toEqual(['IMG_1.CR2']);
  });

  it('folds stacks afresh for each text, though the rest of the query is the same', () => {
    expect(names({ text: 'img_1' })).toEqual(['IMG_1.JPG']);
    expect(names({ text: 'cr2' })).toEqual(['IMG_1.CR2']);
    expect(names({ text: 'img_1' })).toEqual(['IMG_1.JPG']);
  });

  it('lists every file when asked to expand stacks (the CLI)', () => {
    expect(names({ takenFrom: '2023-01-01' }, { expandStacks: true })).toEqual(['IMG_1.CR2', 'IMG_1.JPG', 'IMG_2.NEF']);
    expect(searchIds(ctx, { takenFrom: '2023-01-01' }, { expandStacks: true, limit: 2 })).toHaveLength(2);
  });

  it('notices stacks that change after a search (cache invalidation)', () => {
    expect(names({ takenFrom: '2023-01-01' })).toEqual(['IMG_1.JPG', 'IMG_2.NEF']);
    seedAsset(ctx.db, { folderId: folder, relPath: 'IMG_2.jpg', takenAt: '2023-01-02T00:00:00' });
    expect(names({ takenFrom: '2023-01-01' })).toEqual(['IMG_1.JPG', 'IMG_2.jpg']);
    ctx.db.prepare("UPDATE assets SET removed_at = 1 WHERE rel_path = 'IMG_1.JPG'").run();
    expect(names({ takenFrom: '2023-01-01' })).toEqual(['IMG_1.CR2', 'IMG_2.jpg']);
  });

  it('notices changes made through another connection', () => {
    expect(names({ takenFrom: '2023-01-01' })).toEqual(['IMG_1.JPG', 'IMG_2.NEF']);
    const other = openLibrary(ctx.paths.dataDir);
    seedAsset(other.db, { folderId: folder, relPath: 'IMG_2.jpg', takenAt: '2023-01-02T00:00:00' });
    other.db.close();
    expect(names({ takenFrom: '2023-01-01' })).toEqual(['IMG_1.JPG', 'IMG_2.jpg']);
  });
});

describe('facets and asset detail', () => {
  it('counts cameras and kinds over live assets', () => {
    const f = facets(ctx);
    expect(f.total).toBe(5);
    expect(f.kinds).toEqual([{ kind: 'image', count: 4 }, { kind: 'video', count: 1 }]);
    expect(f.cameras).toEqual([{ name: 'Canon EOS R5', count: 1 }, { name: 'ILCE-7M3', count: 1 }]);
  });

  it('groups photos of one camera into one entry, whatever their file names', () => {
    seedAssets(ctx.db, [
      { folderId: folder, relPath: 'r5-a.jpg', cameraMake: 'Canon', cameraModel: 'Canon EOS R5' },
      { folderId: folder, relPath: 'r5-b.jpg', cameraMake: 'Canon', cameraModel: 'Canon EOS R5' },
      { folderId: folder, relPath: 'make-only.jpg', cameraMake: 'FUJIFILM' },
    ]);
    expect(facets(ctx).cameras).toEqual([
      { name: 'Canon EOS R5', count: 3 },
      { name: 'FUJIFILM', count: 1 },
      { name: 'ILCE-7M3', count: 1 },
    ]);
  });

  it('gives the full detail: path, keywords in order, errors, duplicates, stack, preview', () => {
    const id = findAssetByPath(ctx, '/photos/beach.jpg')!;
    ctx.db.prepare("INSERT INTO scan_errors (folder_id, asset_id, path, stage, reason, at) VALUES (?, ?, '/photos/beach.jpg', 'metadata', 'bad EXIF', 5)").run(folder, id);
    const d = getAssetDetail(ctx, id);
    expect(d).toMatchObject({ path: '/photos/beach.jpg', keywords: ['Beach', 'sea'], cameraModel: 'Canon EOS R5', gps: null, stack: [] });
    expect(d.errors).toEqual([{ stage: 'metadata', reason: 'bad EXIF', at: 5 }]);
    expect(d.duplicates).toEqual([{ id: findAssetByPath(ctx, '/photos/copy/beach.jpg'), path: '/photos/copy/beach.jpg' }]);
    expect(d.preview).toBe(d.original);
    expect(getAssetDetail(ctx, id, '/cache/previews/x.jpg').preview).toBe('m/' + encodeURIComponent('/cache/previews/x.jpg'));
    expect(getAssetDetail(ctx, findAssetByPath(ctx, '/photos/clip.mp4')!).preview).toBeNull();
  });

  it('rejects unknown and removed assets with not_found', () => {
    expect(() => getAssetDetail(ctx, 9999)).toThrow(expect.objectContaining({ kind: 'not_found' }));
    const gone = ctx.db.prepare("SELECT id FROM assets WHERE rel_path = 'gone.jpg'").pluck().get() as number;
    expect(() => getAssetDetail(ctx, gone)).toThrow(expect.objectContaining({ kind: 'not_found' }));
    expect(findAssetByPath(ctx, '/photos/gone.jpg')).toBeNull();
    expect(findAssetByPath(ctx, '/elsewhere/beach.jpg')).toBeNull();
  });
});

describe('on a synthetic library', () => {
  it('answers typical queries with the same results whichever way stacks are handled', () => {
    const big = newCtx();
    seedSyntheticLibrary(big.db, 20_000); // the 100k timing is a benchmark, not a test
    const q: SearchQuery = { text: 'sun', keywords: ['sky'], minRating: 2 };
    const collapsed = search(big, q, { offset: 0, limit: 200 });
    const all = searchIds(big, q, { expandStacks: true });
    expect(collapsed.total).toBeGreaterThan(0);
    expect(collapsed.total).toBeLessThanOrEqual(all.length);
    expect(searchIds(big, q)).toHaveLength(collapsed.total);
    expect(collapsed.items.every((i) => i.rating >= 2)).toBe(true);
  });

  it('cuts deep pages from the remembered ordered list, the same as walking with OFFSET, and forgets it on any change', () => {
    const big = newCtx();
    seedSyntheticLibrary(big.db, 16_000);
    // The reference order comes through another connection, which remembers nothing of ours.
    const reference = openLibrary(big.paths.dataDir);
    // Broad filters read their first pages by walking the sort's index, narrow ones sort
    // their matches (walkOrderIndex): either way the same rows in the same order.
    const queries: SearchQuery[] = [
      { order: 'desc' }, { text: 'sun', sort: 'name' }, { withoutKeywords: ['sky'], sort: 'size', order: 'desc' },
      { minRating: 1 }, { minRating: 2, sort: 'name', order: 'desc' }, { minRating: 1, sort: 'addedAt' },
    ];
    for (const q of queries) {
      const ids = searchIds(reference, q);
      expect(ids.length, JSON.stringify(q)).toBeGreaterThan(2100);
      // Shallow pages walk the index (LIMIT/OFFSET) until a deep one builds the list; from
      // then on every page, shallow ones too, is cut from it. All agree with the reference.
      for (const offset of [0, 1900, 2000, ids.length - 50, 0, 1900]) {
        const page = search(big, q, { offset, limit: 150 });
        expect(page.total).toBe(ids.length);
        expect(page.items.map((i) => i.id), `${JSON.stringify(q)} @${offset}`).toEqual(ids.slice(offset, offset + 150));
      }
    }
    reference.db.close();
    const q: SearchQuery = { order: 'desc' };
    const deep = search(big, q, { offset: 5000, limit: 1 }).items[0];
    big.db.prepare('UPDATE assets SET removed_at = 1 WHERE id = ?').run(deep.id);
    const after = search(big, q, { offset: 5000, limit: 1 });
    expect(after.items[0].id).not.toBe(deep.id);
    expect(searchIds(big, q)).not.toContain(deep.id);
    // A change made through another connection is noticed as well.
    const other = openLibrary(big.paths.dataDir);
    other.db.prepare('UPDATE assets SET removed_at = NULL WHERE id = ?').run(deep.id);
    other.db.close();
    expect(search(big, q, { offset: 5000, limit: 1 }).items[0].id).toBe(deep.id);
  }, 600_000); // ~35 s on an idle 2-core machine, several minutes on a loaded one: a safety net only
});
