import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { API_METHODS } from '../../src-preload/api-methods';
import { createApi } from '../../src-main/api';
import { schemas } from '../../src-main/api/schemas';
import { openLibrary } from '../../src-main/library/context';

// The renderer is untrusted: every method, fed malformed and hostile arguments, answers with
// a validation error naming the field — never a crash, never a leak of internals.

const dataDir = mkdtempSync(join(tmpdir(), 'tagsmith-api-'));
const host = createApi(openLibrary(dataDir), { watch: false });
afterAll(() => host.dispose());

const hostile: unknown[] = [
  'x'.repeat(100_000),
  { id: '1 OR 1=1' },
  { id: -1 },
  { id: 1.5 },
  { ids: [] },
  { ids: ['1'] },
  { path: '' },
  { path: 'a\0b' },
  { query: { text: 1 }, page: { offset: 0, limit: 10 } },
  { query: {}, page: { offset: -1, limit: 10 } },
  { query: {}, page: { offset: 0, limit: 1e9 } },
  { query: { kinds: ['exe'] } },
  { query: { sort: 'id; DROP TABLE assets' } },
  { query: { takenFrom: '2024-01-01; DROP' } },
  { rating: 7, ids: [1] },
  { __proto__: { polluted: true }, extra: 1 },
  [1, 2, 3],
  42,
];

/** Inputs in the list above that are a method's legitimate arguments (and only those). */
const legitimate: Partial<Record<string, unknown[]>> = {
  // The grid tells main which cells are on screen; an empty grid has none.
  setVisibleAssets: [{ ids: [] }],
};

describe('every Api method validates its arguments', () => {
  it.each(API_METHODS.filter((m) => m !== 'pickFolder'))('%s rejects hostile input with a readable validation error', async (method) => {
    for (const args of hostile) {
      if (legitimate[method]?.some((ok) => JSON.stringify(ok) === JSON.stringify(args))) continue;
      const res = await host.invoke(method, args);
      if (res.ok) {
        // Methods without arguments accept and ignore nothing but "no arguments": none of these is that.
        throw new Error(`${method} accepted ${JSON.stringify(args)?.slice(0, 80)}`);
      }
      expect(res.error.kind === 'validation' || res.error.kind === 'not_found').toBe(true);
      expect(res.error.message).not.toMatch(/at .*\.ts:\d+|SqliteError|TypeError/);
    }
  });

  it('refuses unknown methods and inherited names', async () => {
    for (const name of ['constructor', '__proto__', 'toString', 'dropTables']) {
      expect(await host.invoke(name, {})).toMatchObject({ ok: false, error: { kind: 'validation' } });
    }
  });

  it('names the field and the rule', async () => {
    const res = await host.invoke('setRating', { ids: [1], rating: 9 });
    expect(res).toMatchObject({ ok: false, error: { kind: 'validation', field: 'rating' } });
    if (!res.ok) expect(res.error.message).toMatch(/rating/);
  });

  it('asset ids: up to a million pass, one more or any id that is not a whole number above 0 is refused, naming the field', async () => {
    const million = Array.from({ length: 1_000_000 }, (_, i) => i + 1);
    expect(schemas.setRating.safeParse({ ids: million, rating: 3 }).success).toBe(true);
    expect(schemas.setRating.safeParse({ ids: [...million, 1_000_001], rating: 3 }).success).toBe(false);
    for (const bad of [[1, 1.5], [0], [2, -1], [Number.NaN], [2 ** 53], ['3'], [null], 'x', {}]) {
      const res = await host.invoke('setRating', { ids: bad, rating: 3 });
      expect(res, JSON.stringify(bad)).toMatchObject({ ok: false, error: { kind: 'validation', field: 'ids' } });
      if (!res.ok) expect(res.error.message).toMatch(/asset ids/);
    }
  });

  it('SQL metacharacters in search text are just text', async () => {
    const res = await host.invoke('search', { query: { text: `"'; DROP TABLE assets; -- * NEAR( OR` }, page: { offset: 0, limit: 10 } });
    expect(res).toEqual({ ok: true, value: { total: 0, offset: 0, items: [] } });
    expect(await host.invoke('listFolders', undefined)).toEqual({ ok: true, value: [] });
  });

  it('adding a folder that does not exist says so', async () => {
    const res = await host.invoke('addFolder', { path: join(dataDir, 'nope') });
    expect(res).toMatchObject({ ok: false, error: { kind: 'validation', field: 'path' } });
  });
});
