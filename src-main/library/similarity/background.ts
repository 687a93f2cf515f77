import { Worker } from 'node:worker_threads';
import { log } from '../../core/log';
import { workerEntry } from '../../core/worker-entry';
import { adoptSimilarRows } from '../catalogue-index';
import type { SimilarRows } from '../catalogue-index/catalogue';
import { nativeBindingOf, type Db } from '../db';
import type { LibraryCtx } from '../context';
import { ensureGroups, groupsCurrent, writeDiffInSlices, type GroupsSnapshot, type PackedDiff } from './stored';

/** Groups written per slice on the main thread (a few milliseconds each). */
const SLICE = 100;

// The app's similar groups, brought up to date in a worker thread (groups-worker.ts) instead
// of inside the search that needs them: a search reads the groups as stored, starts the
// worker when they are behind the fingerprints, and when it has written the new ones the
// library says so (libraryChanged, reason 'groups'), so the grid asks again. One worker at a
// time per catalogue; a change meanwhile runs it once more after. Where no background is set
// up (the CLI, tests of search), the groups are computed at once as before (ensureGroups).

interface Background {
  ctx: LibraryCtx;
  worker: Worker | null;
  /** Asked again while a run was under way: run once more after it. */
  again: boolean;
  /** The change count a run failed at: not retried until something changes. */
  failedAt: number | null;
  disposed: boolean;
  waiters: (() => void)[];
}

const backgrounds = new WeakMap<Db, Background>();

function changesOf(db: Db): number {
  return (db.prepare('SELECT changes FROM similarity_state WHERE id = 1').get() as { changes: number }).changes;
}

function settle(bg: Background): void {
  const waiters = bg.waiters.splice(0);
  for (const w of waiters) w();
}

function start(bg: Background): void {
  const { db } = bg.ctx;
  if (bg.disposed) return settle(bg);
  if (bg.worker) {
    bg.again = true;
    return;
  }
  if (groupsCurrent(db) || bg.failedAt === changesOf(db)) return settle(bg);
  bg.again = false;
  let worker: Worker;
  try {
    const entry = workerEntry(import.meta.url, { source: './groups-worker.ts', built: 'groups-worker.js', what: 'The similar-groups worker' });
    worker = new Worker(entry.url, { workerData: { file: db.name, nativeBinding: nativeBindingOf(db) }, eval: entry.eval ?? false });
  } catch (e) {
    // No worker (an incomplete build): the groups are still right, computed here.
    log.error('the similar-groups worker could not start; grouping on the main thread', e);
    ensureGroups(db);
    return settle(bg);
  }
  bg.worker = worker;
  let answered = false;
  const finish = (error: string | null, written: boolean): void => {
    if (bg.worker !== worker) return;
    bg.worker = null;
    void worker.terminate();
    if (bg.disposed || !db.open) return settle(bg);
    if (error) {
      bg.failedAt = changesOf(db);
      log.error('similar groups could not be computed', error);
    } else bg.failedAt = null;
    if (written) bg.ctx.events.emit('libraryChanged', { reason: 'groups' });
    if (!error && (bg.again || bg.waiters.length) && !groupsCurrent(db)) start(bg);
    else settle(bg);
  };
  worker.once('message', (m: { error?: string; snapshot?: GroupsSnapshot; diff?: PackedDiff; rows?: SimilarRows }) => {
    answered = true;
    void worker.terminate();
    if (m.error || !m.snapshot || !m.diff || !m.rows) return finish(m.error ?? 'no groups in its answer', false);
    const { snapshot, rows } = m;
    // The changes written here, a slice at a time between other work.
    writeDiffInSlices(db, m.diff, snapshot, SLICE, () => new Promise((resolve) => setImmediate(resolve)))
      .then((written) => {
        if (bg.disposed || !db.open) return finish(null, false);
        // The catalogue index takes the groups as handed over (no SQL read of them here).
        if (written) adoptSimilarRows(db, snapshot.changes, rows);
        finish(null, written);
      }, (e: Error) => finish(e.message, false));
  });
  worker.once('error', (e) => finish(e.message, false));
  worker.once('exit', (code) => !answered && finish(`the worker stopped (exit code ${code}) before it answered`, false));
}

/**
 * Keep `ctx`'s similar groups up to date in a worker thread from now on (the app). Returns
 * the function that stops it (a run under way is ended; the stored groups stay consistent:
 * each of its transactions is whole).
 */
export function groupInBackground(ctx: LibraryCtx): () => void {
  if (ctx.db.name === ':memory:' || ctx.db.name === '') return () => {};
  const bg: Background = { ctx, worker: null, again: false, failedAt: null, disposed: false, waiters: [] };
  backgrounds.set(ctx.db, bg);
  return () => {
    bg.disposed = true;
    backgrounds.delete(ctx.db);
    const w = bg.worker;
    bg.worker = null;
    if (w) void w.terminate();
    settle(bg);
  };
}

/**
 * Before a search reads the stored groups: in the app, start bringing them up to date in the
 * background when they are behind (the search reads them as they are); elsewhere, do it now.
 */
export function groupsForSearch(ctx: LibraryCtx): void {
  const bg = backgrounds.get(ctx.db);
  if (!bg) return ensureGroups(ctx.db);
  if (!groupsCurrent(ctx.db)) start(bg);
}

/** Resolves once the stored groups are those of the fingerprints now (or the worker failed). */
export function groupsSettled(ctx: LibraryCtx): Promise<void> {
  const bg = backgrounds.get(ctx.db);
  if (!bg) {
    ensureGroups(ctx.db);
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    bg.waiters.push(resolve);
    start(bg);
  });
}
