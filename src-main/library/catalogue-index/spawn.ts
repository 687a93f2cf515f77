import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { nativeBindingOf, type Db } from '../db';
import type { IndexParts, TextParts } from './parts';

// Starting the index-building worker thread (build-worker.ts). From the sources (tests, the
// CLI and the bench run TypeScript through tsx) it is the .ts file with tsx loaded into the
// worker; in the built app electron-vite emits it as out/main/catalogue-worker.js beside the
// main bundle (electron.vite.config.ts).

function workerEntry(): { url: URL | string; eval?: boolean } {
  const here = import.meta.url;
  if (/\.ts$/.test(new URL(here).pathname)) {
    // As bin/tagsmith.js does: tsx registered in the worker, then the TypeScript entry imported.
    // (require.resolve gives the CommonJS build; the worker imports the ES module build beside it.)
    const tsx = pathToFileURL(createRequire(here).resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href;
    const entry = new URL('./build-worker.ts', here).href;
    return { url: `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`, eval: true };
  }
  for (const rel of ['./catalogue-worker.js', '../catalogue-worker.js']) {
    const url = new URL(rel, here);
    if (existsSync(fileURLToPath(url))) return { url };
  }
  throw new Error(`The catalogue index worker (catalogue-worker.js) is missing beside ${fileURLToPath(here)}: the app's build is incomplete; reinstall Tagsmith.`);
}

export interface WorkerBuild<T> {
  /** The parts, or null when cancelled. */
  done: Promise<T | null>;
  cancel(): void;
}

/** Build the index of `db`'s catalogue file (or only its full-text part) in a worker thread. */
export function buildInWorker(db: Db, what: 'all'): WorkerBuild<IndexParts>;
export function buildInWorker(db: Db, what: 'text'): WorkerBuild<TextParts>;
export function buildInWorker(db: Db, what: 'all' | 'text'): WorkerBuild<IndexParts | TextParts> {
  const entry = workerEntry();
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
