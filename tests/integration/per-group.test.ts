import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tagsmith, type CliRun } from '../helpers/cli';
import { setFlag } from '../../src-main/analysis/culling';
import { findAssetByPath } from '../../src-main/library/assets';
import { openLibrary } from '../../src-main/library/context';
import { getAssetReview } from '../../src-main/workflows';
import { startSimulator, type Simulator } from '../simulator/index.js';
import { tempRoot, writeBurstShoot } from '../helpers/burst-shoot';

// Issue 17, pay per scene: `tagsmith keyword|caption --per-group` against the simulator.
// Two generated bursts (one with the user's pick) and two photos in no group: the billed
// calls are groups + ungrouped photos, the members receive their representative's
// suggestions marked as coming from it, and nothing is accepted for them until asked.

const creds = { clientId: 'per-group', clientSecret: 'per-group-secret' };
let sim: Simulator;
let root: string;
let photos: string;
let library: string;
let burstA: string[];
let burstB: string[];
let alone: string[];

const cli = (args: string[]): Promise<CliRun> => tagsmith(library, args, { serviceUrl: sim.url, creds });

const calls = (path: string): number => sim.log.filter((e) => e.path === path).length;

interface KeywordJson {
  billable: number;
  assets: { path: string; suggestions: { keyword: string; score: number }[]; accepted: string[]; keywords: string[]; error?: string }[];
}

/** The library opened in this process (the CLI has exited): what the app would show. */
async function withLibrary<T>(fn: (ctx: ReturnType<typeof openLibrary>) => T | Promise<T>): Promise<T> {
  const ctx = openLibrary(library);
  try {
    return await fn(ctx);
  } finally {
    ctx.db.close();
  }
}

beforeAll(async () => {
  sim = await startSimulator({ port: 0, accounts: [creds] });
  root = tempRoot('tagsmith-per-group-');
  photos = join(root, 'photos');
  library = join(root, 'lib');
  ({ burstA, burstB, alone } = await writeBurstShoot(photos, { a: 31, b: 32, alone: [33, 34] }));
  const idx = await cli(['index', photos]);
  expect(idx.code, idx.stderr).toBe(0);
  // The user picked the last frame of burst B: it is the one sent.
  await withLibrary((ctx) => setFlag(ctx, [findAssetByPath(ctx, burstB[2])!], 'pick'));
}, 600_000);

afterAll(async () => {
  await sim.close();
  await rm(root, { recursive: true, force: true });
});

describe('keyword --per-group', () => {
  it('bills one call per group plus one per photo in no group; members receive the suggestions, marked, not accepted', async () => {
    const before = calls('/v1/keywords');
    const all = [...burstA, ...burstB, ...alone];
    const r = await cli(['--json', 'keyword', ...all, '--per-group']);
    expect(r.code, r.stderr).toBe(0);
    const out = r.json<KeywordJson>();
    expect(out.billable).toBe(4);
    expect(calls('/v1/keywords') - before).toBe(4);
    expect(r.stderr).toContain('7 photos in 2 groups: 2 billed calls instead of 7, plus 2 files in no group.');
    expect(out.assets.map((a) => a.path)).toEqual(all);
    for (const a of out.assets) {
      expect(Object.keys(a).sort()).toEqual(['accepted', 'keywords', 'path', 'suggestions']);
      expect(a.suggestions.length, a.path).toBeGreaterThan(0);
      expect(a.accepted).toEqual([]);
      expect(a.keywords).toEqual([]);
    }
    const byPath = new Map(out.assets.map((a) => [a.path, a]));
    // Burst B's representative is the user's pick; burst A's the suggested best frame.
    const groups = JSON.parse((await cli(['--json', 'similar', ...all])).stdout) as { groups: { members: string[]; best: string }[] };
    const bestA = groups.groups.find((g) => g.members.includes(burstA[0]))!.best;
    for (const [members, rep] of [[burstA, bestA], [burstB, burstB[2]]] as const) {
      for (const m of members) expect(byPath.get(m)!.suggestions).toEqual(byPath.get(rep)!.suggestions);
      await withLibrary((ctx) => {
        const repName = rep.slice(rep.lastIndexOf('/') + 1);
        for (const m of members) {
          const review = getAssetReview(ctx, findAssetByPath(ctx, m)!);
          for (const s of review.suggestions) {
            expect(s.state).toBe('pending');
            if (m === rep) expect(s.from).toBeUndefined();
            else expect(s.from?.name).toBe(repName);
          }
        }
      });
    }
  });

  it('accepts the members’ suggestions only when asked (--accept-above), without another billed call', async () => {
    const before = calls('/v1/keywords');
    const r = await cli(['--json', 'keyword', ...burstA, '--per-group', '--accept-above', '0.3']);
    expect(r.code, r.stderr).toBe(0);
    const out = r.json<KeywordJson>();
    expect(out.billable).toBe(0);
    expect(calls('/v1/keywords') - before).toBe(0);
    for (const a of out.assets) {
      expect(a.accepted.length, a.path).toBeGreaterThan(0);
      expect(a.keywords).toEqual(expect.arrayContaining(a.accepted));
    }
  });
});

describe('caption --per-group', () => {
  it('sends one caption call per group and per lone photo; members receive the caption for review', async () => {
    const before = calls('/v1/image_captioning');
    const r = await cli(['--json', 'caption', ...burstA, ...burstB, ...alone, '--per-group']);
    expect(r.code, r.stderr).toBe(0);
    expect(calls('/v1/image_captioning') - before).toBe(4);
    expect(r.json<{ billable: number }>().billable).toBe(4);
    await withLibrary((ctx) => {
      const rep = getAssetReview(ctx, findAssetByPath(ctx, burstB[2])!).captions[0];
      for (const m of burstB.slice(0, 2)) {
        const c = getAssetReview(ctx, findAssetByPath(ctx, m)!).captions[0];
        expect(c.text).toBe(rep.text);
        expect(c.state).toBe('pending');
        expect(c.from?.name).toBe('IMG_B_03.jpg');
      }
    });
  });
});
