import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { beforeEach, describe, expect, it } from 'vitest';
import { STEP } from '../../src-main/core/steps';
import { getAssetDetail } from '../../src-main/library/assets';
import { currentIndex, startCatalogueIndex } from '../../src-main/search/catalogue-index';
import { search } from '../../src-main/search/search';
import { openLibrary, type LibraryCtx } from '../../src-main/library/context';
import { editKeywords, setCaption, setRating, undo } from '../../src-main/library/edits';
import { logEdit } from '../../src-main/workflows/edit-log';
import { seedAssets, seedFolder } from '../helpers/seed';
import { turnsDuring } from '../helpers/turns';

// A hand edit of a large selection is written a chunk of photos per transaction with turns of
// the event loop between (the window never freezes), and stays ONE exact undo: edits and undo
// of one library run one at a time, and an edit logged from elsewhere between two chunks makes
// the rest of the chunked edit its own entry, so undo puts every photo back exactly.

const N = 3 * STEP + 17; // more than three chunks whatever the machine's speed (a chunk is at most STEP photos)

let ctx: LibraryCtx;
let ids: number[];
const kw = (id: number): string[] => getAssetDetail(ctx, id).keywords;
const snapshot = (): unknown[] => ids.map((id) => {
  const a = getAssetDetail(ctx, id);
  return [a.keywords, a.caption, a.rating];
});
const withKeyword = (word: string): number =>
  ctx.db.prepare('SELECT count(*) FROM asset_keywords ak JOIN keywords k ON k.id = ak.keyword_id WHERE k.name = ?').pluck().get(word) as number;
const log = (): { description: string; undone: number }[] =>
  ctx.db.prepare('SELECT description, undone FROM edits ORDER BY id').all() as { description: string; undone: number }[];

beforeEach(() => {
  ctx = openLibrary(mkdtempSync(join(tmpdir(), 'tagsmith-edit-steps-')));
  const folder = seedFolder(ctx.db, '/photos');
  ids = seedAssets(
    ctx.db,
    Array.from({ length: N }, (_, i) => ({ folderId: folder, relPath: `p${i}.jpg`, keywords: i % 3 === 0 ? [] : ['Sky', `own ${i}`], caption: i % 2 ? `own caption ${i}` : null })),
  );
});

describe('edits of a large selection', () => {
  it('let the event loop run between chunks, and land as one edit, told once', async () => {
    const told: number[][] = [];
    ctx.events.on('libraryChanged', (e: { assetIds?: number[] }) => told.push(e.assetIds ?? []));
    const { turns } = await turnsDuring(editKeywords(ctx, ids, ['sunset'], []));
    expect(turns).toBeGreaterThanOrEqual(3);
    expect(withKeyword('sunset')).toBe(N);
    expect(log()).toEqual([{ description: `add keyword “sunset” to ${N} photos`, undone: 0 }]);
    expect(told).toHaveLength(1);
    expect(new Set(told[0])).toEqual(new Set(ids));
  });

  it('the catalogue index takes in each chunk as it is written, not the whole edit in the next search', async () => {
    startCatalogueIndex(ctx.db);
    expect(currentIndex(ctx.db)).not.toBeNull();
    const pending = (): number => ctx.db.prepare('SELECT count(*) FROM temp.idx_dirty').pluck().get() as number;
    await setRating(ctx, ids, 4);
    // At most the last chunk is still to take in (without the catch-up: all N).
    expect(pending()).toBeLessThanOrEqual(STEP);
    expect(search(ctx, { minRating: 4 }, { offset: 0, limit: 1 }).total).toBe(N);
  });

  it('undo puts a large edit back a chunk at a time, exactly', async () => {
    const before = snapshot();
    await setCaption(ctx, ids, 'One caption for all');
    const { value, turns } = await turnsDuring(undo(ctx));
    expect(value).toBe(`Undo: set the caption of ${N} photos`);
    expect(turns).toBeGreaterThanOrEqual(3);
    expect(snapshot()).toEqual(before);
    expect(log()).toEqual([{ description: `set the caption of ${N} photos`, undone: 1 }]);
    expect(await undo(ctx)).toBeNull();
  });

  it('edits and undo started together run one after another: each undo takes back one whole edit', async () => {
    const before = snapshot();
    const started = [editKeywords(ctx, ids, ['sunset'], ['Sky']), setCaption(ctx, ids, 'Evening'), setRating(ctx, ids, 4), undo(ctx)];
    const results = await Promise.all(started);
    // The undo queued behind the rating takes back the whole rating, not part of it.
    expect(results[3]).toBe(`Undo: rate ${N} photos 4 stars`);
    expect(ids.every((id) => getAssetDetail(ctx, id).rating === 0)).toBe(true);
    expect(ids.every((id) => getAssetDetail(ctx, id).caption === 'Evening')).toBe(true);
    expect(withKeyword('sunset')).toBe(N);
    expect(withKeyword('Sky')).toBe(0);
    expect(await undo(ctx)).toBe(`Undo: set the caption of ${N} photos`);
    expect(await undo(ctx)).toMatch(/^Undo: add keyword “sunset” and remove keyword “Sky” on/);
    expect(snapshot()).toEqual(before);
  });

  it('an edit logged elsewhere between two chunks splits the edit in the log, and undo stays exact', async () => {
    const before = snapshot();
    const [early, late] = [ids[0], ids[N - 1]];
    const editing = editKeywords(ctx, ids, ['sunset'], []);
    // Wait for what the user would see: the edit part-way through (some photos have it).
    while (withKeyword('sunset') === 0) await nextTurn();
    const partWay = withKeyword('sunset');
    expect(partWay).toBeLessThan(N);
    expect(kw(early)).toContain('sunset');
    expect(kw(late)).not.toContain('sunset');
    // A workflow (an accepted suggestion, a vocabulary rename) logs its own edit meanwhile, on
    // one photo already done and one still to come.
    ctx.db.transaction(() =>
      logEdit(
        ctx,
        [
          { assetId: early, field: 'keywords', value: [...kw(early), 'accepted'] },
          { assetId: late, field: 'keywords', value: ['accepted'] },
        ],
        'accept suggested keywords',
        null,
      ),
    )();
    await editing;
    expect(kw(early)).toEqual([...(before[0] as unknown[][])[0], 'sunset', 'accepted']);
    expect(kw(late)).toEqual(['accepted', 'sunset']);
    expect(withKeyword('sunset')).toBe(N);
    const description = `add keyword “sunset” to ${N} photos`;
    expect(log().map((e) => e.description)).toEqual([description, 'accept suggested keywords', description]);
    // Each undo takes back what came last, so every photo ends exactly as it was.
    expect(await undo(ctx)).toBe(`Undo: ${description}`);
    expect(kw(late)).toEqual(['accepted']);
    expect(await undo(ctx)).toBe('Undo: accept suggested keywords');
    expect(await undo(ctx)).toBe(`Undo: ${description}`);
    expect(snapshot()).toEqual(before);
  });

  it('an undo overtaken by an edit logged elsewhere stops where it is and says so; undoing again finishes it exactly', async () => {
    const before = snapshot();
    await editKeywords(ctx, ids, ['sunset'], []);
    const undoing = undo(ctx);
    while (withKeyword('sunset') === N) await nextTurn();
    const late = ids[N - 1];
    expect(kw(late)).toContain('sunset');
    ctx.db.transaction(() => logEdit(ctx, [{ assetId: late, field: 'keywords', value: [...kw(late), 'accepted'] }], 'accept suggested keywords', null))();
    await expect(undoing).rejects.toThrow(/another edit was saved meanwhile\. Undo again to undo that edit, then this one\./);
    const left = withKeyword('sunset');
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThan(N);
    expect(await undo(ctx)).toBe('Undo: accept suggested keywords');
    expect(await undo(ctx)).toBe(`Undo: add keyword “sunset” to ${N} photos`);
    expect(snapshot()).toEqual(before);
  });
});
