import { mkdirSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setFlag } from '../../src-main/analysis/culling';
import { findAssetByPath } from '../../src-main/library/assets';
import { startCatalogueIndex, useCatalogueIndex } from '../../src-main/search/catalogue-index';
import { openLibrary, type LibraryCtx } from '../../src-main/library/context';
import { search, searchIds } from '../../src-main/search/search';
import { findGroups } from '../../src-main/library/similarity';
import { frame } from '../fixtures/bursts';
import { setTakenAt, tempRoot, writeBurstShoot } from '../helpers/burst-shoot';
import { tagsmithSync, type CliRun } from '../helpers/cli';

// Issue 17, the grid's half: the stored similar groups as a search filter (CLI search
// --similar-groups / --bursts, the Api's similarGroups) and folded like RAW+JPEG stacks
// (foldGroups: one picture per group, the user's pick else the best frame; expandedGroups
// open). Real files, real scan through the CLI; then the app's way in this process, by the
// catalogue index and by SQL, which must agree.

let root: string;
let photos: string;
let library: string;
let burstA: string[];
let burstB: string[];
let copies: string[];
let alone: string[];

const cli = (args: string[]): CliRun => tagsmithSync(library, args, { timeout: 300_000 });

const paths = (args: string[]): string[] => {
  const r = cli(['--json', 'search', ...args]);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { path: string }[]).map((a) => a.path).sort();
};

beforeAll(async () => {
  root = tempRoot('tagsmith-similar-groups-');
  photos = join(root, 'photos');
  library = join(root, 'lib');
  ({ burstA, burstB, alone } = await writeBurstShoot(photos, { a: 41, b: 42, alone: [44, 45] }));
  // One picture exported twice, years before: near-duplicates, no burst.
  mkdirSync(join(photos, 'exports'), { recursive: true });
  const original = await frame(43);
  copies = [join(photos, 'exports', 'harbour.jpg'), join(photos, 'exports', 'harbour_small.jpg')];
  writeFileSync(copies[0], original);
  await sharp(original).resize(640).jpeg({ quality: 80 }).toFile(copies[1]);
  await setTakenAt([[copies[0], '2019:08:10 18:00:00']]);
  const idx = cli(['index', photos]);
  expect(idx.code, idx.stderr).toBe(0);
}, 600_000);

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('similar groups in search', () => {
  it('CLI search --similar-groups lists only photos in a group of two or more; --bursts only the bursts', () => {
    expect(paths(['--similar-groups'])).toEqual([...burstA, ...burstB, ...copies].sort());
    expect(paths(['--bursts'])).toEqual([...burstA, ...burstB].sort());
    // Combined with another filter, as any filter is.
    expect(paths(['--similar-groups', 'IMG_B'])).toEqual([...burstB].sort());
    expect(paths([])).toHaveLength(burstA.length + burstB.length + copies.length + alone.length);
  });

  it('a smart collection keeps the filter (one search model)', () => {
    const made = cli(['collection', 'smart', 'Scenes', '--bursts']);
    expect(made.code, made.stderr).toBe(0);
    expect(paths(['--collection', 'Scenes'])).toEqual([...burstA, ...burstB].sort());
  });

  it('folds each group into its best frame, or the user\'s pick, with its size; expanded groups show every frame; the index and SQL agree', async () => {
    const byIndex = openLibrary(library);
    const bySql = openLibrary(library);
    try {
      useCatalogueIndex(bySql.db, false);
      startCatalogueIndex(byIndex.db);
      const id = (ctx: LibraryCtx, p: string): number => findAssetByPath(ctx, p)!;
      const both = <T,>(fn: (ctx: LibraryCtx) => T): T => {
        const a = fn(byIndex);
        expect(fn(bySql)).toEqual(a);
        return a;
      };
      const folded = both((ctx) => search(ctx, { foldGroups: true }, { offset: 0, limit: 100 }));
      // Three groups shown as one picture each, plus the two photos in no group.
      expect(folded.total).toBe(5);
      const shown = folded.items.filter((i) => i.similarGroup);
      expect(shown.map((i) => i.similarGroup!.size).sort()).toEqual([2, 3, 4]);
      expect(shown.find((i) => i.similarGroup!.size === 4)!.similarGroup!.kind).toBe('burst');
      expect(shown.find((i) => i.similarGroup!.size === 2)!.similarGroup!.kind).toBe('similar');
      const groups = JSON.parse(cli(['--json', 'similar']).stdout) as { groups: { members: string[]; best: string }[] };
      const groupA = groups.groups.find((g) => g.members.includes(burstA[0]))!;
      const repA = shown.find((i) => i.similarGroup!.size === 4)!;
      expect(repA.id).toBe(id(byIndex, groupA.best));

      // The user's pick stands for the group instead of the suggested best.
      const other = burstA.find((p) => p !== groupA.best)!;
      await setFlag(byIndex, [id(byIndex, other)], 'pick');
      const afterPick = both((ctx) => searchIds(ctx, { foldGroups: true }));
      expect(afterPick).toContain(id(byIndex, other));
      expect(afterPick).not.toContain(id(byIndex, groupA.best));
      expect(afterPick).toHaveLength(5);

      // Expanded: that group's every frame is listed, the others stay folded.
      const expanded = both((ctx) => searchIds(ctx, { foldGroups: true, expandedGroups: [repA.similarGroup!.id] }));
      expect(expanded).toHaveLength(8);
      for (const p of burstA) expect(expanded).toContain(id(byIndex, p));

      // When the representative does not match the filter, the frames that match are shown.
      const unpicked = both((ctx) => searchIds(ctx, { foldGroups: true, flag: 'unflagged', text: 'IMG_A' }));
      expect(unpicked.sort()).toEqual(burstA.filter((p) => p !== other).map((p) => id(byIndex, p)).sort());
      // Folding and the filter together.
      expect(both((ctx) => searchIds(ctx, { foldGroups: true, similarGroups: 'burst' }))).toHaveLength(2);
    } finally {
      byIndex.db.close();
      bySql.db.close();
    }
  });

  it('suggests the best frame by the measured quality score where it disagrees with sharpness, else by sharpness; the fold follows', async () => {
    const ctx = openLibrary(library);
    try {
      startCatalogueIndex(ctx.db);
      const db = ctx.db;
      const ids = burstA.map((p) => findAssetByPath(ctx, p)!);
      const sharpness = new Map(ids.map((id) => [id, db.prepare('SELECT sharpness FROM asset_fingerprints WHERE asset_id = ?').pluck().get(id) as number]));
      const bySharpness = [...ids].sort((a, b) => sharpness.get(b)! - sharpness.get(a)!);
      const groupOf = () => findGroups(db).find((g) => g.members.includes(ids[0]))!;
      db.prepare('DELETE FROM asset_quality').run();
      // No quality measured: the sharpest frame.
      expect(groupOf().best).toBe(bySharpness[0]);
      // Quality measured, and it disagrees: the bluntest frame scores best, the sharpest worst.
      const scores = new Map(bySharpness.map((id, i) => [id, 0.2 + 0.2 * i]));
      const insert = db.prepare("INSERT INTO asset_quality (asset_id, score, params, measured_at) VALUES (?, ?, '{}', 0)");
      for (const [id, score] of scores) insert.run(id, score);
      const bluntest = bySharpness[bySharpness.length - 1];
      expect(groupOf().best).toBe(bluntest);
      // The folded grid shows it for the group (once the pick made in the test above is taken off).
      await setFlag(ctx, ids, null);
      const shown = searchIds(ctx, { foldGroups: true, text: 'IMG_A' });
      expect(shown).toEqual([bluntest]);
      // Only some frames measured: the best among the measured ones.
      db.prepare('DELETE FROM asset_quality WHERE asset_id = ?').run(bluntest);
      expect(groupOf().best).toBe(bySharpness[bySharpness.length - 2]);
      expect(searchIds(ctx, { foldGroups: true, text: 'IMG_A' })).toEqual([bySharpness[bySharpness.length - 2]]);
    } finally {
      ctx.db.close();
    }
  });
});
