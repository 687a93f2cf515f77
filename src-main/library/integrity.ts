import { Worker } from 'node:worker_threads';
import { log } from '../core/log';
import { workerEntry } from '../core/worker-entry';
import { checkWithBackup, type FileCheck } from './backup';
import { workerCanRead } from '../search/catalogue-index/spawn';
import { nativeBindingOf } from './db';
import type { LibraryCtx } from './context';

// The catalogue's health as the system panel, `tagsmith doctor` and the app's start report it:
// SQLite's quick_check reads every page of the file, 4-6 s at a million photos, so it runs in a
// worker thread (integrity-worker.ts) over its own read-only connection, never on the thread
// that answers the window. A catalogue only this connection can open (in memory) is checked here.

/** 'ok', or the first problems quick_check lists. */
export async function catalogueIntegrity(ctx: LibraryCtx): Promise<string> {
  const db = ctx.db;
  if (!workerCanRead(db)) {
    const rows = db.prepare<[], { quick_check: string }>('PRAGMA quick_check(5)').all().map((r) => r.quick_check);
    return rows.length === 1 && rows[0] === 'ok' ? 'ok' : rows.join('; ');
  }
  try {
    const { check } = await checkInWorker(db.name, { nativeBinding: nativeBindingOf(db) });
    return check.ok ? 'ok' : check.problem;
  } catch (e) {
    return (e as Error).message;
  }
}

/**
 * Check a catalogue file in a worker thread; with `backupsOf` (its library), a damaged one
 * comes with the backup to offer. Rejects when the worker fails: that says nothing of the file.
 */
export function checkInWorker(file: string, opts: { nativeBinding?: string; backupsOf?: string }): Promise<FileCheck> {
  let worker: Worker;
  try {
    const entry = workerEntry(import.meta.url, { source: './integrity-worker.ts', built: 'integrity-worker.js', what: 'The catalogue check' });
    worker = new Worker(entry.url, { workerData: { file, ...opts }, eval: entry.eval ?? false });
  } catch (e) {
    // An incomplete build: still checked, on this thread.
    log.error('the catalogue check worker could not start; checking on the main thread', e);
    return Promise.resolve(checkWithBackup(file, opts));
  }
  return new Promise<FileCheck>((resolve, reject) => {
    worker.once('message', (m: FileCheck) => resolve(m));
    worker.once('error', (e) => reject(new Error(`the check could not run: ${e.message}`, { cause: e })));
    worker.once('exit', (code) => reject(new Error(`the check stopped (exit code ${code}) before it answered`)));
  }).finally(() => void worker.terminate());
}
