import { setImmediate as nextTurn } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { log } from '../../core/log';
import { workerEntry } from '../../core/worker-entry';
import { adoptSimilarRows } from '../../search/catalogue-index';
import type { SimilarRows } from '../../search/catalogue-index/catalogue';
import { nativeBindingOf, type Db } from '../db';
import type { LibraryCtx } from '../context';
import type { GroupsWorkerCheckpointed, GroupsWorkerRequest } from './groups-worker';
import { ensureGroups, groupsCurrent, writeDiffInSlices, type GroupsSnapshot, type PackedDiff } from './stored';

/** At most this many groups written per turn of the main thread (and at most TURN_MS of work). */
const SLICE = 100;
/** Slices between two checkpoints by the worker (about a thousand pages of log at 1M pictures, as SQLite's own default). */
const CHECKPOINT_EVERY = 50;

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
  /** The main connection's own wal_autocheckpoint while the worker checkpoints for it (null: not held). */
  autocheckpoint: number | null;
}

const backgrounds = new WeakMap<Db, Background>();

function changesOf(db: Db): number {
  return (db.prepare('SELECT changes FROM similarity_state WHERE id = 1').get() as { changes: number }).changes;
}

function settle(bg: Background): void {
  const waiters = bg.waiters.splice(0);
  for (const w of waiters) w();
}

/**
 * While the main connection writes groups, its automatic checkpoint is off: the worker copies
 * the write-ahead log into the file instead (groups-worker.ts). On this thread one is a
 * 10-20 ms step inside the commit that crosses the log's 1000 pages.
 */
function holdCheckpoints(bg: Background): void {
  if (bg.autocheckpoint !== null) return;
  bg.autocheckpoint = bg.ctx.db.pragma('wal_autocheckpoint', { simple: true }) as number;
  bg.ctx.db.pragma('wal_autocheckpoint = 0');
}

function releaseCheckpoints(bg: Background): void {
  const pages = bg.autocheckpoint;
  bg.autocheckpoint = null;
  if (pages !== null && bg.ctx.db.open) bg.ctx.db.pragma(`wal_autocheckpoint = ${Math.trunc(pages)}`);
}

interface GroupsAnswer {
  error?: string;
  snapshot?: GroupsSnapshot;
  diff?: PackedDiff;
  rows?: SimilarRows;
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
  /** The worker is gone (after its answer: its checkpoints are then left to the main connection). */
  let gone = false;
  /** This thread's writes of the answer are over. */
  let writesOver = false;
  const finish = (error: string | null): void => {
    if (bg.worker !== worker) return;
    bg.worker = null;
    void worker.terminate();
    releaseCheckpoints(bg);
    if (bg.disposed || !db.open) return settle(bg);
    if (error) {
      bg.failedAt = changesOf(db);
      log.error('similar groups could not be computed', error);
    } else bg.failedAt = null;
    if (!error && (bg.again || bg.waiters.length) && !groupsCurrent(db)) start(bg);
    else settle(bg);
  };
  /** The checkpoint asked of the worker and not yet done: the writes wait for it. */
  let asked: (() => void) | null = null;
  const lost = (why: string): void => {
    if (!answered) return finish(why);
    // The groups are this thread's to write: only the worker's checkpoints are lost.
    gone = true;
    asked?.();
    if (writesOver) finish(null);
  };
  const checkpoint = (request: GroupsWorkerRequest): Promise<void> =>
    gone
      ? Promise.resolve()
      : new Promise((resolve) => {
          asked = resolve;
          worker.postMessage(request);
        });
  worker.on('message', (m: GroupsAnswer | GroupsWorkerCheckpointed) => {
    if ('checkpointed' in m) {
      if (m.error) log.warn('the similar-groups worker could not checkpoint the catalogue (the app does it then)', m.error);
      const done = asked;
      asked = null;
      done?.();
      return m.last ? finish(null) : undefined;
    }
    answered = true;
    if (m.error || !m.snapshot || !m.diff || !m.rows) return finish(m.error ?? 'no groups in its answer');
    const { snapshot, rows } = m;
    holdCheckpoints(bg);
    let slices = 0;
    // The changes written here, a slice at a time between other work. Every so many slices
    // the worker copies the log into the file while this thread waits (free for other work):
    // with no write meanwhile the copy is whole and the next write starts the log again, so
    // it stays as short as the main connection's own checkpoints kept it.
    writeDiffInSlices(db, m.diff, snapshot, SLICE, async () => {
      if (++slices % CHECKPOINT_EVERY === 0) await checkpoint('checkpoint');
      await nextTurn();
    }).then(
      (written) => {
        writesOver = true;
        if (bg.worker !== worker) return;
        if (bg.disposed || !db.open) return finish(null);
        if (written) {
          // The catalogue index takes the groups as handed over (no SQL read of them here).
          adoptSimilarRows(db, snapshot.changes, rows);
          bg.ctx.events.emit('libraryChanged', { reason: 'groups' });
        }
        if (gone) return finish(null);
        // The last copy; the run is over when it is done (or the worker gone).
        void checkpoint('last');
      },
      (e: Error) => {
        writesOver = true;
        finish(e.message);
      },
    );
  });
  worker.once('error', (e) => lost(e.message));
  worker.once('exit', (code) => lost(`the worker stopped (exit code ${code}) before it answered`));
}

/**
 * Keep `ctx`'s similar groups up to date in a worker thread from now on (the app). Returns
 * the function that stops it (a run under way is ended; the stored groups stay consistent:
 * each of its transactions is whole).
 */
export function groupInBackground(ctx: LibraryCtx): () => void {
  if (ctx.db.name === ':memory:' || ctx.db.name === '') return () => {};
  const bg: Background = { ctx, worker: null, again: false, failedAt: null, disposed: false, waiters: [], autocheckpoint: null };
  backgrounds.set(ctx.db, bg);
  return () => {
    bg.disposed = true;
    backgrounds.delete(ctx.db);
    const w = bg.worker;
    bg.worker = null;
    if (w) void w.terminate();
    releaseCheckpoints(bg);
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
