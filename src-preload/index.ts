import { contextBridge, ipcRenderer, webUtils } from 'electron';
import type { ApiEnvelope, ApiEventName, ApiEvents, ExposedApi } from './contract';
import { API_METHODS, EVENT_CHANNEL, INVOKE_CHANNEL } from './api-methods';

// Named functions generated from the contract's method list; never a raw invoke().
const api: Record<string, unknown> = {};
for (const method of API_METHODS) {
  api[method] = async (args?: unknown) => {
    const envelope = (await ipcRenderer.invoke(INVOKE_CHANNEL, method, args)) as ApiEnvelope<unknown>;
    if (envelope.ok) return envelope.value;
    const error = new Error(envelope.error.message);
    Object.assign(error, { kind: envelope.error.kind, field: envelope.error.field });
    throw error;
  };
}

const listeners = new Map<ApiEventName, Set<(payload: unknown) => void>>();
ipcRenderer.on(EVENT_CHANNEL, (_event, name: ApiEventName, payload: unknown) => {
  listeners.get(name)?.forEach((listener) => listener(payload));
});

api.on = <E extends ApiEventName>(event: E, listener: (payload: ApiEvents[E]) => void) => {
  const set = listeners.get(event) ?? new Set();
  set.add(listener as (payload: unknown) => void);
  listeners.set(event, set);
  return () => set.delete(listener as (payload: unknown) => void);
};
api.mediaBase = 'tsm://app/';
// Dropped folders: the renderer gets a path for a File only through this.
api.pathForFile = (file: File) => webUtils.getPathForFile(file);

contextBridge.exposeInMainWorld('api', api as unknown as ExposedApi);
