import type { AssetSummary, SearchQuery } from '../../../../src-preload/contract';
import type { Client } from '../../api/client';

// The grid's window onto a result list of any size: pages of PAGE_SIZE fetched on demand
// as they scroll into view, kept while they are near, re-fetched (showing the old rows
// meanwhile) when the catalogue changes. Never asks for the whole list.

export const PAGE_SIZE = 200;
const MAX_PAGES = 60;

interface PageSlot {
  items: AssetSummary[];
  stale: boolean;
}

export class PageStore {
  private readonly pages = new Map<number, PageSlot>();
  private readonly inflight = new Map<number, number>();
  private readonly listeners = new Set<() => void>();
  private generation = 0;
  private lastRange: [number, number] = [0, 0];
  private disposed = false;
  total: number | null = null;
  error: Error | null = null;
  version = 0;

  constructor(
    private readonly api: Pick<Client, 'search' | 'searchIds'>,
    readonly query: SearchQuery,
  ) {}

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getVersion = (): number => this.version;

  dispose(): void {
    this.disposed = true;
    this.listeners.clear();
  }

  get(index: number): AssetSummary | undefined {
    return this.pages.get(Math.floor(index / PAGE_SIZE))?.items[index % PAGE_SIZE];
  }

  /** Make sure rows [first, last] are (being) loaded. */
  ensureRange(first: number, last: number): void {
    const max = this.total === null ? last : Math.min(last, this.total - 1);
    this.lastRange = [Math.max(0, first), Math.max(0, max)];
    const p0 = Math.floor(this.lastRange[0] / PAGE_SIZE);
    const p1 = Math.floor(this.lastRange[1] / PAGE_SIZE);
    for (let p = p0; p <= p1; p++) {
      const slot = this.pages.get(p);
      if ((!slot || slot.stale) && this.inflight.get(p) !== this.generation) void this.load(p);
    }
    this.evict(p0, p1);
  }

  /** The catalogue changed: keep showing what we have, re-fetch what is on screen. */
  invalidate(): void {
    this.generation++;
    for (const slot of this.pages.values()) slot.stale = true;
    this.ensureRange(this.lastRange[0], this.lastRange[1]);
  }

  /** Ids for result positions a..b inclusive (for shift-range selection). */
  async idsInRange(a: number, b: number): Promise<number[]> {
    const [lo, hi] = a <= b ? [a, b] : [b, a];
    const ids: number[] = [];
    for (let i = lo; i <= hi; i++) {
      const item = this.get(i);
      if (!item) {
        const all = await this.api.searchIds({ query: this.query });
        return Array.from(all.subarray(lo, hi + 1));
      }
      ids.push(item.id);
    }
    return ids;
  }

  /** Every id that matches, in order ("select all matching"), as a plain array made here, in the window. */
  async allIds(): Promise<number[]> {
    return Array.from(await this.api.searchIds({ query: this.query }));
  }

  private async load(page: number): Promise<void> {
    const gen = this.generation;
    this.inflight.set(page, gen);
    try {
      const res = await this.api.search({ query: this.query, page: { offset: page * PAGE_SIZE, limit: PAGE_SIZE } });
      if (this.disposed || gen !== this.generation) return;
      this.pages.set(page, { items: res.items, stale: false });
      this.total = res.total;
      this.error = null;
    } catch (err) {
      if (this.disposed) return;
      this.error = err instanceof Error ? err : new Error(String(err));
    } finally {
      if (this.inflight.get(page) === gen) this.inflight.delete(page);
    }
    this.bump();
    // Pages asked for under a previous generation may still be due.
    if (gen !== this.generation) this.ensureRange(this.lastRange[0], this.lastRange[1]);
  }

  private evict(p0: number, p1: number): void {
    if (this.pages.size <= MAX_PAGES) return;
    const far = [...this.pages.keys()].sort((a, b) => distance(b, p0, p1) - distance(a, p0, p1));
    for (const p of far.slice(0, this.pages.size - MAX_PAGES)) this.pages.delete(p);
  }

  private bump(): void {
    this.version++;
    this.listeners.forEach((l) => l());
  }
}

function distance(p: number, p0: number, p1: number): number {
  return p < p0 ? p0 - p : p > p1 ? p - p1 : 0;
}
