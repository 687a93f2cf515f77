import { mkdirSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changesSince, deviceId } from '../../src-main/catalogue/change-log';
import { openLibrary, type LibraryCtx } from '../../src-main/library/context';
import { editKeywords, setCaption } from '../../src-main/library/edits';
import { applyRemoteChanges, type IncomingChange } from '../../src-main/library/remote';
import { tagsmith } from '../helpers/cli';

// Issue 34: a large pull from the studio is applied a turn of the event loop at a time, each
// turn one transaction of a bounded size, so the window's main thread is never held for the
// whole of it. Two real libraries over one folder: over a thousand of one's changes applied to the
// other are seen arriving in parts between turns, and the two end identical.

describe('a large pull is applied in parts', () => {
  const photos = realpathSync(mkdtempSync(join(tmpdir(), 'tagsmith-chunks-')));
  const libs = [0, 1].map((i) => mkdtempSync(join(tmpdir(), `tagsmith-chunks-lib${i}-`)));
  const ctxs: LibraryCtx[] = [];

  beforeAll(async () => {
    mkdirSync(join(photos, 'set'));
    for (let i = 0; i < 6; i++) await sharp({ create: { width: 32, height: 24, channels: 3, background: { r: 40 * i, g: 90, b: 120 } } }).jpeg().toFile(join(photos, 'set', `p${i}.jpg`));
    for (const lib of libs) {
      const r = await tagsmith(lib, ['index', join(photos, 'set')]);
      expect(r.code, r.stderr).toBe(0);
      ctxs.push(openLibrary(lib));
    }
  });

  afterAll(() => {
    for (const ctx of ctxs) ctx.db.close();
  });

  const stateOf = (ctx: LibraryCtx) => ctx.db.prepare('SELECT rel_path, keywords_text, caption FROM assets ORDER BY rel_path').all();

  it('applies over a thousand changes over many turns, and ends identical', async () => {
    const [a, b] = ctxs;
    const ids = a.db.prepare('SELECT id FROM assets ORDER BY rel_path').pluck().all() as number[];
    const words = Array.from({ length: 200 }, (_, i) => `word ${i}`);
    const joined = b.db.prepare('SELECT max(position) FROM change_log').pluck().get() as number;
    const since = a.db.prepare('SELECT max(position) FROM change_log').pluck().get() as number;
    await editKeywords(a, ids, words, []);
    await editKeywords(a, ids.slice(0, 2), [], words.slice(0, 50));
    await setCaption(a, ids, 'A long day on the coast');
    const changes: IncomingChange[] = changesSince(a.db, since, 100_000).map((c) => ({ device: c.device, seq: c.seq, hlc: c.hlc, op: c.op, asset: c.asset, field: c.field, value: c.value, undo: c.undo, author: 'ana' }));
    expect(changes.length).toBeGreaterThan(1200);

    // Between the event loop's turns, how many of them this library holds so far.
    const from = deviceId(a.db);
    const count = b.db.prepare('SELECT count(*) FROM change_log WHERE device = ?').pluck();
    const seen: number[] = [];
    let done = false;
    const applying = applyRemoteChanges(b, changes, joined).finally(() => {
      done = true;
    });
    while (!done) {
      seen.push(count.get(from) as number);
      await nextTurn();
    }
    const counts = await applying;
    expect(counts.applied).toBe(changes.length);
    const parts = seen.filter((n) => n > 0 && n < changes.length);
    expect(parts.length, 'turns that saw part of the pull applied').toBeGreaterThan(1);
    expect(stateOf(b)).toEqual(stateOf(a));

    // Applied again (a page pulled twice after a cut): nothing changes.
    expect((await applyRemoteChanges(b, changes, joined)).duplicate).toBe(changes.length);
    expect(stateOf(b)).toEqual(stateOf(a));
  });
});
