import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { workerEntry } from '../../core/worker-entry';
import { nativeBindingOf, type Db } from '../../library/db';
import type { IndexParts, TextParts } from './parts';

// Starting the index-building worker thread (build-worker.ts). From the sources (tests, the
// CLI and the bench run TypeScript through tsx) it is the .ts file with tsx loaded into the
// worker; in the built app electron-vite emits it as out/main/catalogue-worker.js beside the
// main bundle (electron.vite.config.ts).

export interface WorkerBuild<T> {
  /** The parts, or null when cancelled. */
  done: Promise<T | null>;
  cancel(): void;
}

/** Build the index of `db`'s catalogue file (or only its full-text part) in a worker thread. */
export function buildInWorker(db: Db, what: 'all'): WorkerBuild<IndexParts>;
export function buildInWorker(db: Db, what: 'text'): WorkerBuild<TextParts>;
export function buildInWorker(db: Db, what: 'all' | 'text'): WorkerBuild<IndexParts | TextParts> {
  const entry = workerEntry(import.meta.url, { source: './build-worker.ts', built: 'catalogue-worker.js', what: 'The catalogue index worker' });
  const worker = new Worker(entry.url, { workerData: { file: db.name, nativeBinding: nativeBindingOf(db), what }, eval: entry.eval ?? false });
  let cancelled = false;
  const done = new Promise<IndexParts | TextParts | null>((resolve, reject) => {
    worker.once('message', (m: { parts?: IndexParts | TextParts; error?: string }) => {
      if (m.parts) resolve(m.parts);
      else reject(new Error(`the catalogue index could not be built: ${m.error ?? 'no answer'}`));
    });
    worker.once('error', (e) => (cancelled ? resolve(null) : reject(e)));
    worker.once('exit', (code) => (cancelled ? resolve(null) : reject(new Error(`the catalogue index worker stopped (exit code ${code}) before it answered`))));
  });
  // Settled once, whichever comes first; the worker is never left running after.
  void done.then(() => worker.terminate(), () => worker.terminate());
  return {
    done,
    cancel: () => {
      cancelled = true;
      void worker.terminate();
    },
  };
}

/** Whether the catalogue behind `db` is a file another connection can open (not an in-memory database). */
export function workerCanRead(db: Db): boolean {
  return db.name !== ':memory:' && db.name !== '' && existsSync(db.name);
}
