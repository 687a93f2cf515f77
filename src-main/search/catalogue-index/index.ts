import { setImmediate as nextTurn } from 'node:timers/promises';
import type { SearchQuery } from '../../../src-preload/contract';
import { prepared, type Db } from '../../library/db';
import { catalogueStamp } from '../search-sets';
import { CatalogueIndex, type SimilarRows } from './catalogue';
import { trackChanges } from './changes';
import { indexOptions } from './options';
import { buildInWorker, workerCanRead } from './spawn';

export { CatalogueIndex, foldStacks, type PlainView, type SortPerm } from './catalogue';
export { A_DUP, A_ERROR, A_FLAG_MASK, A_FLAG_SHIFT, A_KIND_SHIFT, A_LABEL_MASK, A_LABEL_SHIFT, A_LIVE, A_NO_KEYWORDS, A_RATING_SHIFT, FLAG_CODE, KIND_CODE, type StackArrays } from './columns';
export { indexOptions } from './options';

// An in-memory column index of the catalogue, so that a new search over a million assets
// is answered in milliseconds: SQLite needs ~40 ms just to count the live rows of a
// million-asset table, and every filter, fold and sort costs more on top.
//
// What it holds, by asset id (typed arrays, a few bytes per asset):
// - the filter columns (live, kind, folder, rating, flag, has_error, keyword_count, camera
//   make/model as codes) and "has an exact duplicate",
// - each keyword's postings (sorted asset ids),
// - for each RAW file, the members of its stack that may fold it (RAW+JPEG),
// - each sort's order as a permutation of ids, read from the sort's own covering index, and
//   each dated asset's position on the timeline (a date range is a range of positions),
// - the tokens of the FTS5 index with their assets (text-index.ts).
//
// It is kept current incrementally: TEMP triggers on this connection record which assets,
// keyword links, stack groups and content hashes a write touched, and the next search re-reads
// only those rows and moves changed assets within the orders. A commit by another connection
// (PRAGMA data_version moves), or a mass of changes, rebuilds it. Queries it cannot answer
// (analysis filters and sorts, searches inside an open transaction) go to SQL.
//
// Here: its lifetime, one index per connection. The index is catalogue.ts, its columns
// columns.ts, the change triggers changes.ts.

// Lifetime: one index per connection, kept by a long-lived process (the app) that asked for
// it; a one-shot process (a CLI command) searches once or twice and is served by SQL.

interface Holder {
  index: CatalogueIndex | null;
  building: Promise<void> | null;
  disabled: boolean;
  /** Whether this process keeps an index (startCatalogueIndex). */
  started: boolean;
  /** Stops a build running in a worker thread. */
  cancel: (() => void) | null;
  /** Where the index in use was built, and how many builds this connection has had (tests). */
  builtBy: 'worker' | 'main thread' | null;
  builds: number;
}
const holders = new WeakMap<Db, Holder>();

function holder(db: Db): Holder {
  let h = holders.get(db);
  if (!h) {
    h = { index: null, building: null, disabled: false, started: false, cancel: null, builtBy: null, builds: 0 };
    holders.set(db, h);
  }
  return h;
}

/** Set up the change triggers and an empty index; the caller fills it. */
function fresh(db: Db): CatalogueIndex {
  trackChanges(db);
  const ix = new CatalogueIndex(db);
  ix.version = catalogueStamp(db).version;
  return ix;
}

function finish(ix: CatalogueIndex): void {
  ix.loadDuplicates();
  ix.loadKeywords();
  ix.loadStacks();
  ix.buildText(false);
}

function buildNow(db: Db): CatalogueIndex {
  const ix = fresh(db);
  let after = 0;
  while (after >= 0) after = ix.loadRows(after, CHUNK * 4);
  finish(ix);
  ix.changes = -1; // applyDirty on first use settles the stamp
  return ix;
}

const CHUNK = 25_000;

/**
 * Build the index in a worker thread over its own read-only connection, then take it in a
 * step at a time; the main thread never reads the catalogue for it. (An in-memory catalogue,
 * which no other connection can open, is read here a chunk at a time.)
 */
async function buildInBackground(db: Db, h: Holder): Promise<void> {
  for (;;) {
    if (!workerCanRead(db)) return buildInSteps(db, h);
    const ix = fresh(db);
    const build = buildInWorker(db, 'all');
    h.cancel = build.cancel;
    let parts;
    try {
      parts = await build.done;
    } catch (e) {
      ix.dispose();
      if (!db.open) return;
      // A bug or a broken install, not a user error: it is built here instead (SQL answers meanwhile).
      console.error('[search] catalogue index worker failed, indexing on the main thread:', (e as Error).message);
      return buildInSteps(db, h);
    } finally {
      h.cancel = null;
    }
    if (!parts || !db.open) return ix.dispose();
    for (const _ of ix.adopt(parts)) {
      await nextTurn();
      if (!db.open) return ix.dispose();
    }
    // Another connection committed since this one's stamp was taken: what the worker read may
    // be older or newer than this connection's changes can tell; read it again.
    if (catalogueStamp(db).version !== ix.version) {
      ix.dispose();
      continue;
    }
    ix.changes = -1; // this connection's own writes meanwhile are in its change tables
    h.index = ix;
    h.builtBy = 'worker';
    h.builds++;
    return;
  }
}

async function buildInSteps(db: Db, h: Holder): Promise<void> {
  for (;;) {
    const ix = fresh(db);
    let after = 0;
    while (after >= 0) {
      await nextTurn();
      if (!db.open) return;
      after = ix.loadRows(after, CHUNK);
    }
    const steps = [() => ix.loadDuplicates(), ...ix.keywordIds().map((k) => () => ix.loadPostings(k)), () => ix.loadStacks(), () => ix.perm('taken')];
    for (const step of steps) {
      await nextTurn();
      if (!db.open) return;
      step();
    }
    ix.buildText(true);
    if (catalogueStamp(db).version !== ix.version) {
      ix.dispose();
      continue;
    }
    ix.changes = -1;
    h.index = ix;
    h.builtBy = 'main thread';
    h.builds++;
    return;
  }
}

function assetCount(db: Db): number {
  return (prepared(db, 'SELECT coalesce(max(id), 0) AS n FROM assets').get() as { n: number }).n;
}

/**
 * The index, current with the catalogue, or null when this process keeps none, it is not
 * ready yet (a large catalogue is indexed in the background) or it cannot be trusted right
 * now (inside a transaction).
 */
export function currentIndex(db: Db): CatalogueIndex | null {
  const h = holder(db);
  if (db.inTransaction || h.disabled) return null;
  if (!h.index) {
    if (h.building || !h.started) return null;
    if (assetCount(db) > indexOptions.syncBuildMax) {
      h.building = buildInBackground(db, h)
        .catch((e: Error) => {
          // The catalogue closed under it, or a bug: SQL goes on answering.
          if (db.open) console.error('[search] the catalogue index could not be built:', e.message);
        })
        .finally(() => {
          h.building = null;
        });
      return null;
    }
    h.index = buildNow(db);
    h.builtBy = 'main thread';
    h.builds++;
  }
  const ix = h.index;
  const { version, changes } = catalogueStamp(db);
  if (version !== ix.version) {
    // Another connection wrote: this one's triggers saw none of it.
    dropIndex(db);
    return currentIndex(db);
  }
  if (changes !== ix.changes) {
    // After a mass of changes (a first scan with nobody searching) reading it all again is cheaper.
    const dirty = (prepared(db, 'SELECT count(*) AS n FROM temp.idx_dirty').get() as { n: number }).n;
    if (dirty > Math.max(indexOptions.rebuildDirty, ix.maxId / 4)) {
      dropIndex(db);
      return currentIndex(db);
    }
    try {
      ix.applyDirty();
    } catch (e) {
      // A bug, not a user error: SQL answers, and the index is built again.
      console.error('[search] catalogue index dropped:', (e as Error).message);
      dropIndex(db);
      return null;
    }
    ix.changes = catalogueStamp(db).changes;
  }
  return ix;
}

/**
 * While a long edit writes in turns, bring the index up to date a turn after each of them
 * (what that turn recorded: a few milliseconds), so no reader after the edit takes in all of
 * it at once (100,000 photos flagged were one 156 ms step in the next search). Only where the
 * index is already held; returns the function that stops it.
 */
export function keepIndexCurrent(db: Db): () => void {
  let on = true;
  const tick = (): void => {
    if (!on || !db.open) return;
    if (holder(db).index && !db.inTransaction) currentIndex(db);
    setImmediate(tick);
  };
  setImmediate(tick);
  return () => {
    on = false;
  };
}

/** Answer every search of this connection from SQL (false) or the index (true, the default). For tests that compare the two. */
export function useCatalogueIndex(db: Db, enabled: boolean): void {
  holder(db).disabled = !enabled;
}

/** Where this connection's index was last built and how many times it has been (for tests). */
export function indexBuilds(db: Db): { by: 'worker' | 'main thread' | null; count: number } {
  const h = holder(db);
  return { by: h.builtBy, count: h.builds };
}

/** The similar groups just stored as `stamp`, handed over by the worker that wrote them (no SQL read on this thread). */
export function adoptSimilarRows(db: Db, stamp: number, rows: SimilarRows): void {
  holder(db).index?.adoptSimilar(stamp, rows);
}

/** Throw the index away (it will be built again on next use): for an index found out of step. */
export function dropIndex(db: Db): void {
  const h = holder(db);
  h.cancel?.();
  h.index?.dispose();
  h.index = null;
}

/**
 * Index this connection's catalogue for the life of the process: now when it is small, else
 * in the background (SQL answers until it is ready). The app does this when it opens a library.
 */
export function startCatalogueIndex(db: Db): void {
  holder(db).started = true;
  currentIndex(db);
}

/** Resolves once the index is built (starting the build if needed). For benchmarks and tests. */
export async function indexReady(db: Db): Promise<void> {
  startCatalogueIndex(db);
  const h = holder(db);
  if (h.building) await h.building;
  while (h.index && !h.index.text) await nextTurn();
  currentIndex(db);
}

/** Whether the index can answer this query (the analysis filters and sorts, and collections, live in other tables). */
export function indexable(query: SearchQuery): boolean {
  if (query.sort === 'quality' || query.sort === 'ugcQuality' || query.sort === 'colorMatch' || query.sort === 'custom') return false;
  // Collections live in their own tables (and a smart one is a search of its own): SQL answers.
  if (query.collectionId !== undefined) return false;
  return (
    query.minQuality === undefined &&
    query.maxQuality === undefined &&
    !(query.ugcClasses && query.ugcClasses.length) &&
    query.hasFaces === undefined &&
    query.minFaces === undefined &&
    query.maxFaces === undefined &&
    !query.child &&
    query.ageMin === undefined &&
    query.ageMax === undefined &&
    query.releaseNeeded === undefined &&
    !query.sentTo &&
    !query.notSentTo &&
    !query.color
  );
}
