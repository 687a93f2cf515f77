import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { createApi } from '../src-main/api';
import { openLibrary } from '../src-main/library/context';
import { openRenderer } from '../tests/e2e/renderer';
import { RENDERER_DIR } from '../tests/e2e/server';
import { check, log, median, p95, pick, round, run, type AreaResult, type Figure } from './common';
import { seedCatalogue, seedThumbFiles } from './data';

// The built renderer in Debian Chromium (headless), window.api bridged to the REAL Api over a
// real catalogue of 100k assets (tests/e2e/renderer.ts, as the end-to-end tests do), with real
// thumbnail files. Time to first grid paint comes from the page's own clock; frame times from
// requestAnimationFrame timestamps collected in the page while it scrolls the grid fast.

const ASSETS = pick(100_000, 5_000);
const SCROLL_MS = pick(8000, 3000);
/** px per frame: ~7,200 px/s at 60 Hz, a hard fling through the grid. */
const STEP_PX = 120;
const TARGET_P95_FRAME = 16.7;
/** rAF timestamps jitter by a few tenths of a ms around 16.7 even on an idle page (see the reference). */
const JITTER_MS = 0.5;

type FrameStats = { deltas: number[]; scrolledTo: number; cellsInDom: number; firstIndex: number };

export async function benchUi(workDir: string): Promise<AreaResult> {
  const t0 = Date.now();
  if (!existsSync(join(RENDERER_DIR, 'index.html'))) {
    log('ui', 'no built renderer: running electron-vite build');
    await run('npx', ['electron-vite', 'build'], { cwd: join(RENDERER_DIR, '../..') });
  }
  const dir = join(workDir, 'ui-lib');
  mkdirSync(dir, { recursive: true });
  const ctx = openLibrary(dir);
  const seeded = seedCatalogue(ctx.db, ASSETS);
  await seedThumbFiles(ctx.paths.cacheDir);
  log('ui', `${seeded.assets} assets seeded in ${seeded.seconds} s`);
  const host = createApi(ctx, { watch: false });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
  });
  const figures: Figure[] = [];
  const detail: Record<string, unknown> = {};
  try {
    const renderer = await openRenderer(browser, {
      invoke: (method, args) => host.invoke(method, args),
      onAny: (listener) => ctx.events.onAny(listener),
      mediaRoots: async () => [ctx.paths.cacheDir, ...(await host.api.listFolders()).map((f) => f.path)],
    });
    const { page } = renderer;
    try {
      // First grid paint: the first cell whose thumbnail has decoded, on the page's clock
      // (ms since navigation start), checked every animation frame.
      await page.waitForFunction(
        `[...document.querySelectorAll('[data-testid="grid-cell"] img')].some((i) => i.complete && i.naturalWidth > 0)`,
        undefined,
        { polling: 'raf', timeout: 60_000 },
      );
      const paint = (await page.evaluate(
        `({ grid: performance.now(), fcp: performance.getEntriesByType('paint').find((e) => e.name === 'first-contentful-paint')?.startTime ?? NaN })`,
      )) as { grid: number; fcp: number };
      // A string, not a function: tsx's keepNames helpers (__name) do not exist in the page.
      const frames = (scroll: boolean, ms: number, step: number): Promise<FrameStats> =>
        page.evaluate(`new Promise((resolve) => {
          const grid = document.querySelector('[data-testid="grid"]');
          const deltas = [];
          let last = 0;
          let dir = 1;
          const start = performance.now();
          function tick(t) {
            if (last) deltas.push(t - last);
            last = t;
            if (${scroll}) {
              if (grid.scrollTop + grid.clientHeight >= grid.scrollHeight - 1) dir = -1;
              else if (grid.scrollTop <= 0) dir = 1;
              grid.scrollTop += dir * ${step};
            }
            if (t - start < ${ms}) requestAnimationFrame(tick);
            else {
              const cells = [...document.querySelectorAll('[data-testid="grid-cell"]')];
              resolve({ deltas, scrolledTo: grid.scrollTop, cellsInDom: cells.length, firstIndex: Number(cells[0]?.getAttribute('data-index') ?? -1) });
            }
          }
          requestAnimationFrame(tick);
        })`);
      const idle = await frames(false, 2000, 0);
      const fast = await frames(true, SCROLL_MS, STEP_PX);
      const idleP95 = p95(idle.deltas);
      const scrollP95 = p95(fast.deltas);
      detail.firstPaint = { gridMs: round(paint.grid), fcpMs: round(paint.fcp) };
      detail.idle = { frames: idle.deltas.length, p50: round(median(idle.deltas)), p95: round(idleP95), max: round(Math.max(...idle.deltas)) };
      detail.scroll = {
        frames: fast.deltas.length, p50: round(median(fast.deltas)), p95: round(scrollP95), max: round(Math.max(...fast.deltas)),
        over33ms: fast.deltas.filter((d) => d > 33.4).length, scrolledToPx: fast.scrolledTo, cellsInDom: fast.cellsInDom, firstIndexAtEnd: fast.firstIndex,
      };
      figures.push({
        area: 'ui', name: `time to first grid paint with ${seeded.assets} assets (first thumbnail decoded, ms since navigation)`, value: round(paint.grid), unit: 'ms',
        reference: { name: 'first contentful paint of the same page', value: round(paint.fcp), unit: 'ms' }, ratio: round(paint.grid / paint.fcp, 2), ratioNote: 'grid/FCP',
        target: null, status: 'INFO',
      });
      figures.push({
        area: 'ui', name: `frame time p95 while scrolling fast (${STEP_PX} px/frame for ${SCROLL_MS / 1000} s; p50 ${round(median(fast.deltas), 1)} ms, max ${round(Math.max(...fast.deltas), 1)} ms, ${fast.deltas.filter((d) => d > 33.4).length}/${fast.deltas.length} frames > 33 ms)`,
        value: round(scrollP95, 1), unit: 'ms', reference: { name: 'same page idle (no scrolling)', value: round(idleP95, 1), unit: 'ms' },
        ratio: round(scrollP95 / idleP95, 2), ratioNote: 'scroll/idle', target: `p95 <= ${TARGET_P95_FRAME} ms (+${JITTER_MS} ms timer jitter)`, status: check(scrollP95 <= TARGET_P95_FRAME + JITTER_MS),
      });
      log('ui', `first grid paint ${round(paint.grid)} ms, scroll p95 ${round(scrollP95, 1)} ms (idle ${round(idleP95, 1)} ms)`);
    } finally {
      await renderer.close();
    }
  } finally {
    await browser.close();
    await host.dispose();
    ctx.db.close();
  }
  const notes = [
    `Real Api over a real ${seeded.assets}-asset catalogue (bench/data.ts seedCatalogue) with 256 real 400 px thumbnail files, the built renderer (out/renderer; built if missing) served on 127.0.0.1, Debian Chromium headless with --disable-gpu, viewport 1440x900, bridged as in tests/e2e/renderer.ts.`,
    'Frame times are deltas between requestAnimationFrame callbacks in the page while a rAF loop moves the grid\'s scrollTop (bouncing at the ends). Caveats: headless Chromium has no display, so frames are paced by its internal 60 Hz begin-frame timer and rasterised in software without a GPU; a delta is quantised near 16.7 ms and a missed frame shows as ~33 ms. They measure main-thread jank (React, virtualisation, layout), not what a real screen with GPU compositing shows. The idle reference shows the pacing floor of this browser on this machine; the target allows 0.5 ms of timestamp jitter above 16.7 ms (a dropped frame costs 16.7 ms more, so the verdict is about dropped frames).',
    'Time to first grid paint is from navigation start to the first grid cell with a decoded thumbnail, read on the page clock; the reference is the same page\'s first contentful paint.',
  ];
  return { area: 'ui', figures, notes, detail, seconds: (Date.now() - t0) / 1000 };
}
