import { Worker } from 'node:worker_threads';
import { log } from '../core/log';
import { workerEntry } from '../core/worker-entry';
import { checkCatalogueFile, type CatalogueCheck } from './backup';
import { workerCanRead } from './catalogue-index/spawn';
import { nativeBindingOf } from './db';
import type { LibraryCtx } from './context';

// The catalogue's health as the system panel and `tagsmith doctor` report it: SQLite's
// quick_check reads every page of the file, 4-6 s at a million photos, so it runs in a worker
// thread (integrity-worker.ts) over its own read-only connection, never on the thread that
// answers the window. A catalogue only this connection can open (in memory) is checked here.

/** 'ok', or the first problems quick_check lists. */
export async function catalogueIntegrity(ctx: LibraryCtx): Promise<string> {
  const check = await checkInWorker(ctx);
  return check.ok ? 'ok' : check.problem;
}

function checkInWorker(ctx: LibraryCtx): Promise<CatalogueCheck> {
  const db = ctx.db;
  const here = (): CatalogueCheck => {
    const rows = db.prepare<[], { quick_check: string }>('PRAGMA quick_check(5)').all().map((r) => r.quick_check);
    return rows.length === 1 && rows[0] === 'ok' ? { ok: true, version: 0 } : { ok: false, problem: rows.join('; ') };
  };
  if (!workerCanRead(db)) return Promise.resolve(here());
  let worker: Worker;
  try {
    const entry = workerEntry(import.meta.url, { source: './integrity-worker.ts', built: 'integrity-worker.js', what: 'The catalogue check' });
    worker = new Worker(entry.url, { workerData: { file: db.name, nativeBinding: nativeBindingOf(db) }, eval: entry.eval ?? false });
  } catch (e) {
    // An incomplete build: still checked, on this thread.
    log.error('the catalogue check worker could not start; checking on the main thread', e);
    return Promise.resolve(checkCatalogueFile(db.name, nativeBindingOf(db)));
  }
  return new Promise<CatalogueCheck>((resolve) => {
    worker.once('message', (m: CatalogueCheck) => resolve(m));
    worker.once('error', (e) => resolve({ ok: false, problem: `the check could not run: ${e.message}` }));
    worker.once('exit', (code) => resolve({ ok: false, problem: `the check stopped (exit code ${code}) before it answered` }));
  }).finally(() => void worker.terminate());
}
