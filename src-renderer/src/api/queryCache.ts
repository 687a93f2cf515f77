import type { Client } from './client';

// A small cache for server state (rows from the catalogue). Each entry is tagged with the
// tables it reads; the Api's change events invalidate tags, and entries that are on screen
// re-fetch while still showing their previous value (no flicker during a scan).

export type Tag = 'folders' | 'assets' | 'keywords' | 'facets' | 'review' | 'runs';

export interface QueryState<T> {
  data: T | undefined;
  error: Error | undefined;
  loading: boolean;
}

interface Entry {
  state: QueryState<unknown>;
  tags: readonly Tag[];
  fetcher: () => Promise<unknown>;
  listeners: Set<() => void>;
  stale: boolean;
  seq: number;
}

export const EMPTY: QueryState<never> = { data: undefined, error: undefined, loading: true };
/** Scans emit many change events; coalesce them so views re-query a few times a second at most. */
const COALESCE_MS = 250;

export class QueryCache {
  private readonly entries = new Map<string, Entry>();
  private readonly invalidationListeners = new Set<(tags: ReadonlySet<Tag>) => void>();
  private pending = new Set<Tag>();
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(api: Pick<Client, 'on'>) {
    api.on('libraryChanged', () => this.invalidateSoon(['assets', 'keywords', 'facets', 'folders', 'review']));
    api.on('foldersChanged', () => this.invalidateSoon(['folders', 'facets', 'assets']));
    // A full thumbnail replaced a cell's embedded preview (or placeholder): re-read what is on screen.
    api.on('thumbnailsChanged', () => this.invalidateSoon(['assets']));
    // Suggestions landing or being decided, and AI runs advancing, change what review shows.
    api.on('suggestionsChanged', () => this.invalidateSoon(['review']));
    api.on('aiRun', () => this.invalidateSoon(['runs', 'review']));
  }

  snapshot(key: string): QueryState<unknown> {
    return this.entries.get(key)?.state ?? EMPTY;
  }

  subscribe(key: string, tags: readonly Tag[], fetcher: () => Promise<unknown>, listener: () => void): () => void {
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { state: EMPTY, tags, fetcher, listeners: new Set(), stale: true, seq: 0 };
      this.entries.set(key, entry);
    }
    entry.fetcher = fetcher;
    entry.listeners.add(listener);
    if (entry.stale) this.run(key, entry);
    const e = entry;
    return () => {
      e.listeners.delete(listener);
      // Forget unwatched entries after a while so the cache stays small.
      if (e.listeners.size === 0) {
        setTimeout(() => {
          if (e.listeners.size === 0 && this.entries.get(key) === e) this.entries.delete(key);
        }, 30_000);
      }
    };
  }

  /** React to invalidations (for views that manage their own paged data). */
  onInvalidate(listener: (tags: ReadonlySet<Tag>) => void): () => void {
    this.invalidationListeners.add(listener);
    return () => this.invalidationListeners.delete(listener);
  }

  invalidateSoon(tags: readonly Tag[]): void {
    tags.forEach((t) => this.pending.add(t));
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      const due = this.pending;
      this.pending = new Set();
      this.invalidate(due);
    }, COALESCE_MS);
  }

  invalidate(tags: ReadonlySet<Tag>): void {
    for (const [key, entry] of this.entries) {
      if (!entry.tags.some((t) => tags.has(t))) continue;
      entry.stale = true;
      if (entry.listeners.size > 0) this.run(key, entry);
      else this.entries.delete(key);
    }
    this.invalidationListeners.forEach((l) => l(tags));
  }

  private run(_key: string, entry: Entry): void {
    entry.stale = false;
    const seq = ++entry.seq;
    if (!entry.state.loading) this.set(entry, { ...entry.state, loading: true });
    entry.fetcher().then(
      (data) => {
        if (seq === entry.seq) this.set(entry, { data, error: undefined, loading: false });
      },
      (error: unknown) => {
        if (seq === entry.seq) {
          this.set(entry, { data: entry.state.data, error: error instanceof Error ? error : new Error(String(error)), loading: false });
        }
      },
    );
  }

  private set(entry: Entry, state: QueryState<unknown>): void {
    entry.state = state;
    entry.listeners.forEach((l) => l());
  }
}
