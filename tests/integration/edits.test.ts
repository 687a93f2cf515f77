import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { getAssetDetail } from '../../src-main/library/assets';
import { openLibrary, type LibraryCtx } from '../../src-main/library/context';
import { editKeywords, listKeywords, removeKeywordsEach, setCaption, setKeywords, setRating, setTitle, undo } from '../../src-main/library/edits';
import { search } from '../../src-main/search/search';
import { seedAssets, seedFolder } from '../helpers/seed';

let ctx: LibraryCtx;
let ids: number[];
const kw = (id: number) => getAssetDetail(ctx, id).keywords;
const events: unknown[] = [];

beforeEach(() => {
  ctx = openLibrary(mkdtempSync(join(tmpdir(), 'tagsmith-edits-')));
  const folder = seedFolder(ctx.db, '/photos');
  ids = seedAssets(ctx.db, [
    { folderId: folder, relPath: 'a.jpg', keywords: ['Sky', 'Cat'] },
    { folderId: folder, relPath: 'b.jpg', keywords: ['dog'] },
    { folderId: folder, relPath: 'c.jpg' },
    { folderId: folder, relPath: 'gone.jpg', keywords: ['Ghost'], removedAt: 1 },
  ]);
  events.length = 0;
  ctx.events.on('libraryChanged', (e) => events.push(e));
});

describe('keyword edits', () => {
  it('append new keywords, keep existing order, remove case-insensitively, library casing wins', async () => {
    await editKeywords(ctx, ids.slice(0, 3), ['cat', 'Beach', ' beach '], ['SKY']);
    expect(kw(ids[0])).toEqual(['Cat', 'Beach']);
    expect(kw(ids[1])).toEqual(['dog', 'Cat', 'Beach']);
    expect(kw(ids[2])).toEqual(['Cat', 'Beach']);
    expect(search(ctx, { text: 'beach' }, { offset: 0, limit: 10 }).total).toBe(3);
    expect(events).toEqual([{ reason: 'edit', assetIds: ids.slice(0, 3) }]);
  });

  it('are committed before returning: another connection sees them', async () => {
    await editKeywords(ctx, [ids[2]], ['tree'], []);
    const other = openLibrary(ctx.paths.dataDir);
    expect(other.db.prepare('SELECT keywords_text FROM assets WHERE id = ?').pluck().get(ids[2])).toBe('tree');
    other.db.close();
  });

  it('set one asset’s list in order, NFC-normalised and de-duplicated', async () => {
    await setKeywords(ctx, ids[0], ['Zebra', 'Cafe\u0301', 'café', 'zebra']);
    expect(kw(ids[0])).toEqual(['Zebra', 'Café']);
  });

  it('take different keywords off each photo as one edit: one undo puts them all back', async () => {
    await removeKeywordsEach(ctx, [{ id: ids[0], remove: ['cat'] }, { id: ids[1], remove: ['DOG', 'absent'] }]);
    expect(kw(ids[0])).toEqual(['Sky']);
    expect(kw(ids[1])).toEqual([]);
    expect(events).toEqual([{ reason: 'edit', assetIds: ids.slice(0, 2) }]);
    expect(await undo(ctx)).toBe('Undo: remove 3 keywords from 2 photos');
    expect(kw(ids[0])).toEqual(['Sky', 'Cat']);
    expect(kw(ids[1])).toEqual(['dog']);
    expect(await undo(ctx)).toBeNull();
  });

  it('reject unknown or removed ids before writing anything', async () => {
    await expect(editKeywords(ctx, [ids[0], 999], ['x'], [])).rejects.toThrow(expect.objectContaining({ kind: 'not_found' }));
    await expect(setCaption(ctx, [ids[3]], 'x')).rejects.toThrow(expect.objectContaining({ kind: 'not_found' }));
    expect(kw(ids[0])).toEqual(['Sky', 'Cat']);
  });
});

describe('caption, title, rating', () => {
  it('set and clear, trimmed', async () => {
    await setCaption(ctx, [ids[0], ids[1]], '  A cat on a roof ');
    await setTitle(ctx, [ids[0]], 'Roof');
    await setRating(ctx, [ids[0]], 5);
    expect(getAssetDetail(ctx, ids[0])).toMatchObject({ caption: 'A cat on a roof', title: 'Roof', rating: 5 });
    await setCaption(ctx, [ids[0]], '   ');
    expect(getAssetDetail(ctx, ids[0]).caption).toBeNull();
  });

  it('rejects a rating outside 0..5 as a validation error on the rating field', async () => {
    for (const bad of [-1, 6, 2.5, Number.NaN]) {
      await expect(setRating(ctx, [ids[0]], bad)).rejects.toThrow(expect.objectContaining({ kind: 'validation', field: 'rating' }));
    }
  });
});

describe('undo', () => {
  it('reverts the most recent edit exactly and describes it', async () => {
    await editKeywords(ctx, ids.slice(0, 3), ['cat'], []);
    await setRating(ctx, [ids[1]], 3);
    expect(await undo(ctx)).toBe('Undo: rate 1 photo 3 stars');
    expect(getAssetDetail(ctx, ids[1]).rating).toBe(0);
    expect(await undo(ctx)).toBe('Undo: add keyword “cat” to 3 photos');
    expect(kw(ids[0])).toEqual(['Sky', 'Cat']);
    expect(kw(ids[1])).toEqual(['dog']);
    expect(kw(ids[2])).toEqual([]);
    expect(await undo(ctx)).toBeNull();
  });

  it('restores captions, titles and keyword order', async () => {
    await setCaption(ctx, [ids[0]], 'first');
    await setCaption(ctx, [ids[0]], 'second');
    await setKeywords(ctx, ids[0], ['Cat', 'Sky']);
    expect(await undo(ctx)).toBe('Undo: set the keywords of “a.jpg”');
    expect(kw(ids[0])).toEqual(['Sky', 'Cat']);
    expect(await undo(ctx)).toBe('Undo: set the caption of 1 photo');
    expect(getAssetDetail(ctx, ids[0]).caption).toBe('first');
  });

  it('does not log edits that change nothing', async () => {
    await setRating(ctx, [ids[0]], 0);
    await editKeywords(ctx, [ids[0]], ['sky'], []);
    expect(await undo(ctx)).toBeNull();
  });
});

describe('listKeywords', () => {
  it('counts live assets only, most used first, prefix case-insensitive', async () => {
    await editKeywords(ctx, [ids[1], ids[2]], ['Cat'], []);
    expect(listKeywords(ctx)).toEqual([
      { name: 'Cat', count: 3 },
      { name: 'dog', count: 1 },
      { name: 'Sky', count: 1 },
    ]);
    expect(listKeywords(ctx, 'c')).toEqual([{ name: 'Cat', count: 3 }]);
    expect(listKeywords(ctx, '%')).toEqual([]);
    expect(listKeywords(ctx, undefined, 1)).toHaveLength(1);
    await setKeywords(ctx, ids[2], ['Éclair']);
    expect(listKeywords(ctx, 'éc')).toEqual([{ name: 'Éclair', count: 1 }]);
  });

  it('counts among given photos only, in one read however many (the keyword list with 1,200 selected)', async () => {
    const folder = seedFolder(ctx.db, '/more');
    const many = seedAssets(ctx.db, Array.from({ length: 1200 }, (_, i) => ({ folderId: folder, relPath: `m${i}.jpg`, keywords: i % 3 === 0 ? ['Harbour', 'Boats'] : ['Harbour'] })));
    await editKeywords(ctx, [many[5], ids[1]], ['dog'], []);
    const counts = listKeywords(ctx, undefined, 10_000, [...many, many[0], ids[3]]);
    expect(counts).toEqual([
      { name: 'Harbour', count: 1200 },
      { name: 'Boats', count: 400 },
      { name: 'dog', count: 1 },
    ]);
    // A removed photo counts for nothing; a prefix narrows as in the library-wide list.
    expect(listKeywords(ctx, undefined, 10_000, [ids[3]])).toEqual([]);
    expect(listKeywords(ctx, 'bo', 10_000, many)).toEqual([{ name: 'Boats', count: 400 }]);
  });
});
