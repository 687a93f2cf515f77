// Issue 15 item 10 for libraries that existed before it: keyword casing follows the language by
// default, but every save of the keyword settings used to store casing 'lower' (the default of
// the time). Migration 19 moves those libraries to 'byLanguage', remembers what they had so
// Settings › Keywords can say so once, and touches no keyword.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { libraryPaths } from '../../src-main/core/paths';
import { openDb } from '../../src-main/library/db';
import { openLibrary, type LibraryCtx } from '../../src-main/library/context';
import { getAssetKeywords } from '../../src-main/library/keywords';
import { getKeywordSettings, setKeywordSettings, Vocabulary } from '../../src-main/workflows/hygiene';
import { seedAsset, seedFolder } from '../helpers/seed';

const dirs: string[] = [];
const open: LibraryCtx[] = [];

afterEach(() => {
  for (const c of open.splice(0)) c.db.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A library at migration 18 whose keyword settings were saved the way the old code saved them. */
function oldLibrary(settings: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), 'tagsmith-casing-'));
  dirs.push(dir);
  const ctx = openLibrary(dir);
  ctx.db.close();
  const paths = libraryPaths(dir);
  rmSync(paths.dbFile);
  const db = openDb(paths.dbFile, { upTo: 18 });
  const put = db.prepare('INSERT INTO keyword_settings (key, value) VALUES (?, ?)');
  for (const [k, v] of Object.entries(settings)) put.run(k, JSON.stringify(v));
  db.close();
  return dir;
}

const reopen = (dir: string): LibraryCtx => {
  const ctx = openLibrary(dir);
  open.push(ctx);
  return ctx;
};

const OLD_SAVE = { exclude: ['nobody'], required: [], limit: { preset: 'default', min: 0, max: 50 }, exportSynonyms: false };

describe('keyword casing of libraries saved before it followed the language', () => {
  it('a stored "lower" becomes "byLanguage" with a one-time notice; keywords the user has keep their spelling', () => {
    const dir = oldLibrary({ ...OLD_SAVE, casing: 'lower' });
    const ctx = reopen(dir);
    const s = getKeywordSettings(ctx);
    expect(s).toMatchObject({ casing: 'byLanguage', casingChangedFrom: 'lower', exclude: ['nobody'] });

    // The user's keywords are as they were; new German words keep their capital, known ones the library's spelling.
    const folderId = seedFolder(ctx.db, '/photos');
    const a = seedAsset(ctx.db, { folderId, relPath: 'a.jpg', keywords: ['himmel', 'beach'] });
    const vocab = new Vocabulary(ctx);
    expect(vocab.spell('HIMMEL', s.casing, 'de')).toBe('himmel');
    expect(vocab.spell('STRAND', s.casing, 'de')).toBe('Strand');
    expect(vocab.spell('Sunset', s.casing, 'en')).toBe('sunset');
    expect(getAssetKeywords(ctx.db, a)).toEqual(['himmel', 'beach']);

    // Saving something else leaves the notice up; choosing a casing (even the old one) answers it, for good.
    expect(setKeywordSettings(ctx, { exclude: ['nobody', 'no people'] }).casingChangedFrom).toBe('lower');
    expect(setKeywordSettings(ctx, { casing: 'lower' })).toMatchObject({ casing: 'lower', casingChangedFrom: null });
    ctx.db.close();
    open.pop();
    expect(getKeywordSettings(reopen(dir))).toMatchObject({ casing: 'lower', casingChangedFrom: null });
  });

  it('a casing the user chose otherwise ("asSent") is kept, with no notice; a library without one takes the default', () => {
    expect(getKeywordSettings(reopen(oldLibrary({ ...OLD_SAVE, casing: 'asSent' })))).toMatchObject({ casing: 'asSent', casingChangedFrom: null });
    expect(getKeywordSettings(reopen(oldLibrary({})))).toMatchObject({ casing: 'byLanguage', casingChangedFrom: null });
  });

  it('saving one setting stores only that one: a default nobody chose stays a default', () => {
    const ctx = reopen(oldLibrary({}));
    setKeywordSettings(ctx, { exclude: ['nobody'] });
    const keys = ctx.db.prepare('SELECT key FROM keyword_settings ORDER BY key').pluck().all();
    expect(keys).toEqual(['exclude']);
  });
});
