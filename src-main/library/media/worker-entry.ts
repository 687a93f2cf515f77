import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * How to start the worker thread `name` ('pixel-worker') that lives beside the module at
 * `callerUrl` (pass import.meta.url). From the sources (tests, the CLI and the bench run
 * TypeScript through tsx) tsx is registered in the worker and the TypeScript entry imported;
 * in the built app electron-vite emits it as out/main/<name>.js beside the main bundle.
 */
export function workerEntry(callerUrl: string, name: string): { url: URL | string; eval: boolean } {
  if (/\.ts$/.test(new URL(callerUrl).pathname)) {
    const tsx = pathToFileURL(createRequire(callerUrl).resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href;
    const entry = new URL(`./${name}.ts`, callerUrl).href;
    return { url: `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`, eval: true };
  }
  for (const rel of [`./${name}.js`, `../${name}.js`]) {
    const url = new URL(rel, callerUrl);
    if (existsSync(fileURLToPath(url))) return { url, eval: false };
  }
  throw new Error(`A part of Tagsmith (${name}.js) is missing beside ${fileURLToPath(callerUrl)}: the app's build is incomplete; reinstall Tagsmith.`);
}
