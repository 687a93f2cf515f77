import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

// Where a worker thread's entry is, for the module that starts it. From the sources (tests, the
// CLI and the bench run TypeScript through tsx) it is the TypeScript file next to that module,
// imported after tsx is registered in the worker, as bin/tagsmith.js does. In the built app
// electron-vite emits each worker as its own file beside the main bundle
// (electron.vite.config.ts); the module is bundled into out/main/index.js then, so the worker
// is looked for beside it and one folder up.

export interface WorkerEntry {
  url: URL | string;
  eval?: boolean;
}

export interface WorkerFiles {
  /** The TypeScript entry, relative to the module that starts the worker ('./heif-worker.ts'). */
  source: string;
  /** The file electron-vite emits ('heif-worker.js'). */
  built: string;
  /** What the worker is, for the message when the build lacks it ('The HEIF decoder'). */
  what: string;
}

/** `here` is the starting module's `import.meta.url` (not this file's: that one is bundled elsewhere). */
export function workerEntry(here: string, files: WorkerFiles): WorkerEntry {
  if (/\.ts$/.test(new URL(here).pathname)) {
    // require.resolve gives tsx's CommonJS build; the worker imports the ES module build beside it.
    const tsx = pathToFileURL(createRequire(here).resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href;
    const entry = new URL(files.source, here).href;
    return { url: `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`, eval: true };
  }
  for (const rel of [`./${files.built}`, `../${files.built}`]) {
    const url = new URL(rel, here);
    if (existsSync(fileURLToPath(url))) return { url };
  }
  throw new Error(`${files.what} (${files.built}) is missing beside ${fileURLToPath(here)}: the app's build is incomplete; reinstall Tagsmith.`);
}
