import type { CellState } from '../../../../src-preload/contract';
import type { Client } from '../../api/client';
import { useQuery } from '../../api/useQuery';

// A grid cell's badges beyond its summary row (metadata not yet in the file, suggestions
// waiting, sent to an agency). Each cell asks for its own; the asks of one frame go to the Api
// as one call.

interface Pending {
  ids: Map<number, { resolve(s: CellState): void; reject(err: unknown): void }[]>;
  scheduled: boolean;
}
const pendingByApi = new WeakMap<Client, Pending>();
const MAX_BATCH = 2000;

function flush(api: Client, p: Pending): void {
  p.scheduled = false;
  const all = [...p.ids.entries()];
  p.ids.clear();
  for (let i = 0; i < all.length; i += MAX_BATCH) {
    const part = all.slice(i, i + MAX_BATCH);
    api.cellStates({ ids: part.map(([id]) => id) }).then(
      (states) => {
        const byId = new Map(states.map((s) => [s.id, s]));
        for (const [id, waiters] of part) {
          const s = byId.get(id) ?? { id, write: null, suggestions: 0, sentTo: [] };
          waiters.forEach((w) => w.resolve(s));
        }
      },
      (err: unknown) => part.forEach(([, waiters]) => waiters.forEach((w) => w.reject(err))),
    );
  }
}

export function cellState(api: Client, id: number): Promise<CellState> {
  let p = pendingByApi.get(api);
  if (!p) {
    p = { ids: new Map(), scheduled: false };
    pendingByApi.set(api, p);
  }
  const pending = p;
  return new Promise((resolve, reject) => {
    const list = pending.ids.get(id) ?? [];
    list.push({ resolve, reject });
    pending.ids.set(id, list);
    if (!pending.scheduled) {
      pending.scheduled = true;
      setTimeout(() => flush(api, pending), 0);
    }
  });
}

export function useCellState(id: number) {
  return useQuery<CellState>(`cellstate:${id}`, ['assets', 'keywords', 'review', 'runs'], (api) => cellState(api, id));
}

/** "a-very-long-file-name.jpeg" as a head that may be cut and a tail that never is (the extension and a few letters before it). */
export function splitName(name: string): [string, string] {
  const dot = name.lastIndexOf('.');
  const keep = (dot > 0 ? name.length - dot : 0) + 4;
  if (name.length <= keep + 2) return [name, ''];
  return [name.slice(0, name.length - keep), name.slice(name.length - keep)];
}
