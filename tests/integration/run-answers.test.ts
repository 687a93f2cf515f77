import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiEnvelope, RunPreview } from '../../src-preload/contract';
import { createApi, type ApiHost } from '../../src-main/api';
import { openLibrary, type LibraryCtx } from '../../src-main/library/context';
import { LISTED_IN_WINDOW } from '../../src-main/workflows/runs';
import { previewKeywordRun, resolveTarget } from '../../src-main/workflows';
import { turnsDuring } from '../helpers/turns';
import { seedAssets, seedFolder } from '../helpers/seed';

// Issue 18: a selection of every photo of a large library is checked in steps, and a run's
// preview over a whole library lists every photo it skips. The window gets
// the counts by reason and the first LISTED_IN_WINDOW (a million photos already done were a
// million entries to serialise on the main process); the CLI, calling the library, gets all.

const AUDIO = 150;
const OFFLINE = 30;
let dir: string;
let ctx: LibraryCtx;
let host: ApiHost;
let audio: number[];
let offline: number[];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tagsmith-run-answers-'));
  ctx = openLibrary(dir);
  const here = seedFolder(ctx.db, join(dir, 'here'));
  const gone = seedFolder(ctx.db, join(dir, 'gone'), { online: false });
  audio = seedAssets(ctx.db, Array.from({ length: AUDIO }, (_, i) => ({ folderId: here, relPath: `a${i}.mp3`, kind: 'audio' as const })));
  offline = seedAssets(ctx.db, Array.from({ length: OFFLINE }, (_, i) => ({ folderId: gone, relPath: `p${i}.jpg` })));
  host = createApi(ctx, { watch: false });
});

afterAll(async () => {
  await host.dispose();
  rmSync(dir, { recursive: true, force: true });
});

const value = <T>(res: ApiEnvelope<T>): T => {
  if (!res.ok) throw new Error(res.error.message);
  return res.value;
};

describe("a run's answer to the window", () => {
  it('counts every skipped photo by reason and lists the first ones; the library lists them all', async () => {
    const target = { assetIds: [...audio, ...offline] };
    for (const [method, options] of [['previewKeywordRun', {}], ['previewCaptionRun', {}], ['previewAnalysisRun', { kind: 'quality' }]] as const) {
      const p = value(await host.invoke(method, { target, options })) as RunPreview;
      expect(p.assets, method).toBe(AUDIO + OFFLINE);
      expect(p.skippedCounts, method).toEqual({ unsupported: AUDIO, offline: OFFLINE });
      expect(p.skipped, method).toHaveLength(LISTED_IN_WINDOW);
      expect(p.skipped.map((s) => s.assetId), method).toEqual(audio.slice(0, LISTED_IN_WINDOW));
      expect(p.jobs, method).toBe(0);
    }
    const all = await previewKeywordRun(ctx, host.service.queue, target);
    expect(all.skipped.map((s) => s.assetId)).toEqual([...audio, ...offline]);
    expect(all.skippedCounts).toEqual({ unsupported: AUDIO, offline: OFFLINE });
  });
});

describe('a selection is checked in steps', () => {
  const MANY = 60_000;
  let many: number[];
  beforeAll(() => {
    const folder = seedFolder(ctx.db, join(dir, 'many'));
    many = seedAssets(ctx.db, Array.from({ length: MANY }, (_, i) => ({ folderId: folder, relPath: `m${i}.jpg` })));
  });

  it('each asset once, in the order given, the event loop turning meanwhile', async () => {
    const asked = [...many].reverse().concat(many.slice(0, 500));
    const { value, turns } = await turnsDuring(resolveTarget(ctx, { assetIds: asked }));
    expect(value).toEqual([...many].reverse());
    // 60,000 live ids read 20,000 a turn (in one piece, no turn would pass).
    expect(turns).toBeGreaterThanOrEqual(2);
  });

  it('refuses a large or a small selection that names an asset no longer in the library, or never in it', async () => {
    const gone = many[MANY / 2];
    ctx.db.prepare('UPDATE assets SET removed_at = ? WHERE id = ?').run(Date.now(), gone);
    try {
      await expect(resolveTarget(ctx, { assetIds: many })).rejects.toThrow(/^One of the selected items is no longer in the library/);
      await expect(resolveTarget(ctx, { assetIds: [many[0], gone, gone] })).rejects.toThrow(/^One of the selected items/);
      await expect(resolveTarget(ctx, { assetIds: [...many.slice(0, 3000), gone, many[MANY - 1] + 5, many[MANY - 1] + 5, many[MANY - 1] + 6] })).rejects.toThrow(/^3 of the selected items are no longer/);
    } finally {
      ctx.db.prepare('UPDATE assets SET removed_at = NULL WHERE id = ?').run(gone);
    }
    expect(await resolveTarget(ctx, { assetIds: many.slice(0, 3) })).toEqual(many.slice(0, 3));
  });

  it('ids far beyond the catalogue (a hostile window) are refused without a byte per possible id', async () => {
    const far = [Number.MAX_SAFE_INTEGER, 2 ** 40, Number.MAX_SAFE_INTEGER];
    await expect(resolveTarget(ctx, { assetIds: [...many, ...far] })).rejects.toThrow(/^2 of the selected items are no longer/);
    await expect(resolveTarget(ctx, { assetIds: [many[0], ...far] })).rejects.toThrow(/^2 of the selected items are no longer/);
  });
});
