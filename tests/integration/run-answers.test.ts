import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiEnvelope, RunPreview } from '../../src-preload/contract';
import { createApi, type ApiHost } from '../../src-main/api';
import { openLibrary, type LibraryCtx } from '../../src-main/library/context';
import { LISTED_IN_WINDOW } from '../../src-main/workflows/runs';
import { previewKeywordRun } from '../../src-main/workflows';
import { seedAssets, seedFolder } from '../helpers/seed';

// Issue 18: a run's preview over a whole library lists every photo it skips. The window gets
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
