import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { beforeEach, describe, expect, it } from 'vitest';
import { setFlag } from '../../src-main/analysis/culling';
import { STEP } from '../../src-main/core/steps';
import { getAssetDetail } from '../../src-main/library/assets';
import { openLibrary, type LibraryCtx } from '../../src-main/library/context';
import { editKeywords, undo } from '../../src-main/library/edits';
import { acceptAbove, acceptCaptions, pendingCaptionIds, rejectPending } from '../../src-main/workflows/review';
import { revertRun } from '../../src-main/workflows/revert';
import { renameKeyword } from '../../src-main/workflows/vocabulary';
import { renameAssets } from '../../src-main/library/rename';
import { exportKeywordList, importKeywordList } from '../../src-main/library/keyword-list';
import { seedAssets, seedFolder } from '../helpers/seed';
import { turnsDuring } from '../helpers/turns';

// Review decisions and library-wide keyword edits over a large selection (accept everything
// above 70 % of a whole run, revert a run, rename a keyword on every photo, pick them all) are
// written a chunk of photos per transaction with the event loop running between, in the edit
// lane of the library, and each stays ONE exact undo. A batch rename and a keyword-list
// import of many entries go in steps too, and a quit in the middle of either loses nothing.

const N = 3 * STEP + 17; // more than three chunks on any machine (a chunk is at most STEP photos)

let ctx: LibraryCtx;
let ids: number[];
let keywordRun: number;
let captionRun: number;
const kw = (id: number): string[] => getAssetDetail(ctx, id).keywords;
const snapshot = (): unknown[] => ids.map((id) => {
  const a = getAssetDetail(ctx, id);
  return [a.keywords, a.caption, ctx.db.prepare('SELECT flag FROM assets WHERE id = ?').pluck().get(id)];
});
const log = (): string[] => ctx.db.prepare('SELECT description FROM edits WHERE undone = 0 ORDER BY id').pluck().all() as string[];
const states = (): Record<string, number> =>
  Object.fromEntries((ctx.db.prepare('SELECT state, count(*) AS n FROM suggestions GROUP BY state').all() as { state: string; n: number }[]).map((r) => [r.state, r.n]));

beforeEach(() => {
  ctx = openLibrary(mkdtempSync(join(tmpdir(), 'tagsmith-workflow-steps-')));
  const folder = seedFolder(ctx.db, '/photos');
  ids = seedAssets(ctx.db, Array.from({ length: N }, (_, i) => ({ folderId: folder, relPath: `p${i}.jpg`, keywords: i % 4 ? ['Harbour', `own ${i}`] : [] })));
  const db = ctx.db;
  db.transaction(() => {
    const run = db.prepare("INSERT INTO ai_runs (kind, params, params_key, lang, created_at, batch_id, status) VALUES (?, '{}', ?, 'en', 0, ?, 'done')");
    keywordRun = Number(run.run('keywords', 'k', 'batch-k').lastInsertRowid);
    captionRun = Number(run.run('caption', 'c', 'batch-c').lastInsertRowid);
    const member = db.prepare("INSERT INTO ai_run_assets (run_id, asset_id, state) VALUES (?, ?, 'done')");
    const suggest = db.prepare("INSERT INTO suggestions (asset_id, run_id, keyword, raw, lang, score, position) VALUES (?, ?, ?, ?, 'en', ?, ?)");
    const caption = db.prepare("INSERT INTO caption_suggestions (asset_id, run_id, text, raw, caption_len) VALUES (?, ?, ?, ?, 'short')");
    for (const id of ids) {
      member.run(keywordRun, id);
      member.run(captionRun, id);
      ['boat', 'sea', 'evening'].forEach((w, i) => suggest.run(id, keywordRun, w, w, 0.9 - i * 0.15, i));
      caption.run(id, captionRun, `Boats in the harbour, ${id}`, `Boats in the harbour, ${id}`);
    }
  })();
});

describe('decisions over a large selection', () => {
  it('accepting above a score lets the event loop run, settles every suggestion, and is one undo', async () => {
    const before = snapshot();
    const { value, turns } = await turnsDuring(acceptAbove(ctx, ids, 0.7));
    expect(turns).toBeGreaterThanOrEqual(3);
    expect(value.added).toBe(2 * N);
    expect(value.assetIds).toHaveLength(N);
    expect(kw(ids[1])).toEqual(['Harbour', 'own 1', 'boat', 'sea']);
    expect(states()).toEqual({ accepted: 2 * N, pending: N });
    expect(log()).toEqual([`accept ${2 * N} suggested keywords on ${N} photos`]);
    expect(await undo(ctx)).toBe(`Undo: accept ${2 * N} suggested keywords on ${N} photos`);
    expect(snapshot()).toEqual(before);
  });

  it('a hand edit started meanwhile waits for the acceptance, and undo takes each back whole', async () => {
    const before = snapshot();
    const [accepted] = await Promise.all([acceptAbove(ctx, ids, 0.7), editKeywords(ctx, ids, [], ['boat'])]);
    expect(accepted.added).toBe(2 * N);
    // The removal ran after the acceptance: no photo keeps the word.
    expect(ids.some((id) => kw(id).includes('boat'))).toBe(false);
    expect(await undo(ctx)).toMatch(/^Undo: remove keyword “boat” from/);
    expect(ids.every((id) => kw(id).includes('boat'))).toBe(true);
    expect(await undo(ctx)).toMatch(/^Undo: accept/);
    expect(snapshot()).toEqual(before);
  });

  it('rejecting the rest and accepting every caption work in steps too', async () => {
    await acceptAbove(ctx, ids, 0.7);
    const rejected = await turnsDuring(rejectPending(ctx, ids));
    expect(rejected.value).toBe(N);
    expect(rejected.turns).toBeGreaterThanOrEqual(3);
    expect(states()).toEqual({ accepted: 2 * N, rejected: N });
    const pending = await pendingCaptionIds(ctx, ids);
    expect(pending).toHaveLength(N);
    const captions = await turnsDuring(acceptCaptions(ctx, pending));
    expect(captions.value).toHaveLength(N);
    expect(captions.turns).toBeGreaterThanOrEqual(3);
    expect(getAssetDetail(ctx, ids[5]).caption).toBe(`Boats in the harbour, ${ids[5]}`);
    expect(log().at(-1)).toBe(`accept the suggested caption of ${N} photos`);
  });

  it('reverting a run takes its keywords out of every photo in steps, keeps hand edits, and is one undo', async () => {
    await acceptAbove(ctx, ids, 0.7);
    await editKeywords(ctx, [ids[2]], ['mine'], []);
    const accepted = snapshot();
    const { value, turns } = await turnsDuring(revertRun(ctx, keywordRun));
    expect(turns).toBeGreaterThanOrEqual(3);
    expect(value.keywordsRemoved).toBe(2 * N);
    expect(kw(ids[2])).toEqual(['Harbour', 'own 2', 'mine']);
    expect(ctx.db.prepare('SELECT status FROM ai_runs WHERE id = ?').pluck().get(keywordRun)).toBe('reverted');
    expect(await undo(ctx)).toMatch(/^Undo: revert the AI keywords of run/);
    expect(snapshot()).toEqual(accepted);
  });

  it('renaming a keyword on every photo and picking them all work in steps, each one undo', async () => {
    const before = snapshot();
    const renamed = await turnsDuring(renameKeyword(ctx, 'Harbour', 'Port'));
    expect(renamed.turns).toBeGreaterThanOrEqual(2);
    expect(renamed.value.assetIds).toHaveLength(ids.filter((_, i) => i % 4).length);
    expect(kw(ids[1])).toEqual(['Port', 'own 1']);
    const picked = await turnsDuring(setFlag(ctx, ids, 'pick'));
    expect(picked.turns).toBeGreaterThanOrEqual(3);
    expect(picked.value).toMatchObject({ description: `pick ${N} photos` });
    expect(ctx.db.prepare("SELECT count(*) FROM assets WHERE flag = 'pick'").pluck().get()).toBe(N);
    expect(log().slice(-2)).toEqual([`rename keyword “Harbour” to “Port” on ${ids.filter((_, i) => i % 4).length} photos`, `pick ${N} photos`]);
    expect(await undo(ctx)).toBe(`Undo: pick ${N} photos`);
    expect(await undo(ctx)).toMatch(/^Undo: rename keyword “Harbour” to “Port”/);
    expect(snapshot()).toEqual(before);
  });
});

/** N real files in a folder of a new library, catalogued; their names as they were. */
function photoFolder(prefix: string): { dir: string; photos: string; lib: LibraryCtx; files: number[]; before: string[] } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const photos = join(dir, 'photos');
  mkdirSync(photos);
  for (let i = 0; i < N; i++) writeFileSync(join(photos, `IMG_${i}.jpg`), `picture ${i}`);
  const lib = openLibrary(join(dir, 'lib'));
  const folder = seedFolder(lib.db, photos);
  const files = seedAssets(lib.db, Array.from({ length: N }, (_, i) => ({ folderId: folder, relPath: `IMG_${i}.jpg` })));
  return { dir, photos, lib, files, before: readdirSync(photos).sort() };
}

describe('a batch rename of a large selection', () => {
  it('moves the files a turn at a time, names them all, and one undo puts every name back', async () => {
    const { lib, photos, files, before } = photoFolder('tagsmith-rename-steps-');
    const { value, turns } = await turnsDuring(renameAssets(lib, { assetIds: files, template: 'trip-{seq:4}' }));
    expect(value.failed).toEqual([]);
    expect(value.renamed).toHaveLength(N);
    expect(turns).toBeGreaterThanOrEqual(3);
    expect(readdirSync(photos).filter((n) => n.startsWith('trip-'))).toHaveLength(N);
    expect(lib.db.prepare('SELECT count(*) FROM rename_journal').pluck().get()).toBe(0);
    expect(await undo(lib)).toBe(`Undo: rename ${N} files with “trip-{seq:4}”`);
    expect(readdirSync(photos).sort()).toEqual(before);
    lib.db.close();
  });

  it('journals the files a turn at a time: a quit before all are journalled leaves every file and the log as they were', async () => {
    const made = photoFolder('tagsmith-rename-journal-');
    const { dir, photos, files, before } = made;
    let lib = made.lib;
    const journalled = (): number => lib.db.prepare('SELECT count(*) FROM rename_journal').pluck().get() as number;
    let settled = false;
    const rename = renameAssets(lib, { assetIds: files, template: 'trip-{seq:4}' }).finally(() => (settled = true));
    while (!settled && journalled() === 0) await nextTurn();
    const part = journalled();
    expect(part).toBeGreaterThan(0);
    expect(part).toBeLessThan(N);
    expect(lib.db.prepare('SELECT count(*) FROM edit_changes').pluck().get()).toBe(part);
    expect(readdirSync(photos).sort()).toEqual(before);
    lib.db.close(); // the app quits
    await expect(rename).rejects.toThrow();
    lib = openLibrary(join(dir, 'lib')); // the next open settles the journal
    expect(journalled()).toBe(0);
    expect(lib.db.prepare('SELECT count(*) FROM edits').pluck().get()).toBe(0);
    expect(readdirSync(photos).sort()).toEqual(before);
    lib.db.close();
  });
});

describe('a keyword list of many entries', () => {
  const list = Array.from({ length: N }, (_, i) => `Place ${i}\n\tStreet ${i}\n\t\t{Road ${i}}`).join('\n') + '\n';

  it('is parsed and written a turn at a time, and exported back as it came', async () => {
    const lib = openLibrary(mkdtempSync(join(tmpdir(), 'tagsmith-kwlist-steps-')));
    const { value, turns } = await turnsDuring(importKeywordList(lib, list));
    expect(value).toEqual({ added: 2 * N, synonyms: N, existing: 0, skipped: [] });
    expect(turns).toBeGreaterThanOrEqual(3);
    expect(exportKeywordList(lib)).toBe(list);
    lib.db.close();
  });

  it('cut short by a quit, is completed by importing it again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tagsmith-kwlist-quit-'));
    let lib = openLibrary(dir);
    const entries = (): number => lib.db.prepare('SELECT count(*) FROM keyword_vocabulary').pluck().get() as number;
    let settled = false;
    const first = importKeywordList(lib, list).finally(() => (settled = true));
    while (!settled && entries() === 0) await nextTurn();
    const part = entries();
    expect(part).toBeGreaterThan(0);
    expect(part).toBeLessThan(2 * N);
    lib.db.close(); // the app quits
    await expect(first).rejects.toThrow();
    lib = openLibrary(dir);
    expect(await importKeywordList(lib, list)).toEqual({ added: 2 * N - part, synonyms: N - Math.floor(part / 2), existing: part, skipped: [] });
    expect(exportKeywordList(lib)).toBe(list);
    lib.db.close();
  });
});
