import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { SearchQuery } from '../src-preload/contract';
import { openLibrary } from '../src-main/library/context';
import { search, searchIds } from '../src-main/search/search';
import { currentIndex, indexReady, useCatalogueIndex } from '../src-main/search/catalogue-index';
import { forgetResults } from '../src-main/search/search-sets';
import { check, log, median, now, p95, pick, round, type AreaResult, type Figure } from './common';
import { BENCH_CAMERA, seedCatalogue } from './data';
import { idleLoopDelay, loopDelayDuring, loopFigure } from './loop-delay';

// The library's real search() / searchIds() over synthetic catalogues of 100k and 1M assets,
// answered from the in-memory catalogue index (src-main/search/catalogue-index/) as in the
// app, once it has indexed the catalogue in the background. Each combination runs once to
// warm (the first use of a sort order reads it from its SQLite index; that time is shown),
// then N timed runs; the same query answered by SQL alone is shown beside it.

const SIZES = pick([100_000, 1_000_000], [2_000, 20_000]);
const RUNS = pick(30, 10);
const SQL_RUNS = pick(5, 3);
const TARGET_P95_MS = 30;
/** Issue 18: the first search once the index is built, and the first use of each sort order. */
const TARGET_FIRST_MS = 30;
const PAGE = { offset: 0, limit: 200 };

interface Combo {
  name: string;
  query: SearchQuery;
  offset?: number;
  ids?: boolean;
  /** The first use of this sort order is judged here (the first combination that uses it). */
  sorts?: string;
}

const COMBOS: Combo[] = [
  { name: 'default (date desc, first page)', query: { sort: 'takenAt', order: 'desc' }, sorts: 'date' },
  { name: 'default, page in the middle', query: { sort: 'takenAt', order: 'desc' }, offset: -1 },
  { name: 'text "beach"', query: { text: 'beach' } },
  { name: 'text prefix "sun"', query: { text: 'sun' } },
  { name: 'keyword "sunset"', query: { keywords: ['sunset'] } },
  { name: 'two keywords', query: { keywords: ['sunset', 'beach'] } },
  { name: 'without keyword "dog"', query: { withoutKeywords: ['dog'] } },
  { name: 'no keywords', query: { noKeywords: true } },
  { name: 'kind video', query: { kinds: ['video'] } },
  { name: 'date range (2018)', query: { takenFrom: '2018-01-01', takenTo: '2018-12-31' } },
  { name: 'camera', query: { camera: BENCH_CAMERA } },
  { name: 'rating >= 4', query: { minRating: 4 } },
  { name: 'duplicates only', query: { duplicatesOnly: true } },
  { name: 'errors only', query: { errorsOnly: true } },
  { name: 'sort name asc', query: { sort: 'name', order: 'asc' }, sorts: 'name' },
  { name: 'sort added desc', query: { sort: 'addedAt', order: 'desc' }, sorts: 'added' },
  { name: 'sort size desc', query: { sort: 'size', order: 'desc' }, sorts: 'size' },
  { name: 'text + rating + date', query: { text: 'beach', minRating: 3, takenFrom: '2016-01-01', takenTo: '2020-12-31' } },
  { name: 'keyword + camera + kind', query: { keywords: ['sunset'], camera: BENCH_CAMERA, kinds: ['image'] } },
  { name: 'text + no keywords + sort name', query: { text: 'IMG', noKeywords: true, sort: 'name' } },
  { name: 'folder + rating + sort size', query: { folderId: -1, minRating: 2, sort: 'size', order: 'desc' } },
  { name: 'searchIds: everything', query: {}, ids: true },
  { name: 'searchIds: keyword "sunset"', query: { keywords: ['sunset'] }, ids: true },
];

export async function benchQueries(workDir: string): Promise<AreaResult> {
  const t0 = Date.now();
  const figures: Figure[] = [];
  const detail: Record<string, unknown> = {};
  const notes: string[] = [
    `Catalogues built with bench/data.ts seedCatalogue (INSERT ... SELECT over a recursive sequence, one transaction, then ANALYZE). Each combination: 1 warm-up, then ${RUNS} timed runs of search() for a 200-item page plus its total (or searchIds()).`,
    'Reference: `SELECT count(*) FROM assets WHERE removed_at IS NULL` on the same catalogue in the same run (the cheapest question a grid asks).',
    'How: the app indexes the catalogue in memory when it opens it, in the background (SQL answers meanwhile): filter columns and flags as typed arrays, keyword postings, RAW+JPEG stack members, each sort order as a permutation read from its covering SQLite index, and the tokens of the FTS5 index. TEMP triggers record what each write touches, and the next search applies only that. The view with no filter at all (every live asset, RAW+JPEG stacks folded) is kept current as a mark per asset, so the opening grid and a sort on its own walk only their first page. "index build" is that background build, timed from the start to ready, and what it holds once every sort order has been used (typed arrays, plus the tokens\' strings estimated). Every result equals the SQL one (tests/integration/catalogue-index.test.ts checks random queries after every kind of edit).',
    `"SQL alone" is the same query with the index switched off (p50 of ${SQL_RUNS}), what every search cost before the index.`,
    'The judged p95 is of a NEW query: before each timed run the remembered results are forgotten (src-main/search/search-sets.ts forgetResults), as after typing a query or after any edit; only the catalogue index itself (and the stack/duplicate sets the SQL path uses) stays built. "The same query again" is what the grid asks while paging through one result: from its second request on, its whole ordered id list is remembered until the catalogue changes; it is shown, not judged.',
    '"page in the middle" is what a scrollbar drag to the middle asks for: a new query walks its sort order to the page (linear in the position); the same query again cuts from the remembered list. searchIds() of everything is linear in the library size by nature.',
  ];
  for (const size of SIZES) {
    const dir = mkdtempSync(join(workDir, `queries-${size}-`));
    const ctx = openLibrary(dir);
    try {
      const seeded = seedCatalogue(ctx.db, size);
      log('queries', `${seeded.assets} assets seeded in ${seeded.seconds} s`);
      const folderId = (ctx.db.prepare('SELECT min(id) AS id FROM folders').get() as { id: number }).id;
      const label = size >= 1_000_000 ? `${size / 1_000_000}M` : `${size / 1000}k`;
      const idle = await idleLoopDelay();
      const buildT = now();
      // Built in a worker thread; this (main) thread only takes the arrays in.
      const { delay: buildDelay } = await loopDelayDuring(() => indexReady(ctx.db));
      const buildMs = now() - buildT;
      log('queries', `${label}: index built in the background in ${round(buildMs)} ms`);
      const coldT = now();
      const first = search(ctx, COMBOS[0].query, PAGE);
      const coldMs = now() - coldT;
      const countStmt = ctx.db.prepare('SELECT count(*) AS n FROM assets WHERE removed_at IS NULL');
      countStmt.get();
      const refTimes = Array.from({ length: RUNS }, () => {
        const t = now();
        countStmt.get();
        return now() - t;
      });
      const ref = { name: 'SQLite count(*) live assets', value: round(median(refTimes)), unit: 'ms' };
      const rows: Record<string, unknown>[] = [];
      let worstP95 = 0;
      for (const c of COMBOS) {
        const query = { ...c.query, ...(c.query.folderId === -1 ? { folderId } : {}) };
        const page = { offset: c.offset === -1 ? Math.floor(first.total / 2) : 0, limit: PAGE.limit };
        const once = (): number => (c.ids ? searchIds(ctx, query).length : search(ctx, query, page).total);
        forgetResults(ctx.db);
        const firstT = now();
        const matches = once();
        const firstMs = now() - firstT;
        // The same query by SQL alone (the index switched off), checked to agree.
        useCatalogueIndex(ctx.db, false);
        const sqlTimes: number[] = [];
        for (let i = 0; i < SQL_RUNS; i++) {
          forgetResults(ctx.db);
          const t = now();
          const n = once();
          sqlTimes.push(now() - t);
          if (n !== matches) throw new Error(`${c.name}: the index found ${matches}, SQL ${n}`);
        }
        useCatalogueIndex(ctx.db, true);
        // A new query: nothing of it remembered (as after typing it, or after any edit).
        const times: number[] = [];
        for (let i = 0; i < RUNS; i++) {
          forgetResults(ctx.db);
          const t = now();
          once();
          times.push(now() - t);
        }
        // The same query again, as the grid asks while paging (its count and, past the first
        // pages, its ordered ids are remembered until the catalogue changes).
        once();
        const again: number[] = [];
        for (let i = 0; i < RUNS; i++) {
          const t = now();
          once();
          again.push(now() - t);
        }
        const row = {
          name: c.name, sorts: c.sorts ?? null, matches, firstMs: round(firstMs), p50: round(median(times)), p95: round(p95(times)),
          againP50: round(median(again)), againP95: round(p95(again)), sqlP50: round(median(sqlTimes)),
        };
        rows.push(row);
        worstP95 = Math.max(worstP95, row.p95);
      }
      // After every combination ran: every sort order has been read by now.
      const indexMb = (currentIndex(ctx.db)?.memoryBytes() ?? 0) / 1024 / 1024;
      detail[label] = { assets: seeded.assets, seedSeconds: seeded.seconds, indexBuildMs: round(buildMs), indexBuildLoopDelay: buildDelay, idleLoopDelay: idle, indexMb: round(indexMb), coldFirstSearchMs: round(coldMs), reference: ref, combos: rows };
      const isTarget = size === SIZES[SIZES.length - 1];
      for (const r of rows) {
        const p = r.p95 as number;
        figures.push({
          area: 'queries',
          name: `${label}: ${r.name as string} (p50 ${r.p50 as number} ms, ${r.matches as number} matches; first run ${r.firstMs as number} ms; the same query again: p50 ${r.againP50 as number} ms; SQL alone: p50 ${r.sqlP50 as number} ms)`,
          value: p,
          unit: 'ms p95',
          reference: ref,
          ratio: round(p / Math.max(ref.value, 0.001), 1),
          target: isTarget ? `p95 <= ${TARGET_P95_MS} ms` : null,
          status: isTarget ? check(p <= TARGET_P95_MS) : 'INFO',
        });
      }
      figures.push({
        area: 'queries', name: `${label}: first search once the index is built`, value: round(coldMs), unit: 'ms',
        reference: ref, ratio: round(coldMs / Math.max(ref.value, 0.001), 1), target: isTarget ? `<= ${TARGET_FIRST_MS} ms` : null,
        status: isTarget ? check(coldMs <= TARGET_FIRST_MS) : 'INFO',
      });
      // The first use of each sort order (its first search, nothing of it remembered).
      const firstUses = rows.filter((r) => r.sorts !== null);
      const slowest = firstUses.reduce((a, b) => ((b.firstMs as number) > (a.firstMs as number) ? b : a));
      figures.push({
        area: 'queries',
        name: `${label}: first use of every sort (the slowest of ${firstUses.map((r) => `${r.sorts as string} ${r.firstMs as number} ms`).join(', ')})`,
        value: slowest.firstMs as number, unit: 'ms', reference: ref, ratio: round((slowest.firstMs as number) / Math.max(ref.value, 0.001), 1),
        target: isTarget ? `<= ${TARGET_FIRST_MS} ms` : null, status: isTarget ? check((slowest.firstMs as number) <= TARGET_FIRST_MS) : 'INFO',
      });
      figures.push(loopFigure('queries', `${label}: main-thread event-loop delay during the index build`, `build ${round(buildMs / 1000, 2)} s in a worker thread`, buildDelay, idle, isTarget));
      figures.push({
        area: 'queries', name: `${label}: index build in the background after opening (SQL answers meanwhile); the index then holds ${round(indexMb, 1)} MB`, value: round(buildMs / 1000, 2), unit: 's',
        reference: ref, ratio: round(buildMs / Math.max(ref.value, 0.001), 1), target: null, status: 'INFO',
      });
      log('queries', `${label}: worst p95 ${worstP95} ms, cold ${round(coldMs)} ms`);
    } finally {
      ctx.db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return { area: 'queries', figures, notes, detail, seconds: (Date.now() - t0) / 1000 };
}
