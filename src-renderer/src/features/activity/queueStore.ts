import { useEffect, useSyncExternalStore } from 'react';
import type { BatchView, JobView, LaneView, QueueStatus } from '../../../../src-preload/contract';
import type { Client } from '../../api/client';
import { useClient } from '../../api/ClientContext';

// Server state of the job queue, kept live from main's queue events. A big batch emits
// several events per job; the store folds them in at once but tells React at most every
// RENDER_MS, so the Activity view re-renders a few times a second whatever the job rate.

export interface QueueSnapshot {
  status: QueueStatus | undefined;
  /** newest first */
  batches: BatchView[];
  /** jobs of the batches someone is watching (expanded in Activity) */
  jobs: ReadonlyMap<string, JobView[]>;
  error: Error | undefined;
}

const RENDER_MS = 150;
/** lane `recentStarts` is a rolling one-second count and lanes going idle send no event: re-read while work runs */
const STATUS_POLL_MS = 1000;
const BATCH_LIMIT = 50;
export const JOBS_SHOWN = 500;

export class QueueStore {
  private snap: QueueSnapshot = { status: undefined, batches: [], jobs: new Map(), error: undefined };
  private status: QueueStatus | undefined;
  private readonly batches = new Map<string, BatchView>();
  private readonly jobs = new Map<string, Map<number, JobView>>();
  private readonly watchers = new Map<string, number>();
  private error: Error | undefined;
  private readonly listeners = new Set<() => void>();
  private renderTimer: ReturnType<typeof setTimeout> | null = null;
  private statusTimer: ReturnType<typeof setTimeout> | null = null;
  private pollTimer: ReturnType<typeof setInterval> | null = null;
  private pollers = 0;
  private statusSeq = 0;

  constructor(private readonly api: Client) {
    api.on('queueStatus', (s) => {
      this.statusSeq++;
      this.status = s;
      this.changed();
    });
    api.on('queueLane', (lane) => this.setLane(lane));
    api.on('queueBatch', (b) => {
      this.batches.set(b.id, b);
      this.changed();
    });
    api.on('queueJob', (j) => {
      const list = j.batchId ? this.jobs.get(j.batchId) : undefined;
      if (list) list.set(j.id, j);
      else if (j.batchId && !this.batches.has(j.batchId)) this.refreshBatchesSoon();
      // Job transitions change the totals and lane occupancy in the status too.
      this.refreshStatusSoon();
      this.changed();
    });
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  snapshot = (): QueueSnapshot => this.snap;

  /** Re-read everything (on mount of a view, after an action). */
  async refresh(): Promise<void> {
    try {
      const seq = ++this.statusSeq;
      const [status, batches] = await Promise.all([this.api.queueStatus(), this.api.listBatches({ limit: BATCH_LIMIT })]);
      if (seq === this.statusSeq) this.status = status;
      this.batches.clear();
      for (const b of batches) this.batches.set(b.id, b);
      this.error = undefined;
      await Promise.all([...this.watchers.keys()].map((id) => this.loadJobs(id)));
    } catch (err) {
      this.error = err instanceof Error ? err : new Error(String(err));
    }
    this.changed(true);
  }

  async refreshStatus(): Promise<void> {
    try {
      const seq = ++this.statusSeq;
      const status = await this.api.queueStatus();
      if (seq === this.statusSeq) this.status = status;
      this.changed();
    } catch {
      // the next event or poll tries again
    }
  }

  /** Keep the jobs of one batch loaded and live; returns the unwatch. */
  watchBatch(id: string): () => void {
    this.watchers.set(id, (this.watchers.get(id) ?? 0) + 1);
    if (!this.jobs.has(id)) void this.loadJobs(id).then(() => this.changed(true));
    return () => {
      const n = (this.watchers.get(id) ?? 1) - 1;
      if (n > 0) this.watchers.set(id, n);
      else {
        this.watchers.delete(id);
        this.jobs.delete(id);
        this.changed();
      }
    };
  }

  /** While a view shows rates, re-read the status every second when anything is under way. */
  poll(): () => void {
    this.pollers++;
    if (!this.pollTimer) {
      this.pollTimer = setInterval(() => {
        const s = this.status;
        const busy = !!s && ((s.counts.running ?? 0) > 0 || s.lanes.some((l) => l.running > 0 || l.recentStarts > 0) || s.hold?.reason === 'offline');
        if (busy) void this.refreshStatus();
      }, STATUS_POLL_MS);
    }
    return () => {
      this.pollers--;
      if (this.pollers === 0 && this.pollTimer) {
        clearInterval(this.pollTimer);
        this.pollTimer = null;
      }
    };
  }

  private async loadJobs(batchId: string): Promise<void> {
    try {
      const list = await this.api.listJobs({ batchId, limit: JOBS_SHOWN });
      if (!this.watchers.has(batchId)) return;
      this.jobs.set(batchId, new Map(list.map((j) => [j.id, j])));
    } catch (err) {
      this.error = err instanceof Error ? err : new Error(String(err));
    }
  }

  private setLane(lane: LaneView): void {
    if (!this.status) return;
    const lanes = this.status.lanes.some((l) => l.name === lane.name)
      ? this.status.lanes.map((l) => (l.name === lane.name ? lane : l))
      : [...this.status.lanes, lane];
    this.status = { ...this.status, lanes };
    this.changed();
  }

  private refreshStatusSoon(): void {
    if (this.statusTimer) return;
    this.statusTimer = setTimeout(() => {
      this.statusTimer = null;
      void this.refreshStatus();
    }, 400);
  }

  private batchesTimer: ReturnType<typeof setTimeout> | null = null;
  private refreshBatchesSoon(): void {
    if (this.batchesTimer) return;
    this.batchesTimer = setTimeout(() => {
      this.batchesTimer = null;
      void this.api.listBatches({ limit: BATCH_LIMIT }).then((list) => {
        for (const b of list) this.batches.set(b.id, b);
        this.changed();
      }, () => {});
    }, 300);
  }

  private changed(now = false): void {
    if (now) {
      if (this.renderTimer) clearTimeout(this.renderTimer);
      this.renderTimer = null;
      this.publish();
      return;
    }
    if (this.renderTimer) return;
    this.renderTimer = setTimeout(() => {
      this.renderTimer = null;
      this.publish();
    }, RENDER_MS);
  }

  private publish(): void {
    const jobs = new Map<string, JobView[]>();
    for (const [id, m] of this.jobs) jobs.set(id, [...m.values()].sort((a, b) => a.id - b.id));
    const batches = [...this.batches.values()].sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? -1 : 1));
    this.snap = { status: this.status, batches, jobs, error: this.error };
    this.listeners.forEach((l) => l());
  }
}

const stores = new WeakMap<Client, QueueStore>();

/** The one queue store per client (the nav badge and Activity share it). */
export function queueStoreOf(api: Client): QueueStore {
  let s = stores.get(api);
  if (!s) {
    s = new QueueStore(api);
    stores.set(api, s);
    void s.refresh();
  }
  return s;
}

export function useQueue(): { store: QueueStore; snap: QueueSnapshot } {
  const { api } = useClient();
  const store = queueStoreOf(api);
  const snap = useSyncExternalStore(store.subscribe, store.snapshot);
  return { store, snap };
}

/** The jobs of one batch, loaded while the caller is mounted. */
export function useBatchJobs(store: QueueStore, batchId: string, snap: QueueSnapshot): JobView[] | undefined {
  useEffect(() => store.watchBatch(batchId), [store, batchId]);
  return snap.jobs.get(batchId);
}
