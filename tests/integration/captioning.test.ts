// Captioning runs against the simulator: lengths, review (edit, accept as caption or title,
// reject), agency length warnings, reverting a run beside a later hand edit; and migration 5
// from a version-4 catalogue.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { changesSince } from '../../src-main/catalogue/change-log';
import type { Tagsmith } from '../../src-main/api/tagsmith';
import type { JobQueue } from '../../src-main/jobs';
import { openLibrary, type LibraryCtx } from '../../src-main/library/context';
import { migrate, openDb } from '../../src-main/library/db';
import { migrations } from '../../src-main/library/migrations';
import { setCaption, setTitle, undo } from '../../src-main/library/edits';
import { hashFile } from '../../src-main/library/hash';
import {
  acceptCaptions, editCaptionSuggestion, getAssetReview, getRun, pendingCaptionIds, previewCaptionRun, rejectCaptions,
  revertRun, startCaptionRun,
} from '../../src-main/workflows';
import { seedAssets, seedFolder } from '../helpers/seed';
import { startTagsmith } from '../helpers/tagsmith';
import { startSimulator, type Simulator } from '../simulator/index.js';

const creds = { clientId: 'cap', clientSecret: 'cap-secret' };
let dir: string;
let sim: Simulator;
let ctx: LibraryCtx;
let ids: number[];
let queue: JobQueue;
let app: Tagsmith;

const fields = (id: number) => ctx.db.prepare('SELECT caption, title FROM assets WHERE id = ?').get(id) as { caption: string | null; title: string | null };
const words = (s: string) => s.split(/\s+/).length;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tagsmith-captioning-'));
  const files: { rel: string; hash: string }[] = [];
  for (const [i, c] of ['#2f6fe0', '#e0c02f'].entries()) {
    const f = join(dir, `c${i}.jpg`);
    await sharp({ create: { width: 500, height: 400, channels: 3, background: c } }).jpeg().toFile(f);
    files.push({ rel: `c${i}.jpg`, hash: await hashFile(f) });
  }
  sim = await startSimulator({ port: 0, accounts: [creds] });
  ctx = openLibrary(await mkdtemp(join(dir, 'lib-')));
  const folder = seedFolder(ctx.db, dir);
  ids = seedAssets(ctx.db, [
    ...files.map((f) => ({ folderId: folder, relPath: f.rel, contentHash: f.hash, format: 'jpeg' })),
    { folderId: folder, relPath: 'clip.mp4', kind: 'video' as const, format: 'mp4', contentHash: 'clip' },
  ]);
  app = startTagsmith(ctx, { url: sim.url, creds });
  queue = app.queue;
});

afterAll(async () => {
  await app.dispose();
  ctx.db.close();
  await sim.close();
  await rm(dir, { recursive: true, force: true });
});

afterEach(() => sim.clearFaults());

describe('caption runs', () => {
  it('suggest captions of the asked length for review; photos only; the second ask of a length is free', async () => {
    const preview = await previewCaptionRun(ctx, queue, { assetIds: ids }, { length: 'short' });
    expect(preview).toMatchObject({ assets: 3, billable: 2 });
    expect(preview.skipped).toEqual([expect.objectContaining({ assetId: ids[2], reason: 'unsupported' })]);
    const short = await startCaptionRun(ctx, queue, { assetIds: ids }, { length: 'short' });
    const long = await startCaptionRun(ctx, queue, { assetIds: [ids[0]] }, { length: 'long' });
    await queue.waitForIdle();
    expect(getRun(ctx, short.runId)).toMatchObject({ kind: 'caption', status: 'done', counts: { done: 2 }, suggestions: { pending: 2 } });
    const review = getAssetReview(ctx, ids[0]);
    const s = review.captions.find((c) => c.runId === short.runId)!;
    const l = review.captions.find((c) => c.runId === long.runId)!;
    expect(s).toMatchObject({ length: 'short', state: 'pending' });
    // Each suggested caption went through the catalogue's door: a caption.add on its photo in the change log.
    const added = changesSince(ctx.db, 0, 1000).filter((c) => c.op === 'caption.add' && c.assetId === ids[0]);
    expect(added.map((c) => c.value)).toEqual([
      { suggestion: s.id, run: short.runId, batch: expect.any(String), text: s.text, raw: expect.any(String), length: 'short' },
      { suggestion: l.id, run: long.runId, batch: expect.any(String), text: l.text, raw: expect.any(String), length: 'long' },
    ]);
    expect(words(s.text)).toBeGreaterThanOrEqual(3);
    expect(words(s.text)).toBeLessThanOrEqual(6);
    expect(words(l.text)).toBeGreaterThanOrEqual(13);
    expect(fields(ids[0]).caption).toBeNull();
    expect(await previewCaptionRun(ctx, queue, { assetIds: ids }, { length: 'short', force: true })).toMatchObject({ billable: 0, cached: 2 });
    expect(await previewCaptionRun(ctx, queue, { assetIds: ids }, { length: 'normal' })).toMatchObject({ billable: 2 });
  });

  it('are edited, accepted as caption or title through the undoable edit log, or rejected', async () => {
    const [first] = await pendingCaptionIds(ctx, [ids[0]]);
    await editCaptionSuggestion(ctx, first, '  Calm  blue water ');
    expect(await acceptCaptions(ctx, [first])).toEqual([ids[0]]);
    expect(fields(ids[0]).caption).toBe('Calm blue water');
    const review = getAssetReview(ctx, ids[0]);
    expect(review.captions.find((c) => c.id === first)).toMatchObject({ state: 'accepted', acceptedAs: 'caption', raw: expect.not.stringMatching(/^Calm/) });
    // The other suggestion of that photo is settled: it has its caption.
    expect(review.captions.filter((c) => c.state === 'pending')).toEqual([]);
    expect(await undo(ctx)).toBe('Undo: accept the suggested caption of 1 photo');
    expect(fields(ids[0]).caption).toBeNull();
    await setCaption(ctx, [ids[0]], 'Calm blue water');

    const [second] = await pendingCaptionIds(ctx, [ids[1]]);
    await acceptCaptions(ctx, [second], { as: 'title' });
    expect(fields(ids[1]).title).toBe(getAssetReview(ctx, ids[1]).captions[0].text);
    expect(await rejectCaptions(ctx, [second])).toBe(0);
  });

  it('warn about agency limits: Adobe titles up to 70 characters, Shutterstock descriptions up to 200', async () => {
    await setTitle(ctx, [ids[1]], 'A very long title that goes on and on about the sea, the sky and the light');
    await setCaption(ctx, [ids[1]], 'word '.repeat(45).trim());
    const warnings = getAssetReview(ctx, ids[1]).textWarnings;
    expect(warnings.map((w) => w.message)).toEqual([
      'The title has 74 characters; Adobe Stock allows 70 for a title: shorten it by 4.',
      'The description has 224 characters; Shutterstock allows 200: shorten it by 24.',
    ]);
  });

  it('reverting a caption run restores captions it set, but not one the user changed since', async () => {
    const r = await startCaptionRun(ctx, queue, { assetIds: [ids[0], ids[1]] }, { length: 'normal' });
    await queue.waitForIdle();
    const before = [fields(ids[0]), fields(ids[1])];
    await acceptCaptions(ctx, await pendingCaptionIds(ctx, [ids[0], ids[1]], { runIds: [r.runId] }));
    expect(fields(ids[0]).caption).not.toBe(before[0].caption);
    await setCaption(ctx, [ids[1]], 'My own words');
    const res = await revertRun(ctx, r.runId);
    expect(res.captionsRestored).toBe(1);
    expect(fields(ids[0]).caption).toBe(before[0].caption);
    expect(fields(ids[1]).caption).toBe('My own words');
  });
});

describe('migration 5', () => {
  it('upgrades a version-4 catalogue, keeping its rows', async () => {
    const file = join(await mkdtemp(join(dir, 'mig-')), 'library.sqlite');
    const db = openDb(file, { upTo: 4 });
    const folder = seedFolder(db, dir);
    seedAssets(db, [{ folderId: folder, relPath: 'old.jpg', keywords: ['kept'] }]);
    migrate(db, migrations, 5);
    expect(db.pragma('user_version', { simple: true })).toBe(5);
    expect(db.prepare('SELECT keywords_text FROM assets').pluck().get()).toBe('kept');
    for (const t of ['ai_runs', 'ai_run_assets', 'suggestions', 'caption_suggestions', 'keyword_settings']) {
      expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?").pluck().get(t)).toBe(1);
    }
    db.close();
  });
});
