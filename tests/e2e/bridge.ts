import type { ApiEnvelope, ApiEventName } from '../../src-preload/contract';

// What the e2e harness puts in the page instead of Electron's preload: the same shape as
// src-preload/index.ts — one function per Api method name, envelopes unwrapped into values or
// Errors carrying the human-readable message, typed events — over Playwright's exposed
// function `__tagsmithInvoke`. Node pushes events in through `__tagsmithEmit`.

declare global {
  interface Window {
    __tagsmithInvoke(method: string, args: unknown): Promise<ApiEnvelope<unknown>>;
    __tagsmithEmit?(event: ApiEventName, payload: unknown): void;
  }
}

/**
 * The init script (runs before any app script). Plain JavaScript source on purpose: a
 * function serialised with toString() would carry whatever helpers the test transpiler
 * injected (e.g. esbuild's __name), which do not exist in the page.
 */
export function bridgeScript(methods: readonly string[], mediaBase: string): string {
  return `(() => {
  const methods = ${JSON.stringify(methods)};
  const listeners = new Map();
  const api = {};
  for (const method of methods) {
    api[method] = async (args) => {
      const envelope = await window.__tagsmithInvoke(method, args);
      if (envelope.ok) return envelope.value;
      const error = new Error(envelope.error.message);
      Object.assign(error, { kind: envelope.error.kind, field: envelope.error.field });
      throw error;
    };
  }
  api.on = (event, listener) => {
    const set = listeners.get(event) || new Set();
    set.add(listener);
    listeners.set(event, set);
    return () => set.delete(listener);
  };
  api.mediaBase = ${JSON.stringify(mediaBase)};
  Object.defineProperty(window, '__tagsmithEmit', {
    value: (event, payload) => { const set = listeners.get(event); if (set) set.forEach((l) => l(payload)); },
  });
  Object.defineProperty(window, 'api', { value: Object.freeze(api) });
})();`;
}
