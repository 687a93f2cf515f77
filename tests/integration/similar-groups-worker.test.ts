import Database from 'better-sqlite3';
import { copyFileSync, mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CatalogueIndex, currentIndex, indexReady, startCatalogueIndex } from '../../src-main/search/catalogue-index';
import { openLibrary, type LibraryCtx } from '../../src-main/library/context';
import { search } from '../../src-main/search/search';
import { findGroups, type SimilarGroup } from '../../src-main/library/similarity';
import { groupInBackground, groupsSettled } from '../../src-main/library/similarity/background';
import { groupsCurrent } from '../../src-main/library/similarity/stored';
import { insertFingerprintCatalogue, xorshift32 } from '../fixtures/fingerprint-catalogue';

// Issue 17: the app's similar groups are computed in a worker thread (similarity/background.ts,
// groups-worker.ts), not inside the search that needs them, and only what changed is written.
// A real catalogue file with a few thousand fingerprints (bursts of near-identical hashes a
// second apart, near-duplicates taken years apart, undated copies); the worker's stored groups
// must be exactly those computed in this process (findGroups), before and after changes.

let dir: string;
let ctx: LibraryCtx;
let stop: () => void = () => {};

const N = 4000;

function fill(c: LibraryCtx): void {
  const r = xorshift32(17);
  let hi = 0;
  let lo = 0;
  let t = Date.UTC(2021, 0, 1);
  const seen: [number, number][] = [];
  insertFingerprintCatalogue(c.db, dir, N, r, (i) => {
    const roll = r() % 20;
    if (i > 0 && roll < 3) {
      // A burst frame: the previous frame's hash with a bit flipped in each half, a second later.
      hi ^= 1 << (r() % 32);
      lo ^= 1 << (r() % 32);
      t += 1000;
    } else if (roll === 3 && seen.length) {
      // The same picture exported again, a year later: a near-duplicate, not a burst.
      [hi, lo] = seen[r() % seen.length];
      hi ^= 1 << (r() % 32);
      t += 365 * 86_400_000;
    } else {
      hi = r();
      lo = r();
      t += 60_000;
    }
    seen.push([hi >>> 0, lo >>> 0]);
    return { hi, lo, taken: roll === 4 ? null : new Date(t).toISOString().slice(0, 19) };
  });
}

/** The stored groups, as findGroups gives them (sorted alike for comparing). */
function stored(c: LibraryCtx): SimilarGroup[] {
  const rows = c.db
    .prepare('SELECT g.id, g.kind, g.best_id, g.size, m.asset_id FROM similar_groups g JOIN similar_members m ON m.group_id = g.id ORDER BY g.id, m.position')
    .all() as { id: number; kind: 'burst' | 'similar'; best_id: number; size: number; asset_id: number }[];
  const byId = new Map<number, SimilarGroup & { size: number }>();
  for (const row of rows) {
    const g = byId.get(row.id) ?? { kind: row.kind, best: row.best_id, members: [], size: row.size };
    g.members.push(row.asset_id);
    byId.set(row.id, g);
  }
  for (const [id, g] of byId) {
    expect(g.members.length, `group ${id}'s size`).toBe(g.size);
    expect(Math.min(...g.members), `group ${id} is named by its lowest member`).toBe(id);
  }
  return sortGroups([...byId.values()].map(({ kind, best, members }) => ({ kind, best, members })));
}

const sortGroups = (gs: SimilarGroup[]): SimilarGroup[] => [...gs].sort((a, b) => Math.min(...a.members) - Math.min(...b.members));

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tagsmith-groups-worker-'));
  ctx = openLibrary(dir);
  fill(ctx);
  // Counts every group the worker's connection writes (a trigger lives in the file, so it sees other connections' writes).
  ctx.db.exec(`CREATE TABLE test_group_writes (n INTEGER NOT NULL); INSERT INTO test_group_writes VALUES (0);
    CREATE TRIGGER test_group_written AFTER INSERT ON similar_groups BEGIN UPDATE test_group_writes SET n = n + 1; END;`);
});

afterEach(async () => {
  stop();
  ctx.db.close();
  await rm(dir, { recursive: true, force: true });
});

const writes = (): number => (ctx.db.prepare('SELECT n FROM test_group_writes').get() as { n: number }).n;

describe('similar groups in a worker thread', () => {
  it('a search starts the worker instead of grouping; the worker stores exactly the groups computed here and says so', async () => {
    const expected = findGroups(ctx.db);
    expect(expected.length).toBeGreaterThan(100);
    expect(expected.some((g) => g.kind === 'burst') && expected.some((g) => g.kind === 'similar')).toBe(true);
    const events: string[] = [];
    ctx.events.on('libraryChanged', (p) => events.push(p.reason));
    stop = groupInBackground(ctx);
    expect(groupsCurrent(ctx.db)).toBe(false);

    // The search answers from the groups as stored and leaves the grouping to the worker.
    search(ctx, { similarGroups: 'any' }, { offset: 0, limit: 50 });
    await groupsSettled(ctx);
    expect(groupsCurrent(ctx.db)).toBe(true);
    expect(events).toContain('groups');
    expect(stored(ctx)).toEqual(sortGroups(expected));
    expect(writes()).toBe(expected.length);

    // Now the search sees them: every member, and folded one picture per group.
    const members = expected.reduce((n, g) => n + g.members.length, 0);
    expect(search(ctx, { similarGroups: 'any' }, { offset: 0, limit: 1 }).total).toBe(members);
    expect(search(ctx, { similarGroups: 'burst' }, { offset: 0, limit: 1 }).total).toBe(expected.filter((g) => g.kind === 'burst').reduce((n, g) => n + g.members.length, 0));
    expect(search(ctx, { foldGroups: true }, { offset: 0, limit: 1 }).total).toBe(N - members + expected.length);
  });

  it('after changes, the worker writes only the groups that changed and the result is exactly the groups of now', async () => {
    stop = groupInBackground(ctx);
    await groupsSettled(ctx);
    const before = findGroups(ctx.db);
    const written = writes();

    // One burst loses a frame (the file went away), another picture gets a new fingerprint
    // (its file was edited) and a quality score moves a group's best frame.
    const burst = before.find((g) => g.kind === 'burst' && g.members.length >= 3)!;
    ctx.db.prepare('UPDATE assets SET removed_at = 1 WHERE id = ?').run(burst.members[1]);
    const other = before.find((g) => g !== burst && g.members.length === 2)!;
    const fp = ctx.db.prepare('SELECT phash_hi AS hi, phash_lo AS lo FROM asset_fingerprints WHERE asset_id = ?').get(other.members[0]) as { hi: number; lo: number };
    ctx.db.prepare('UPDATE asset_fingerprints SET phash_hi = ?, phash_lo = ? WHERE asset_id = ?').run((fp.hi ^ 0x55555555) >>> 0, (fp.lo ^ 0x55555555) >>> 0, other.members[0]);
    const third = before.find((g) => g !== burst && g !== other)!;
    const notBest = third.members.find((m) => m !== third.best)!;
    ctx.db.prepare('INSERT INTO asset_quality (asset_id, score, params, measured_at) VALUES (?, 0.99, ?, 0)').run(notBest, '{}');
    expect(groupsCurrent(ctx.db)).toBe(false);

    const after = findGroups(ctx.db);
    expect(after).not.toEqual(before);
    search(ctx, { foldGroups: true }, { offset: 0, limit: 50 });
    await groupsSettled(ctx);
    expect(stored(ctx)).toEqual(sortGroups(after));
    // Only the groups that moved were written again (a handful of the hundreds).
    const changed = after.filter((g) => !before.some((b) => JSON.stringify(b) === JSON.stringify(g))).length;
    expect(changed).toBeGreaterThan(0);
    expect(writes() - written).toBe(changed);
  });

  it("hands the groups it stored to the catalogue index (no read back on the main thread), the same the index reads from SQL", async () => {
    startCatalogueIndex(ctx.db);
    await indexReady(ctx.db);
    const index = currentIndex(ctx.db);
    expect(index).not.toBeNull();
    const adopt = vi.spyOn(CatalogueIndex.prototype, 'adoptSimilar');
    stop = groupInBackground(ctx);
    search(ctx, { foldGroups: true }, { offset: 0, limit: 50 });
    await groupsSettled(ctx);
    expect(adopt).toHaveBeenCalledTimes(1);
    adopt.mockRestore();
    // The groups are written by this connection (a slice at a time): the index is kept, not built again.
    expect(currentIndex(ctx.db)).toBe(index);
    const handed = index!.similar();
    const fresh = new CatalogueIndex(ctx.db);
    let after = 0;
    while (after >= 0) after = fresh.loadRows(after, 100_000);
    const read = fresh.similar();
    expect(handed.stamp).toBe(read.stamp);
    for (const k of ['ids', 'best', 'start', 'members'] as const) expect(Array.from(handed[k]), k).toEqual(Array.from(read[k]));
    const len = Math.min(handed.groupOf.length, read.groupOf.length);
    expect(Array.from(handed.groupOf.subarray(0, len))).toEqual(Array.from(read.groupOf.subarray(0, len)));
    expect(Array.from(handed.burst.subarray(0, len))).toEqual(Array.from(read.burst.subarray(0, len)));
    expect(read.ids.length).toBe(findGroups(ctx.db).length);
    // And the folded search, answered by the index, counts one picture per group.
    const members = findGroups(ctx.db).reduce((n, g) => n + g.members.length, 0);
    expect(search(ctx, { foldGroups: true }, { offset: 0, limit: 1 }).total).toBe(N - members + read.ids.length);
  });

  it("the worker, not the main thread, copies the groups' write-ahead log into the catalogue file; the main connection's own checkpoints are back after", async () => {
    // The main connection's automatic checkpoint (a commit that crosses the log's pages copies
    // them all, 10-20 ms on this thread at 100k pictures) is held while it writes the groups.
    ctx.db.pragma('wal_autocheckpoint = 500');
    const held: number[] = [];
    ctx.events.on('libraryChanged', (p) => p.reason === 'groups' && held.push(ctx.db.pragma('wal_autocheckpoint', { simple: true }) as number));
    stop = groupInBackground(ctx);
    search(ctx, { similarGroups: 'any' }, { offset: 0, limit: 50 });
    await groupsSettled(ctx);
    expect(groupsCurrent(ctx.db)).toBe(true);
    expect(held).toEqual([0]);
    expect(ctx.db.pragma('wal_autocheckpoint', { simple: true })).toBe(500);
    // The catalogue file alone (its log left behind) already holds every group: the worker's checkpoint copied them.
    const copy = join(dir, 'file-alone.db');
    copyFileSync(ctx.db.name, copy);
    const alone = new Database(copy, { readonly: true });
    try {
      expect(alone.prepare('SELECT count(*) AS n FROM similar_groups').get()).toEqual({ n: findGroups(ctx.db).length });
    } finally {
      alone.close();
    }
  });

  it('stopped with the app, a run under way leaves the stored groups whole (the last ones, or none)', async () => {
    stop = groupInBackground(ctx);
    search(ctx, { foldGroups: true }, { offset: 0, limit: 50 });
    stop();
    stop = () => {};
    // Each group as stored is whole (its size is its members, named by its lowest): stored() checks.
    stored(ctx);
    // Without the background, the next search groups at once (as the CLI does).
    search(ctx, { foldGroups: true }, { offset: 0, limit: 50 });
    expect(groupsCurrent(ctx.db)).toBe(true);
    expect(stored(ctx)).toEqual(sortGroups(findGroups(ctx.db)));
  });
});
