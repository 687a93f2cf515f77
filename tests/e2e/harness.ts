import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test as base, type Browser, type Page } from '@playwright/test';
import type { Api, ApiEnvelope } from '../../src-preload/contract';
import { createApi, type ApiHost, type ApiOptions } from '../../src-main/api';
import { openLibrary, type LibraryCtx } from '../../src-main/library/context';
import { openRenderer, type RendererHandle } from './renderer';

// The end-to-end harness (DESIGN.md, "One contract, three callers", caller 2): the BUILT
// renderer in Chromium, with `window.api` bridged to the real Api running in this test
// process — real SQLite, real files, real thumbnails. Nothing in the renderer knows.

export interface AppHandle {
  page: Page;
  /** The real Api (calls bypass validation; use host.invoke for the renderer's path). */
  api: Api;
  host: ApiHost;
  ctx: LibraryCtx;
  dataDir: string;
  origin: string;
  /** Close the page, the server and the library (the data dir is kept). */
  close(): Promise<void>;
}

export interface LaunchOptions {
  /** Reuse a data dir (e.g. to prove edits survive a restart); default: a fresh temp dir. */
  dataDir?: string;
  api?: ApiOptions;
  viewport?: { width: number; height: number };
  /** Answer a renderer call instead of the Api (undefined: the Api answers), e.g. to hand a view bad data. */
  intercept?: (method: string, args: unknown) => ApiEnvelope<unknown> | undefined;
}

export async function launchApp(browser: Browser, opts: LaunchOptions = {}): Promise<AppHandle> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'tagsmith-e2e-'));
  const ctx = openLibrary(dataDir);
  // No file watcher by default: tests add and rescan explicitly, so results are deterministic.
  const host = createApi(ctx, { watch: false, ...opts.api });
  let renderer: RendererHandle;
  try {
    renderer = await openRenderer(
      browser,
      {
        invoke: (method, args) => Promise.resolve(opts.intercept?.(method, args) ?? host.invoke(method, args)),
        onAny: (listener) => ctx.events.onAny(listener),
        mediaRoots: async () => [ctx.paths.cacheDir, ...(await host.api.listFolders()).map((f) => f.path)],
      },
      opts.viewport,
    );
  } catch (err) {
    await host.dispose();
    throw err;
  }
  let closed = false;
  return {
    page: renderer.page,
    api: host.api,
    host,
    ctx,
    dataDir,
    origin: renderer.origin,
    async close() {
      if (closed) return;
      closed = true;
      await renderer.close();
      await host.dispose();
    },
  };
}

/** `test` with a `launchApp` fixture: every app it opens is closed and its fresh data dir removed. */
export const test = base.extend<{ launchApp: (opts?: LaunchOptions) => Promise<AppHandle> }>({
  launchApp: async ({ browser }, use, testInfo) => {
    const opened: AppHandle[] = [];
    const owned = new Set<string>();
    // What each app's queue left undone, taken as it closes (a spec often closes its app in a
    // finally, before the test is known to have failed): printed only when the test failed.
    const problems: string[] = [];
    await use(async (opts = {}) => {
      const app = await launchApp(browser, opts);
      if (!opts.dataDir) owned.add(app.dataDir);
      const close = app.close.bind(app);
      let noted = false;
      app.close = async () => {
        if (!noted) {
          noted = true;
          problems.push(...jobProblems(app));
        }
        await close();
      };
      opened.push(app);
      return app;
    });
    for (const app of opened.reverse()) await app.close();
    if (testInfo.status !== testInfo.expectedStatus) for (const p of problems) console.error(`[${testInfo.title}] ${p}`);
    // A temporary folder that cannot be removed yet (a file still being written into it as the
    // app closed, seen once under load: ENOTEMPTY) is retried, then left to the system's
    // temporary files: tidying up never fails a test that passed.
    for (const dir of owned) {
      try {
        rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
      } catch (err) {
        console.warn(`[${testInfo.title}] could not remove ${dir}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  },
});

/** Every job that did not end done, and every run item that failed, with their errors, so a failure under load says why. */
function jobProblems(app: AppHandle): string[] {
  const out: string[] = [];
  try {
    const rows = app.ctx.db
      .prepare("SELECT id, kind, endpoint, state, attempts, error_kind, error_message FROM jobs WHERE state NOT IN ('done', 'cancelled') ORDER BY id")
      .all();
    if (rows.length > 0) out.push(`jobs not done in ${app.dataDir}:\n${JSON.stringify(rows, null, 1)}`);
    // A run's item can fail while its job is done (its answer could not be stored): list those too.
    const items = app.ctx.db
      .prepare("SELECT run_id, asset_id, job_id, state, error FROM ai_run_assets WHERE state NOT IN ('done', 'queued') ORDER BY run_id, asset_id")
      .all();
    if (items.length > 0) out.push(`run items not done:\n${JSON.stringify(items, null, 1)}`);
  } catch (err) {
    out.push(`could not list the jobs: ${err instanceof Error ? err.message : String(err)}`);
  }
  return out;
}

export { expect } from '@playwright/test';
