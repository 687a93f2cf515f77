import type { Browser, Page } from '@playwright/test';
import type { ApiEnvelope, ApiEventName } from '../../src-preload/contract';
import { API_METHODS } from '../../src-preload/api-methods';
import { bridgeScript } from './bridge';
import { startServer } from './server';

/** What a page needs from the Node side: the Api's invoke, its events, and what media may be served. */
export interface Backend {
  invoke(method: string, args: unknown): Promise<ApiEnvelope<unknown>>;
  onAny?(listener: (event: ApiEventName, payload: unknown) => void): () => void;
  mediaRoots(): Promise<string[]>;
}

export interface RendererHandle {
  page: Page;
  origin: string;
  close(): Promise<void>;
}

/**
 * The built renderer in a fresh browser context, its `window.api` bridged to `backend`.
 * launchApp uses it with the real Api; a spec may pass a fake (e.g. 100k synthetic assets).
 */
export async function openRenderer(browser: Browser, backend: Backend, viewport = { width: 1440, height: 900 }): Promise<RendererHandle> {
  const server = await startServer(() => backend.mediaRoots());
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  page.on('pageerror', (err) => console.error(`[renderer] ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !msg.text().includes('frame-ancestors')) console.error(`[renderer console] ${msg.text()}`);
  });
  await page.exposeFunction('__tagsmithInvoke', (method: string, args: unknown) => backend.invoke(method, args));
  await page.addInitScript({ content: bridgeScript(API_METHODS, `${server.origin}/`) });
  const stopEvents =
    backend.onAny?.((event, payload) => {
      // Events in flight while the page navigates are dropped; the app re-queries on load.
      page.evaluate(([e, p]) => window.__tagsmithEmit?.(e as ApiEventName, p), [event, payload] as const).catch(() => {});
    }) ?? (() => {});
  await page.goto(`${server.origin}/`);
  await page.locator('[data-testid="app"][data-ready="true"]').waitFor();
  return {
    page,
    origin: server.origin,
    async close() {
      stopEvents();
      await context.close();
      await server.close();
    },
  };
}

