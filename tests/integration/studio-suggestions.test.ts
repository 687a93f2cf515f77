import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changesSince } from '../../src-main/catalogue/change-log';
import { addCaptionSuggestion, addKeywordSuggestions } from '../../src-main/catalogue/suggestions';
import { openLibrary, type LibraryCtx } from '../../src-main/library/context';
import { syncOnce } from '../../src-main/studio/replica';
import { acceptSuggestions, rejectCaptions } from '../../src-main/workflows/review';
import { tagsmith } from '../helpers/cli';
import { startPostgres, type Postgres } from '../helpers/postgres';
import { serveStudio, studioTestsMissing } from '../helpers/studio';

// Issue 34: AI suggestions awaiting review are the studio's. Two members, each a library of its
// own over one folder, a real server on a throw-away PostgreSQL: a keyword run's and a caption
// run's suggestions made on Ana's machine are there to review on Ben's; Ben's accepting and
// rejecting settle them on Ana's too. What goes to the server is the suggestion's words and
// scores, nothing that identifies a person.

const missing = await studioTestsMissing('the studio suggestion sync tests', { keychain: true });

describe.skipIf(missing !== null)('studio sync of AI suggestions awaiting review', () => {
  let pgc: Postgres;
  let server: ChildProcess;
  const photos = realpathSync(mkdtempSync(join(tmpdir(), 'tagsmith-shared-')));
  const libs = [0, 1].map((i) => mkdtempSync(join(tmpdir(), `tagsmith-sugg-${i}-`)));
  const ctxs: LibraryCtx[] = [];
  const idOf = (ctx: LibraryCtx, name: string) => ctx.db.prepare('SELECT id FROM assets WHERE rel_path = ?').pluck().get(name) as number;
  const keywordSuggestions = (ctx: LibraryCtx) =>
    ctx.db.prepare("SELECT a.rel_path AS photo, s.keyword, s.score, s.state, r.batch_id AS batch FROM suggestions s JOIN assets a ON a.id = s.asset_id JOIN ai_runs r ON r.id = s.run_id ORDER BY s.keyword").all();
  const captionSuggestions = (ctx: LibraryCtx) =>
    ctx.db.prepare('SELECT a.rel_path AS photo, s.text, s.state, r.batch_id AS batch FROM caption_suggestions s JOIN assets a ON a.id = s.asset_id JOIN ai_runs r ON r.id = s.run_id').all();
  const keywordsOf = (ctx: LibraryCtx, name: string) => ((ctx.db.prepare('SELECT keywords_text FROM assets WHERE rel_path = ?').pluck().get(name) as string | null) ?? '').split('\n').filter(Boolean).sort();
  const sync = (i: number) => syncOnce(ctxs[i], libs[i]);

  beforeAll(async () => {
    mkdirSync(join(photos, 'shoot'));
    await sharp({ create: { width: 32, height: 24, channels: 3, background: { r: 200, g: 0, b: 0 } } }).jpeg().toFile(join(photos, 'shoot', 'red.jpg'));
    pgc = startPostgres();
    pgc.createDatabase('studio');
    const run = async (lib: string | null, args: string[], input?: string) => {
      const r = await tagsmith(lib, args, { input });
      expect(r.code, r.stderr).toBe(0);
    };
    for (const user of ['ana', 'ben']) await run(null, ['serve', 'user', 'add', user, '--role', 'editor', '--database', pgc.url('studio'), '--password-stdin'], `${user}-secret-1\n`);
    const started = await serveStudio(pgc.url('studio'));
    server = started.child;
    for (const [i, user] of ['ana', 'ben'].entries()) {
      await run(libs[i], ['index', join(photos, 'shoot')]);
      ctxs.push(openLibrary(libs[i]));
      await run(libs[i], ['studio', 'join', started.served.url, '--user', user, '--password-stdin', '--yes'], `${user}-secret-1\n`);
    }
  });

  afterAll(async () => {
    for (const ctx of ctxs) ctx.db.close();
    for (const lib of libs) await tagsmith(lib, ['studio', 'leave']);
    server?.kill('SIGKILL');
    pgc?.stop();
  });

  it('brings suggestions made on one replica to the other, and settles them everywhere when one replica decides', async () => {
    const [ana, ben] = ctxs;
    // Ana's keyword run and caption run suggest for the photo (as runs.ts stores what the service answered).
    const newRun = (kind: 'keywords' | 'caption') =>
      ana.db.prepare("INSERT INTO ai_runs (kind, params, params_key, lang, created_at, batch_id, status) VALUES (?, '{}', ?, 'en', ?, ?, 'done') RETURNING id, batch_id").get(kind, `${kind}-key`, Date.now(), randomUUID()) as { id: number; batch_id: string };
    const kwRun = newRun('keywords');
    const capRun = newRun('caption');
    const red = idOf(ana, 'red.jpg');
    ana.db.transaction(() => {
      addKeywordSuggestions(ana.db, { assetId: red, runId: kwRun.id, lang: 'en' }, [
        { keyword: 'sunset', raw: 'Sunset', score: 0.93, position: 0 },
        { keyword: 'beach', raw: 'beach', score: 0.81, position: 1 },
      ]);
      addCaptionSuggestion(ana.db, { assetId: red, runId: capRun.id }, 'Boats at dusk', 'boats at dusk', 'short');
    })();
    // What goes to the server: words, scores and the run's batch, nothing that identifies a person.
    for (const c of changesSince(ana.db, 0, 10_000).filter((c) => c.op === 'suggestion.add' || c.op === 'caption.add')) {
      expect(Object.keys(c.value as object).sort()).toEqual(c.op === 'suggestion.add' ? ['batch', 'keywords', 'lang', 'run'] : ['batch', 'length', 'raw', 'run', 'suggestion', 'text']);
    }

    await sync(0);
    await sync(1);
    expect(keywordSuggestions(ben)).toEqual([
      { photo: 'red.jpg', keyword: 'beach', score: 0.81, state: 'pending', batch: kwRun.batch_id },
      { photo: 'red.jpg', keyword: 'sunset', score: 0.93, state: 'pending', batch: kwRun.batch_id },
    ]);
    expect(captionSuggestions(ben)).toEqual([{ photo: 'red.jpg', text: 'Boats at dusk', state: 'pending', batch: capRun.batch_id }]);

    // Ben accepts "sunset" and rejects the caption, through the review the app uses.
    const sunset = ben.db.prepare("SELECT id FROM suggestions WHERE keyword = 'sunset'").pluck().get() as number;
    await acceptSuggestions(ben, [sunset]);
    await rejectCaptions(ben, [ben.db.prepare('SELECT id FROM caption_suggestions').pluck().get() as number]);
    await sync(1);
    await sync(0);
    expect(keywordSuggestions(ana)).toEqual([
      { photo: 'red.jpg', keyword: 'beach', score: 0.81, state: 'pending', batch: kwRun.batch_id },
      { photo: 'red.jpg', keyword: 'sunset', score: 0.93, state: 'accepted', batch: kwRun.batch_id },
    ]);
    expect(captionSuggestions(ana)).toEqual([{ photo: 'red.jpg', text: 'Boats at dusk', state: 'rejected', batch: capRun.batch_id }]);
    expect(keywordsOf(ana, 'red.jpg')).toEqual(['sunset']);
    // Both replicas end the same, and a sync again changes nothing.
    await sync(0);
    await sync(1);
    expect(keywordSuggestions(ben)).toEqual(keywordSuggestions(ana));
    expect(captionSuggestions(ben)).toEqual(captionSuggestions(ana));
  });
});
