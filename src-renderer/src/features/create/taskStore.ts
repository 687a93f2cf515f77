import { useEffect, useSyncExternalStore } from 'react';
import type { CreativeTaskView } from '../../../../src-preload/contract';
import type { Client } from '../../api/client';
import { useClient } from '../../api/ClientContext';

// Creative tasks as server state: one list read from main, kept live by the `creativeTask`
// event (every status, queue position and ETA change arrives there). One store per client.

export interface TaskSnapshot {
  /** newest first */
  tasks: CreativeTaskView[];
  loaded: boolean;
  error: Error | undefined;
}

const LIMIT = 200;

export class CreativeTaskStore {
  private readonly byId = new Map<number, CreativeTaskView>();
  private snap: TaskSnapshot = { tasks: [], loaded: false, error: undefined };
  private readonly listeners = new Set<() => void>();
  private loading = false;

  constructor(private readonly api: Client) {
    api.on('creativeTask', (t) => this.put(t));
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    if (!this.snap.loaded && !this.loading) void this.refresh();
    return () => this.listeners.delete(listener);
  };

  snapshot = (): TaskSnapshot => this.snap;

  async refresh(): Promise<void> {
    this.loading = true;
    try {
      const list = await this.api.listCreativeTasks({ limit: LIMIT });
      for (const t of list) this.byId.set(t.id, t);
      this.publish(true, undefined);
    } catch (err) {
      this.publish(this.snap.loaded, err instanceof Error ? err : new Error(String(err)));
    } finally {
      this.loading = false;
    }
  }

  /** A task view from an Api answer or an event; an older view never overwrites a newer one. */
  put(t: CreativeTaskView): void {
    this.byId.set(t.id, t);
    this.publish(this.snap.loaded, this.snap.error);
  }

  private publish(loaded: boolean, error: Error | undefined): void {
    const tasks = [...this.byId.values()].sort((a, b) => b.id - a.id);
    this.snap = { tasks, loaded, error };
    this.listeners.forEach((l) => l());
  }
}

const stores = new WeakMap<Client, CreativeTaskStore>();

export function useCreativeTaskStore(): CreativeTaskStore {
  const { api } = useClient();
  let store = stores.get(api);
  if (!store) {
    store = new CreativeTaskStore(api);
    stores.set(api, store);
  }
  return store;
}

export function useCreativeTasks(): TaskSnapshot & { store: CreativeTaskStore } {
  const store = useCreativeTaskStore();
  const snap = useSyncExternalStore(store.subscribe, store.snapshot);
  return { ...snap, store };
}

/** Re-read the list when the view is shown again (events cover changes while it is open). */
export function useRefreshOnShow(active: boolean): void {
  const store = useCreativeTaskStore();
  useEffect(() => {
    if (active) void store.refresh();
  }, [active, store]);
}
