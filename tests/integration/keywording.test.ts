// Keywording runs against the simulator: real JPEGs of distinct colours, a real catalogue and
// the durable queue. Preview counts, suggestions with provenance, review, hygiene, limits,
// revert without touching later edits, restarts, languages, zero calls for cached pictures,
// and the library-wide vocabulary.
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { changesSince } from '../../src-main/catalogue/change-log';
import type { Tagsmith } from '../../src-main/api/tagsmith';
import { JobQueue, builtinHandlers } from '../../src-main/jobs';
import { openLibrary, type LibraryCtx } from '../../src-main/library/context';
import { editKeywords, setRating, undo } from '../../src-main/library/edits';
import { hashFile } from '../../src-main/library/hash';
import { getAssetKeywords } from '../../src-main/library/keywords';
import { ServiceClient } from '../../src-main/service/client';
import {
  acceptAbove, acceptKeyword, acceptSuggestions, deleteKeyword, getAssetReview, getRun,
  listLibraryKeywords, mergeKeywords, moveKeyword, previewKeywordRun, rejectPending, rejectSuggestions, renameKeyword, revertRun,
  setKeywordSettings, startKeywordRun,
} from '../../src-main/workflows';
import { LIMIT_PRESETS, checkKeywords, checkTextLimits } from '../../src-main/metadata/stock-limits';
import { caseKeyword, unshout } from '../../src-main/workflows/hygiene';
import { seedAssets, seedFolder } from '../helpers/seed';
import { startTagsmith } from '../helpers/tagsmith';
import { startSimulator, type Simulator } from '../simulator/index.js';

const creds = { clientId: 'kw', clientSecret: 'kw-secret' };
const COLOURS = ['#2f6fe0', '#2ea83a', '#d03a2a', '#e0c02f', '#7a3ad0', '#30c0c0'];
let dir: string;
const files: { rel: string; hash: string }[] = [];
let sim: Simulator;
let ctx: LibraryCtx;
let ids: number[];
let client: ServiceClient;
const apps: Tagsmith[] = [];

/** The app's queue, as the app starts it (createTagsmith); `start: false` leaves it stopped. */
function newQueue(start = true): JobQueue {
  const app = startTagsmith(ctx, { url: sim.url, creds }, { tuning: { pollMs: 40, retryBaseMs: 50, retryMaxMs: 200 }, startQueue: start });
  apps.push(app);
  return app.queue;
}

const keywordCalls = () => sim.log.filter((e) => e.path === '/v1/keywords' && e.status === 200).length;
const kw = (id: number) => getAssetKeywords(ctx.db, id);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tagsmith-keywording-'));
  for (const [i, c] of COLOURS.entries()) {
    const f = join(dir, `p${i}.jpg`);
    // A gradient stripe keeps the pictures apart beyond their flat colour.
    await sharp({ create: { width: 640, height: 420 + i * 10, channels: 3, background: c } }).jpeg({ quality: 90 }).toFile(f);
    files.push({ rel: `p${i}.jpg`, hash: await hashFile(f) });
  }
  // The same picture under another name: same content, one call.
  await copyFile(join(dir, 'p0.jpg'), join(dir, 'copy-of-p0.jpg'));
  files.push({ rel: 'copy-of-p0.jpg', hash: files[0].hash });
  sim = await startSimulator({ port: 0, accounts: [creds] });
  client = new ServiceClient({ baseUrl: sim.url, credentials: creds });
});

afterAll(async () => {
  await client.close();
  await sim.close();
  await rm(dir, { recursive: true, force: true });
});

beforeEach(async () => {
  ctx = openLibrary(await mkdtemp(join(dir, 'lib-')));
  const folder = seedFolder(ctx.db, dir);
  ids = seedAssets(ctx.db, [
    ...files.map((f, i) => ({ folderId: folder, relPath: f.rel, contentHash: f.hash, format: 'jpeg', keywords: i === 0 ? ['mine'] : [] })),
    { folderId: folder, relPath: 'voice.mp3', kind: 'audio' as const, format: 'mp3', contentHash: 'audio' },
  ]);
});

afterEach(async () => {
  for (const app of apps.splice(0)) await app.dispose();
  ctx.db.close();
});

async function run(assetIds: number[], opts: Parameters<typeof startKeywordRun>[3] = {}, q = newQueue()) {
  const started = await startKeywordRun(ctx, q, { assetIds }, opts);
  await q.waitForIdle();
  return started;
}

describe('keyword runs', () => {
  it('preview counts billable calls, cache hits and assets already done; the run stores scored suggestions with provenance', async () => {
    const q = newQueue();
    const sel = [ids[0], ids[1], ids[2], ids[6], ids[7]]; // p0, p1, p2, the copy of p0, audio
    const before = await previewKeywordRun(ctx, q, { assetIds: sel }, { lang: 'en', numKeywords: 8 });
    expect(before).toMatchObject({ assets: 5, jobs: 4, billable: 3, cached: 0, duplicates: 1 });
    expect(before.skipped).toEqual([expect.objectContaining({ assetId: ids[7], reason: 'unsupported' })]);

    const calls = keywordCalls();
    const started = await startKeywordRun(ctx, q, { assetIds: sel }, { lang: 'en', numKeywords: 8 });
    await q.waitForIdle();
    expect(keywordCalls() - calls).toBe(3); // the copy was answered from the cache
    expect(getRun(ctx, started.runId)).toMatchObject({ status: 'done', counts: { done: 4, failed: 0 }, lang: 'en', params: { lang: 'en', numKeywords: 8 } });

    const review = getAssetReview(ctx, ids[1]);
    expect(review.suggestions.length).toBeGreaterThan(2);
    expect(review.suggestions.length).toBeLessThanOrEqual(8);
    const scores = review.suggestions.map((s) => s.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(review.suggestions.every((s) => s.state === 'pending' && s.runId === started.runId && s.lang === 'en' && s.keyword === s.keyword.toLowerCase())).toBe(true);
    expect(review.suggestions[0].params).toEqual({ lang: 'en', numKeywords: 8 });
    // Same picture, same answer.
    expect(getAssetReview(ctx, ids[6]).suggestions.map((s) => s.keyword)).toEqual(getAssetReview(ctx, ids[0]).suggestions.map((s) => s.keyword));
    // Each photo's suggestions went through the catalogue's door: one suggestion.add on it in the change log.
    const added = changesSince(ctx.db, 0, 1000).filter((c) => c.op === 'suggestion.add');
    expect(added.map((c) => c.assetId).sort()).toEqual([ids[0], ids[1], ids[2], ids[6]].sort());
    const ofP1 = added.find((c) => c.assetId === ids[1])!.value as { run: number; lang: string; keywords: Array<{ keyword: string; score: number }> };
    expect(ofP1).toMatchObject({ run: started.runId, lang: 'en' });
    expect(ofP1.keywords.map((k) => k.keyword).sort()).toEqual(review.suggestions.map((s) => s.keyword).sort());

    // Again with the same parameters: nothing to do. "en" and no language are the same request.
    const again = await previewKeywordRun(ctx, q, { assetIds: sel }, { numKeywords: 8 });
    expect(again).toMatchObject({ billable: 0, jobs: 0 });
    expect(again.skipped.filter((s) => s.reason === 'already_done')).toHaveLength(4);
    // Forced: every answer is in the cache.
    expect(await previewKeywordRun(ctx, q, { assetIds: sel }, { numKeywords: 8, force: true })).toMatchObject({ billable: 0, cached: 4 });
    // Another language is another request.
    expect(await previewKeywordRun(ctx, q, { assetIds: sel }, { numKeywords: 8, lang: 'de' })).toMatchObject({ billable: 3, duplicates: 1 });
  });

  it('re-keywording cached pictures makes zero service calls', async () => {
    await run(ids.slice(0, 4));
    const calls = sim.log.length;
    const billed = JSON.stringify(sim.billed());
    const again = await run(ids.slice(0, 4), { force: true });
    expect(sim.log.length).toBe(calls);
    expect(JSON.stringify(sim.billed())).toBe(billed);
    expect(getRun(ctx, again.runId)!.counts.done).toBe(4);
    expect(getAssetReview(ctx, ids[2], { runId: again.runId }).suggestions.length).toBeGreaterThan(0);
  });

  it('stores results in the language asked for; German and Russian differ from English', async () => {
    const en = await run([ids[1]], { lang: 'en' });
    const de = await run([ids[1]], { lang: 'de' });
    const ru = await run([ids[1]], { lang: 'ru' });
    const words = (runId: number) => getAssetReview(ctx, ids[1], { runId }).suggestions.map((s) => s.keyword);
    expect(words(de.runId)).not.toEqual(words(en.runId));
    expect(words(ru.runId).some((w) => /[а-яё]/i.test(w))).toBe(true);
    expect(getAssetReview(ctx, ids[1], { runId: de.runId }).suggestions.every((s) => s.lang === 'de')).toBe(true);
    await acceptAbove(ctx, [ids[1]], 0, { runIds: [ru.runId] });
    expect(kw(ids[1]).every((w) => w === w.normalize('NFC'))).toBe(true);
    expect(kw(ids[1]).length).toBe(words(ru.runId).length);
  });

  it('casing by language (issue 15): German nouns keep their capitals (ALL CAPS cleaned), English is lower case; the library\'s spelling wins', async () => {
    await editKeywords(ctx, [ids[4]], ['wald'], []); // the library already spells this word its own way
    const de = await run([ids[1]], { lang: 'de' });
    const en = await run([ids[1]], { lang: 'en' });
    const words = (runId: number) => getAssetReview(ctx, ids[1], { runId }).suggestions.map((s) => s.keyword);
    const german = words(de.runId);
    expect(german).toEqual(expect.arrayContaining(['Natur', 'grün', 'Gras', 'Blatt']));
    expect(german).toContain('wald');
    expect(german).not.toContain('Wald');
    expect(german.filter((w) => w.length > 1 && w === w.toUpperCase())).toEqual([]);
    expect(words(en.runId).every((w) => w === w.toLowerCase())).toBe(true);
    // the older setting still lower-cases every word new to the library
    setKeywordSettings(ctx, { casing: 'lower' });
    const low = await run([ids[2]], { lang: 'de' });
    expect(getAssetReview(ctx, ids[2], { runId: low.runId }).suggestions.every((s) => s.keyword === s.keyword.toLowerCase())).toBe(true);
    setKeywordSettings(ctx, { casing: 'byLanguage' });
    await acceptAbove(ctx, [ids[1]], 0, { runIds: [de.runId] });
    expect(kw(ids[1])).toEqual(expect.arrayContaining(['Natur', 'grün', 'wald']));
  });

  it('unshout and caseKeyword: ALL CAPS cleaned only where the language capitalises nouns', () => {
    expect(unshout('HIMMEL')).toBe('Himmel');
    expect(unshout('blauer HIMMEL')).toBe('blauer Himmel');
    expect(unshout('Sonnenuntergang')).toBe('Sonnenuntergang');
    expect(unshout('A')).toBe('A');
    expect(caseKeyword('STRAND', 'byLanguage', 'de')).toBe('Strand');
    expect(caseKeyword('Strand', 'byLanguage', 'de')).toBe('Strand');
    expect(caseKeyword('Beach', 'byLanguage', 'en')).toBe('beach');
    expect(caseKeyword('Plage', 'byLanguage', 'fr')).toBe('plage');
    expect(caseKeyword('Strand', 'lower', 'de')).toBe('strand');
    expect(caseKeyword('Beach', 'asSent', 'en')).toBe('Beach');
  });

  it('accepts above a score (existing first, strongest next), rejects one, accepts across a selection, reorders, and undoes', async () => {
    const r = await run([ids[0], ids[1], ids[2]]);
    const sugg = getAssetReview(ctx, ids[0]).suggestions;
    const rejected = sugg[1];
    expect(await rejectSuggestions(ctx, [rejected.id])).toBe(1);
    const min = sugg[3].score;
    const res = await acceptAbove(ctx, [ids[0]], min);
    const expected = sugg.slice(0, 4).filter((s) => s.id !== rejected.id).map((s) => s.keyword);
    expect(res.added).toBe(3);
    expect(kw(ids[0])).toEqual(['mine', ...expected]);
    const review = getAssetReview(ctx, ids[0]);
    expect(review.suggestions.find((s) => s.id === rejected.id)!.state).toBe('rejected');
    expect(review.suggestions.filter((s) => s.state === 'accepted').map((s) => s.keyword)).toEqual(expected);

    // Accepting a stronger one later still lands in score order among the accepted ones.
    await acceptSuggestions(ctx, [rejected.id]); // rejected: not pending, nothing happens
    expect(kw(ids[0])).toEqual(['mine', ...expected]);

    // One word across the selection, wherever it was suggested.
    const common = getAssetReview(ctx, ids[1]).suggestions.find((s) => getAssetReview(ctx, ids[2]).suggestions.some((t) => t.keyword === s.keyword))!;
    const across = await acceptKeyword(ctx, [ids[1], ids[2]], common.keyword);
    expect(across.assetIds.sort()).toEqual([ids[1], ids[2]].sort());
    expect(kw(ids[1])).toEqual([common.keyword]);
    // Reject everything left on one asset.
    expect(await rejectPending(ctx, [ids[2]])).toBeGreaterThan(0);
    expect(getAssetReview(ctx, ids[2]).suggestions.filter((s) => s.state === 'pending')).toEqual([]);

    // Reorder, then undo the move.
    const now = kw(ids[0]);
    expect(moveKeyword(ctx, ids[0], 3, 0)).toEqual([now[3], ...now.slice(0, 3), ...now.slice(4)]);
    expect(await undo(ctx)).toMatch(/^Undo: move keyword/);
    expect(kw(ids[0])).toEqual(now);
    expect(getRun(ctx, r.runId)!.suggestions.accepted).toBeGreaterThanOrEqual(4);
  });

  it('library casing wins; exclude list and required keywords apply on accept', async () => {
    await run([ids[3]]);
    const [first, second, third] = getAssetReview(ctx, ids[3]).suggestions;
    // The library already spells the first word its own way.
    await editKeywords(ctx, [ids[4]], [first.keyword.toUpperCase()], []);
    setKeywordSettings(ctx, { exclude: [second.keyword.toUpperCase()], required: ['Stock Photo'] });
    expect(getAssetReview(ctx, ids[3]).suggestions[1].excluded).toBe(true);
    const res = await acceptAbove(ctx, [ids[3]], third.score);
    expect(kw(ids[3])).toEqual([first.keyword.toUpperCase(), third.keyword, 'Stock Photo']);
    expect(res.skipped).toEqual([{ assetId: ids[3], keyword: second.keyword, reason: 'excluded' }]);
    expect(res.required).toBe(1);
    expect(getAssetReview(ctx, ids[3]).suggestions[1].state).toBe('rejected');
  });

  it('keeps to the keyword limit: the strongest fit, the rest wait; checks report counts and warnings', async () => {
    setKeywordSettings(ctx, { limit: { preset: 'custom', max: 4 } });
    await run([ids[0]], { numKeywords: 10 });
    const sugg = getAssetReview(ctx, ids[0]).suggestions;
    const res = await acceptAbove(ctx, [ids[0]], 0);
    expect(kw(ids[0])).toEqual(['mine', ...sugg.slice(0, 3).map((s) => s.keyword)]);
    expect(res.skipped.filter((s) => s.reason === 'limit')).toHaveLength(sugg.length - 3);
    expect(getAssetReview(ctx, ids[0]).suggestions.filter((s) => s.state === 'pending')).toHaveLength(sugg.length - 3);

    setKeywordSettings(ctx, { limit: { preset: 'shutterstock' } });
    const review = getAssetReview(ctx, ids[0]);
    expect(review.check).toMatchObject({ count: 4, min: 7, max: 50, ok: false });
    expect(review.check.warnings[0]).toMatch(/Shutterstock needs at least 7: add 3 more/);
    const many = Array.from({ length: 53 }, (_, i) => `word ${i}`);
    expect(checkKeywords(many, LIMIT_PRESETS.adobe).warnings[0]).toMatch(/53 keywords, but Adobe Stock allows at most 49: remove 4/);
    expect(checkKeywords(many.slice(0, 20), LIMIT_PRESETS.default)).toMatchObject({ count: 20, ok: true, warnings: [] });
    expect(checkTextLimits({ title: 'x'.repeat(71), caption: 'y'.repeat(201) }).map((w) => [w.agency, w.field, w.max])).toEqual([
      ['adobe', 'title', 70], ['shutterstock', 'caption', 200],
    ]);
  });

  it('reverting a run takes out exactly its keywords and leaves unrelated edits alone', async () => {
    const r = await run([ids[0], ids[1]]);
    await acceptAbove(ctx, [ids[0], ids[1]], 0);
    const a = kw(ids[0]);
    const b = kw(ids[1]);
    // Later, by hand: remove an accepted keyword, add one of their own, rate the photo.
    await editKeywords(ctx, [ids[0]], ['later'], [a[2]]);
    await setRating(ctx, [ids[0]], 4);
    // On the other photo: remove an accepted keyword and add it back by hand: now it is the user's.
    await editKeywords(ctx, [ids[1]], [], [b[0]]);
    await editKeywords(ctx, [ids[1]], [b[0]], []);
    // A later run accepted on the same photo is not part of the revert.
    const other = await run([ids[0]], { lang: 'fr' });
    await acceptAbove(ctx, [ids[0]], 0.3, { runIds: [other.runId] });
    const fromOther = getAssetReview(ctx, ids[0], { runId: other.runId }).suggestions.filter((s) => s.state === 'accepted').map((s) => s.keyword);
    expect(fromOther.length).toBeGreaterThan(0);

    const beforeRevert = kw(ids[0]);
    expect(beforeRevert).toContain('later');
    const res = await revertRun(ctx, r.runId);
    expect(res.description).toMatch(/^revert the AI keywords of run/);
    // The run's keywords go; 'mine', 'later' and the later run's keywords stay where they were
    // (a word both runs suggested and the user accepted from both is kept).
    const runWords = a.filter((k) => k !== 'mine' && !fromOther.includes(k));
    expect(runWords.length).toBeGreaterThan(3);
    expect(kw(ids[0])).toEqual(beforeRevert.filter((k) => !runWords.includes(k)));
    expect(kw(ids[0])).toEqual(expect.arrayContaining(['mine', 'later', ...fromOther]));
    expect(kw(ids[0])[0]).toBe('mine');
    expect(kw(ids[1])).toEqual([b[0]]);
    expect(ctx.db.prepare('SELECT rating FROM assets WHERE id = ?').pluck().get(ids[0])).toBe(4);
    expect(getRun(ctx, r.runId)!.status).toBe('reverted');
    expect(getAssetReview(ctx, ids[0]).suggestions.every((s) => s.runId === other.runId)).toBe(true);
    // The revert is itself one undoable edit.
    expect(await undo(ctx)).toMatch(/^Undo: revert the AI keywords/);
    expect(kw(ids[1])).toEqual(b.slice(1).length ? [...b.slice(1), b[0]] : [b[0]]);
    // Reverting twice does nothing more.
    expect((await revertRun(ctx, r.runId)).assetIds).toEqual([]);
  });

  it('lands results of a run resumed after a restart, and of jobs that ended while nobody listened', async () => {
    // Queued but the app stopped before anything ran.
    const q1 = newQueue(false);
    const started = await startKeywordRun(ctx, q1, { assetIds: [ids[1], ids[2]] }, { lang: 'it' });
    expect(getRun(ctx, started.runId)!.counts.queued).toBe(2);
    for (const app of apps.splice(0)) await app.dispose();
    const q2 = newQueue();
    await q2.waitForIdle();
    expect(getRun(ctx, started.runId)).toMatchObject({ status: 'done', counts: { done: 2, queued: 0 } });
    expect(getAssetReview(ctx, ids[2]).suggestions.length).toBeGreaterThan(0);

    // A queue with no workflow listener runs the jobs (another process, say); the sweep lands them.
    const bare = new JobQueue({ db: ctx.db, client, handlers: builtinHandlers });
    const s2 = await startKeywordRun(ctx, bare, { assetIds: [ids[3]] }, { lang: 'pt' });
    bare.start();
    await bare.waitForIdle();
    await bare.stop();
    expect(getRun(ctx, s2.runId)!.counts.queued).toBe(1);
    newQueue(false);
    expect(getRun(ctx, s2.runId)).toMatchObject({ status: 'done', counts: { done: 1 } });
    expect(getAssetReview(ctx, ids[3], { runId: s2.runId }).suggestions.every((s) => s.lang === 'pt')).toBe(true);
  });

  it('records per-file failures without stopping the batch', async () => {
    const folder = ctx.db.prepare('SELECT id FROM folders').pluck().get() as number;
    const [broken] = seedAssets(ctx.db, [{ folderId: folder, relPath: 'missing.jpg', contentHash: 'missing', format: 'jpeg' }]);
    const r = await run([broken, ids[1]]);
    expect(getRun(ctx, r.runId)).toMatchObject({ status: 'done', counts: { done: 1, failed: 1 } });
    expect(getAssetReview(ctx, broken).errors[0].message).toBeTruthy();
  });
});

describe('library vocabulary', () => {
  beforeEach(async () => {
    await editKeywords(ctx, [ids[0], ids[1]], ['kitty', 'Animals|Cat'], []);
    await editKeywords(ctx, [ids[2]], ['cat', 'Animals|Dog'], []);
  });

  it('lists keywords with counts and hierarchy levels', () => {
    const list = listLibraryKeywords(ctx);
    expect(list.find((k) => k.name === 'Animals|Cat')).toEqual({ name: 'Animals|Cat', count: 2, path: ['Animals', 'Cat'] });
    expect(list.find((k) => k.name === 'kitty')!.count).toBe(2);
  });

  it('renames across assets, children of a hierarchy included, as one undoable edit', async () => {
    const r = await renameKeyword(ctx, 'Animals', 'Fauna');
    expect(r.assetIds.sort()).toEqual([ids[0], ids[1], ids[2]].sort());
    expect(kw(ids[0])).toEqual(['mine', 'kitty', 'Fauna|Cat']);
    expect(kw(ids[2])).toEqual(['cat', 'Fauna|Dog']);
    expect(await undo(ctx)).toBe('Undo: rename keyword “Animals” to “Fauna” on 3 photos');
    expect(kw(ids[2])).toEqual(['cat', 'Animals|Dog']);
    // A change of casing only is a rename too.
    await renameKeyword(ctx, 'kitty', 'Kitty');
    expect(kw(ids[1])).toEqual(['Kitty', 'Animals|Cat']);
  });

  it('merges one keyword into another (each asset keeps one, in the first place) and deletes across assets', async () => {
    await editKeywords(ctx, [ids[1]], ['cat'], []);
    const m = await mergeKeywords(ctx, ['kitty'], 'cat');
    expect(m.description).toBe('merge keyword “kitty” into “cat” on 3 photos');
    expect(kw(ids[0])).toEqual(['mine', 'cat', 'Animals|Cat']);
    expect(kw(ids[1])).toEqual(['cat', 'Animals|Cat']);
    expect(listLibraryKeywords(ctx).some((k) => k.name === 'kitty')).toBe(false);
    const d = await deleteKeyword(ctx, 'animals');
    expect(d.assetIds.length).toBe(3);
    expect(kw(ids[2])).toEqual(['cat']);
    expect(await undo(ctx)).toMatch(/^Undo: delete keyword “animals”/);
    expect(kw(ids[2])).toEqual(['cat', 'Animals|Dog']);
  });
});
