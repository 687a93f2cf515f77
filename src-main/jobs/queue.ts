// The durable job queue: jobs live in SQLite, lanes pace the calls, holds stop billed work on
// 429/caps and everything on 401/offline, and nothing billed is ever sent twice blindly.
import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import type { Db } from '../library/db';
import { log } from '../core/log';
import type { ServiceClient } from '../service/client';
import { ENDPOINTS, rateKeyOf, type EndpointName } from '../service/endpoints';
import { ServiceError } from '../service/errors';
import { RateLimiter, backoff, sleep } from './rate';
import { JobStore, toView, type JobRow } from './store';
import type {
  BatchPreview, BatchView, HoldReason, JobSpec, JobState, JobView, LaneView, QueueCaps, QueueEvents, QueueHold, QueueStatus,
} from './types';

/** What a handler gets while running one job. */
export interface JobContext<P = unknown> {
  job: JobView;
  payload: P;
  signal: AbortSignal;
  client: ServiceClient;
  tuning: Required<Omit<QueueTuning, 'concurrency'>>;
  /**
   * One request to the service through its lane: waits for a rate slot, honours holds and
   * caps, marks a billed request as sent before it leaves (so a crash makes it 'unknown',
   * not re-sent), and counts it as billed when answered — `onBilled` runs in that same
   * transaction (store the task id, fill the cache).
   */
  call<T>(endpoint: EndpointName, fn: (signal: AbortSignal) => Promise<T>, opts?: { billingKey?: string | null; onBilled?: (result: T) => void }): Promise<T>;
  checkpoint(patch: { taskId?: string | null; phase?: string | null }): void;
  cacheGet(key: string): unknown | undefined;
  cachePut(key: string, endpoint: string, contentHash: string, params: unknown, result: unknown): void;
  /** the result came from the cache: no call was made */
  markFromCache(): void;
  sleep(ms: number): Promise<void>;
}

export interface JobDescription {
  /** The service endpoint it calls, or LOCAL for work on this machine only (e.g. writing files). */
  endpoint: EndpointName | typeof LOCAL;
  cacheKey?: string | null;
  billingKey?: string | null;
  lane?: string;
}

export interface JobHandler<P = unknown> {
  /** Check the payload (throws ServiceError 'invalid_input' before anything is queued) and say what it calls. */
  describe(payload: P): JobDescription;
  run(ctx: JobContext<P>): Promise<unknown>;
  /** Cancel the remote task of a job (DELETE /v1/tasks/{id} or the face swap terminate). */
  cancelRemote?(client: ServiceClient, job: JobView, signal: AbortSignal): Promise<void>;
}

/** A job that ended without a service error: the task failed or was revoked remotely. */
export class JobOutcome extends Error {
  constructor(readonly state: 'failed' | 'cancelled', message: string) {
    super(message);
  }
}

class Held extends Error {}
class CapReached extends Error {}

export interface QueueTuning {
  /** extra milliseconds added to each 1-second window (clock granularity; jitter is handled by the limiter) */
  marginMs?: number;
  pollMs?: number;
  pollMaxMs?: number;
  /** tries for a job hitting 5xx before it fails */
  maxAttempts?: number;
  retryBaseMs?: number;
  retryMaxMs?: number;
  offlineProbeMs?: number;
  offlineProbeMaxMs?: number;
  /** jobs in flight per lane; serial lanes are always 1 */
  concurrency?: Record<string, number>;
}

export interface JobQueueOptions {
  db: Db;
  /** a getter lets Settings swap base URL/credentials without recreating the queue */
  client: ServiceClient | (() => ServiceClient);
  handlers?: Record<string, JobHandler<never>>;
  tuning?: QueueTuning;
}

interface Inflight {
  controller: AbortController;
  lane: string;
  cacheKey: string | null;
  intent?: 'cancel' | 'pause' | 'requeue';
  done: Promise<void>;
}

const DEFAULT_TUNING: Required<Omit<QueueTuning, 'concurrency'>> = {
  marginMs: 20, pollMs: 2000, pollMaxMs: 10_000, maxAttempts: 5, retryBaseMs: 1000, retryMaxMs: 60_000, offlineProbeMs: 2000, offlineProbeMaxMs: 60_000,
};

/**
 * Jobs that never talk to the service (writing metadata into files) share the queue's
 * durability, batches, progress and cancel, but run in lanes of their own: no rate limit,
 * one at a time, and no service hold (quota, credentials, offline) stops them — only the
 * user's "pause all" does.
 */
export const LOCAL = 'local';
export const LOCAL_LANE_PREFIX = 'local:';
const isLocalLane = (lane: string): boolean => lane.startsWith(LOCAL_LANE_PREFIX);

/** Lane of an endpoint: its one-at-a-time group, else the endpoint itself (the service limits per endpoint). */
export function laneOf(endpoint: EndpointName | typeof LOCAL): string {
  if (endpoint === LOCAL) return LOCAL_LANE_PREFIX + 'work';
  return ENDPOINTS[endpoint].serialGroup ?? endpoint;
}

const laneEndpoint = (lane: string): EndpointName =>
  (Object.values(ENDPOINTS).find((e) => e.serialGroup === lane)?.name ?? lane) as EndpointName;

export class JobQueue {
  readonly store: JobStore;
  private readonly emitter = new EventEmitter();
  private readonly handlers = new Map<string, JobHandler<never>>();
  private readonly limiters = new Map<string, RateLimiter>();
  private readonly inflight = new Map<number, Inflight>();
  private readonly laneRunning = new Map<string, number>();
  private readonly rateLimitedTries = new Map<number, number>();
  private readonly tuning: Required<Omit<QueueTuning, 'concurrency'>>;
  private hold: QueueHold | null = null;
  private reserved = 0;
  private started = false;
  private stopped = false;
  private wakeTimer: NodeJS.Timeout | null = null;
  private probeTimer: NodeJS.Timeout | null = null;
  private probeAttempt = 0;
  private idleWaiters: (() => void)[] = [];
  private laneEmitTimer: NodeJS.Timeout | null = null;

  constructor(private readonly opts: JobQueueOptions) {
    this.store = new JobStore(opts.db);
    this.tuning = { ...DEFAULT_TUNING, ...Object.fromEntries(Object.entries(opts.tuning ?? {}).filter(([k]) => k !== 'concurrency')) };
    this.emitter.setMaxListeners(50);
    for (const [k, h] of Object.entries(opts.handlers ?? {})) this.handlers.set(k, h);
  }

  private get client(): ServiceClient {
    return typeof this.opts.client === 'function' ? this.opts.client() : this.opts.client;
  }

  registerHandler<P>(kind: string, handler: JobHandler<P>): void {
    this.handlers.set(kind, handler as unknown as JobHandler<never>);
  }

  on<E extends keyof QueueEvents>(event: E, listener: (payload: QueueEvents[E]) => void): () => void {
    this.emitter.on(event, listener);
    return () => this.emitter.off(event, listener);
  }

  // ---- lifecycle ----------------------------------------------------------------------

  /**
   * Reconcile what a previous run left `running`, then start. A billed request that had left
   * (phase 'sent') and has no cached answer becomes 'unknown'; an async task with a task id
   * goes back to polling; anything that had not sent yet is queued again.
   */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.stopped = false;
    const rows = this.store.runningRows();
    this.opts.db.transaction(() => {
      for (const r of rows) {
        if (r.task_id) this.store.update(r.id, { state: 'queued' });
        else if (r.phase === 'sent') {
          const cached = r.cache_key ? this.store.cacheGet(r.cache_key) : undefined;
          if (cached !== undefined) this.store.update(r.id, { state: 'done', result: JSON.stringify(cached), from_cache: 1, phase: null, finished_at: Date.now() });
          else {
            this.store.update(r.id, {
              state: 'unknown', phase: null, finished_at: Date.now(), error_kind: 'unknown_outcome',
              error_message: 'Tagsmith stopped while this request was on its way. The service may have carried it out (and billed it); retry to send it again.',
            });
          }
        } else this.store.update(r.id, { state: 'queued', phase: null });
      }
    })();
    if (this.store.getSetting('paused_all', false)) this.setHold('user', 'Paused by you.');
    this.pump();
  }

  /** Stop starting work; wait for requests in flight to end (they are not aborted: an abort could lose a billed answer). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.started = false;
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    if (this.probeTimer) clearTimeout(this.probeTimer);
    if (this.laneEmitTimer) clearTimeout(this.laneEmitTimer);
    if (this.statusTimer) clearTimeout(this.statusTimer);
    this.wakeTimer = this.probeTimer = this.laneEmitTimer = this.statusTimer = null;
    for (const f of this.inflight.values()) if (!f.intent) f.intent = 'requeue';
    // Polling jobs stop at their next wait; sync requests finish.
    await Promise.allSettled([...this.inflight.values()].map((f) => f.done));
  }

  /** Resolves when nothing is in flight and nothing can run (empty, or held by quota/cap/credentials/user). */
  waitForIdle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  // ---- enqueueing ---------------------------------------------------------------------

  private handlerOf(kind: string): JobHandler<never> {
    const h = this.handlers.get(kind);
    if (!h) throw new ServiceError('invalid_input', `No job handler for kind '${kind}'.`, { local: true, field: 'kind' });
    return h;
  }

  /** Queue one job (validated now). A cached answer makes it 'done' at once, costing nothing. */
  enqueue(spec: JobSpec, batchId: string | null = null): JobView {
    const d = this.handlerOf(spec.kind).describe(spec.payload as never);
    if (d.endpoint === LOCAL && d.lane && !isLocalLane(d.lane)) throw new Error(`A local job's lane must start with '${LOCAL_LANE_PREFIX}'.`);
    const cached = d.cacheKey ? this.store.cacheGet(d.cacheKey) : undefined;
    const id = this.store.insertJob({
      batchId, kind: spec.kind, endpoint: d.endpoint, lane: d.lane ?? laneOf(d.endpoint), payload: JSON.stringify(spec.payload ?? null),
      cacheKey: d.cacheKey ?? null, billingKey: d.billingKey ?? null,
      ...(cached !== undefined ? { state: 'done' as const, result: JSON.stringify(cached), fromCache: true } : {}),
    });
    const view = toView(this.store.get(id)!);
    this.emit('job', view);
    if (this.started) queueMicrotask(() => this.pump());
    return view;
  }

  /** Queue many jobs as one batch (all validated first: one bad payload queues nothing). */
  enqueueBatch(label: string, specs: JobSpec[]): { batch: BatchView; jobIds: number[] } {
    for (const s of specs) this.handlerOf(s.kind).describe(s.payload as never);
    const id = randomUUID();
    const jobIds: number[] = [];
    const prevStarted = this.started;
    this.started = false; // no pumping mid-transaction
    try {
      this.opts.db.transaction(() => {
        this.store.insertBatch(id, label);
        for (const s of specs) jobIds.push(this.enqueue(s, id).id);
      })();
    } finally {
      this.started = prevStarted;
    }
    const batch = this.store.batch(id)!;
    this.emit('batch', batch);
    if (this.started) this.pump();
    return { batch, jobIds };
  }

  /** How many billable calls a batch would make (cache hits and in-batch duplicates excluded) and whether it fits the caps. */
  preview(specs: JobSpec[]): BatchPreview {
    const seen = new Set<string>();
    const byModel: Record<string, number> = {};
    let cached = 0;
    let duplicates = 0;
    let billable = 0;
    for (const s of specs) {
      const d = this.handlerOf(s.kind).describe(s.payload as never);
      if (d.cacheKey) {
        if (this.store.cacheGet(d.cacheKey) !== undefined) { cached++; continue; }
        if (seen.has(d.cacheKey)) { duplicates++; continue; }
        seen.add(d.cacheKey);
      }
      if (d.billingKey) {
        billable++;
        byModel[d.billingKey] = (byModel[d.billingKey] ?? 0) + 1;
      }
    }
    const caps = this.store.caps();
    const usage = this.store.usage();
    const prices = caps.pricePerCall ?? {};
    const priced = Object.keys(byModel).every((k) => typeof prices[k] === 'number');
    const estimatedCost = priced ? Object.entries(byModel).reduce((a, [k, n]) => a + n * prices[k], 0) : null;
    const remToday = caps.dailyCalls != null ? Math.max(0, caps.dailyCalls - usage.today) : null;
    const remMonth = caps.monthlyCalls != null ? Math.max(0, caps.monthlyCalls - usage.thisMonth) : null;
    const problems: string[] = [];
    if (remToday !== null && billable > remToday) problems.push(`today's cap leaves ${remToday} billed calls`);
    if (remMonth !== null && billable > remMonth) problems.push(`this month's cap leaves ${remMonth} billed calls`);
    const spend = this.spendSoFar(usage);
    if (estimatedCost !== null && caps.dailySpend != null && spend.today + estimatedCost > caps.dailySpend) problems.push(`today's spend cap of ${caps.dailySpend} would be crossed`);
    if (estimatedCost !== null && caps.monthlySpend != null && spend.month + estimatedCost > caps.monthlySpend) problems.push(`this month's spend cap of ${caps.monthlySpend} would be crossed`);
    const cost = estimatedCost === null ? '' : ` (about ${Math.round(estimatedCost * 100) / 100} at your prices)`;
    const message = problems.length
      ? `${billable} billed calls${cost}, but ${problems.join(' and ')}: the batch will pause at the cap.`
      : `${billable} billed calls${cost}; ${cached} already analysed${duplicates ? `, ${duplicates} duplicates` : ''} cost nothing.`;
    return { jobs: specs.length, billable, cached, duplicates, byModel, estimatedCost, remaining: { today: remToday, thisMonth: remMonth }, fitsCaps: problems.length === 0, message };
  }

  // ---- control --------------------------------------------------------------------------

  pauseJob(id: number): void {
    this.store.setState([id], ['queued'], 'paused');
    const f = this.inflight.get(id);
    // A polling task can stop and resume later; a request in flight runs to its answer.
    if (f && this.store.get(id)?.task_id) { f.intent = 'pause'; f.controller.abort(); }
    this.changed([id]);
  }

  resumeJob(id: number): void {
    this.changed(this.store.setState([id], ['paused'], 'queued'));
    this.pump();
  }

  /** Cancel: queued/paused end at once; a running job's request is aborted and its remote task cancelled. */
  cancelJob(id: number): void {
    this.changed(this.store.setState([id], ['queued', 'paused', 'unknown'], 'cancelled'));
    const f = this.inflight.get(id);
    if (!f) return;
    f.intent = 'cancel';
    // A billed request already on the wire is allowed to finish: aborting it would leave its
    // outcome (and billing) unknown. Its answer is kept (cache, task id) and the remote task
    // is then cancelled. Anything else (preparing, waiting for a slot, polling, downloading) stops now.
    if (this.store.get(id)?.phase !== 'sent') f.controller.abort();
  }

  /** The user's say: send a failed, unknown or cancelled job again. */
  retryJob(id: number): void {
    const r = this.store.get(id);
    if (!r || !['failed', 'unknown', 'cancelled'].includes(r.state)) return;
    this.store.update(id, { state: 'queued', attempts: 0, retry_after: null, error_kind: null, error_message: null, finished_at: null, phase: r.task_id ? r.phase : null });
    this.changed([id]);
    this.pump();
  }

  pauseBatch(id: string): void {
    this.store.setBatchFlag(id, 'paused', true);
    this.emitBatch(id);
  }

  resumeBatch(id: string): void {
    this.store.setBatchFlag(id, 'paused', false);
    this.changed(this.store.setState(this.store.jobIdsOfBatch(id, ['paused']), ['paused'], 'queued'));
    this.emitBatch(id);
    this.pump();
  }

  cancelBatch(id: string): void {
    this.store.setBatchFlag(id, 'cancelled', true);
    for (const j of this.store.jobIdsOfBatch(id, ['queued', 'paused', 'running'])) this.cancelJob(j);
    this.emitBatch(id);
  }

  pauseLane(lane: string): void {
    const paused = new Set(this.store.getSetting<string[]>('paused_lanes', []));
    paused.add(lane);
    this.store.setSetting('paused_lanes', [...paused]);
    this.scheduleLaneEmit();
  }

  resumeLane(lane: string): void {
    const paused = new Set(this.store.getSetting<string[]>('paused_lanes', []));
    paused.delete(lane);
    this.store.setSetting('paused_lanes', [...paused]);
    this.scheduleLaneEmit();
    this.pump();
  }

  cancelLane(lane: string): void {
    for (const j of this.store.jobIdsOfLane(lane, ['queued', 'paused', 'running'])) this.cancelJob(j);
  }

  /** Hold everything (persisted across restarts) until resume(). */
  pauseAll(): void {
    this.store.setSetting('paused_all', true);
    this.setHold('user', 'Paused by you.');
  }

  /** Lift any hold (after topping up, new credentials, a raised cap, or a user pause) and go on. */
  resume(): void {
    this.store.setSetting('paused_all', false);
    this.clearHold();
    this.pump();
  }

  getCaps(): QueueCaps {
    return this.store.caps();
  }

  setCaps(caps: QueueCaps): void {
    for (const [k, v] of Object.entries(caps)) {
      if (k === 'pricePerCall') {
        for (const [m, p] of Object.entries((v as Record<string, number>) ?? {})) {
          if (typeof p !== 'number' || !(p >= 0)) throw new ServiceError('invalid_input', `pricePerCall.${m}: must be a number of 0 or more`, { local: true, field: `pricePerCall.${m}` });
        }
      } else if (v !== null && v !== undefined && (typeof v !== 'number' || !(v >= 0))) {
        throw new ServiceError('invalid_input', `${k}: must be a number of 0 or more, or empty for no cap`, { local: true, field: k });
      }
    }
    this.store.setSetting('caps', caps);
    if (this.hold?.reason === 'cap') this.resume();
    else this.emitStatus();
  }

  // ---- views ----------------------------------------------------------------------------

  getJob(id: number): JobView | undefined {
    const r = this.store.get(id);
    return r ? toView(r) : undefined;
  }

  listJobs(filter: { batchId?: string; states?: JobState[]; lane?: string; limit?: number; offset?: number } = {}): JobView[] {
    return this.store.list(filter).map(toView);
  }

  getBatch(id: string): BatchView | undefined {
    return this.store.batch(id);
  }

  listBatches(limit = 100): BatchView[] {
    return this.store.batches(limit);
  }

  status(): QueueStatus {
    return { hold: this.hold, counts: this.store.countByState(), lanes: this.lanes(), usage: this.store.usage() };
  }

  lanes(): LaneView[] {
    const queued = new Map(this.store.queuedLanes().map((q) => [q.lane, q.n]));
    const paused = new Set(this.store.getSetting<string[]>('paused_lanes', []));
    const names = new Set<string>([...Object.values(ENDPOINTS).filter((e) => e.billing).map((e) => e.serialGroup ?? e.name), ...queued.keys(), ...this.laneRunning.keys()]);
    return [...names].map((name) => {
      const running = this.laneRunning.get(name) ?? 0;
      if (isLocalLane(name)) {
        const held = this.hold?.reason === 'user';
        const state: LaneView['state'] = paused.has(name) ? 'paused' : held ? 'user' : running ? 'running' : 'idle';
        return { name, ratePerSecond: 0, concurrency: 1, running, queued: queued.get(name) ?? 0, paused: paused.has(name), state, recentStarts: 0 };
      }
      const e = ENDPOINTS[laneEndpoint(name)] ?? ENDPOINTS.keywords;
      const state: LaneView['state'] = paused.has(name) ? 'paused' : this.hold && this.holdBlocks(this.hold.reason) ? this.hold.reason : running ? 'running' : 'idle';
      const lim = this.limiter(e.name);
      return { name, ratePerSecond: Math.round((1000 / lim.spacingMs) * 10) / 10, concurrency: this.concurrencyOf(name), running, queued: queued.get(name) ?? 0, paused: paused.has(name), state, recentStarts: lim.recent() };
    });
  }

  // ---- scheduling -----------------------------------------------------------------------

  private limiter(endpoint: EndpointName): RateLimiter {
    const e = ENDPOINTS[endpoint];
    const key = rateKeyOf(e);
    let l = this.limiters.get(key);
    if (!l) {
      l = new RateLimiter(e.ratePerSecond, this.tuning.marginMs);
      this.limiters.set(key, l);
    }
    return l;
  }

  private concurrencyOf(lane: string): number {
    if (isLocalLane(lane)) return 1;
    const e = ENDPOINTS[laneEndpoint(lane)];
    if (e?.serialGroup) return 1;
    const c = this.opts.tuning?.concurrency?.[lane];
    if (c) return c;
    return Math.max(1, Math.min(6, Math.ceil((e?.ratePerSecond ?? 30) / 5)));
  }

  /** quota/cap hold billed work only; credentials/offline/user hold everything. */
  private holdBlocks(reason: HoldReason): boolean {
    return reason === 'credentials' || reason === 'offline' || reason === 'user' || reason === 'quota' || reason === 'cap';
  }

  private pump(): void {
    if (!this.started || this.stopped) return;
    const now = Date.now();
    const paused = new Set(this.store.getSetting<string[]>('paused_lanes', []));
    let earliest: number | null = null;
    const onlyTasks = this.hold && (this.hold.reason === 'quota' || this.hold.reason === 'cap');
    const blocked = this.hold && !onlyTasks;
    for (const q of this.store.queuedLanes()) {
      if (paused.has(q.lane)) continue;
      // Local work is stopped only by the user's pause, never by a service hold.
      if (isLocalLane(q.lane) ? this.hold?.reason === 'user' : blocked) continue;
      if (q.earliest !== null && q.earliest > now) earliest = earliest === null ? q.earliest : Math.min(earliest, q.earliest);
      while ((this.laneRunning.get(q.lane) ?? 0) < this.concurrencyOf(q.lane)) {
        const row = this.nextRow(q.lane, now, !!onlyTasks && !isLocalLane(q.lane));
        if (!row) break;
        this.dispatch(row);
      }
    }
    if (this.wakeTimer) { clearTimeout(this.wakeTimer); this.wakeTimer = null; }
    if (earliest !== null) {
      this.wakeTimer = setTimeout(() => { this.wakeTimer = null; this.pump(); }, Math.max(5, earliest - now));
    }
    this.checkIdle();
  }

  private nextRow(lane: string, now: number, onlyWithTask: boolean): JobRow | undefined {
    const exclude = [...this.inflight.keys()];
    const busyKeys = new Set([...this.inflight.values()].map((f) => f.cacheKey).filter(Boolean));
    const skipped: number[] = [];
    for (;;) {
      const row = this.store.nextRunnable(lane, now, [...exclude, ...skipped]);
      if (!row) return undefined;
      // The same picture already on its way: wait for its answer instead of paying twice.
      if ((row.cache_key && busyKeys.has(row.cache_key)) || (onlyWithTask && !row.task_id)) { skipped.push(row.id); continue; }
      return row;
    }
  }

  private dispatch(row: JobRow): void {
    const controller = new AbortController();
    const lane = row.lane;
    this.laneRunning.set(lane, (this.laneRunning.get(lane) ?? 0) + 1);
    this.store.update(row.id, { state: 'running', started_at: Date.now(), retry_after: null });
    const entry: Inflight = { controller, lane, cacheKey: row.cache_key, done: Promise.resolve() };
    this.inflight.set(row.id, entry);
    this.changed([row.id]);
    entry.done = this.runJob(row, entry).finally(() => {
      this.inflight.delete(row.id);
      this.laneRunning.set(lane, Math.max(0, (this.laneRunning.get(lane) ?? 1) - 1));
      this.scheduleLaneEmit();
      this.pump();
    });
  }

  private async runJob(row: JobRow, f: Inflight): Promise<void> {
    const handler = this.handlers.get(row.kind);
    if (!handler) {
      this.finish(row.id, 'failed', { error_kind: 'internal', error_message: `This version of Tagsmith cannot run '${row.kind}' jobs.` });
      return;
    }
    if (row.cache_key) {
      const cached = this.store.cacheGet(row.cache_key);
      if (cached !== undefined) {
        this.finish(row.id, 'done', { result: JSON.stringify(cached), from_cache: 1 });
        return;
      }
    }
    let fromCache = false;
    const ctx = this.context(row, f, () => { fromCache = true; });
    try {
      const result = await handler.run(ctx);
      if (f.intent === 'cancel') { await this.cancelRemote(row.id, handler); return; }
      this.finish(row.id, 'done', { result: JSON.stringify(result ?? null), from_cache: fromCache ? 1 : 0 });
    } catch (e) {
      await this.failed(row.id, handler, f, e);
    }
  }

  private context(row: JobRow, f: Inflight, markFromCache: () => void): JobContext<never> {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- `call` is a method of the context object; q is the queue
    const q = this;
    const view = () => toView(this.store.get(row.id)!);
    return {
      job: view(),
      payload: JSON.parse(row.payload) as never,
      signal: f.controller.signal,
      client: this.client,
      tuning: this.tuning,
      markFromCache,
      sleep: (ms) => sleep(ms, f.controller.signal).catch(() => {
        throw new ServiceError('cancelled', 'The job was stopped.');
      }),
      checkpoint: (patch) => {
        const p: Partial<JobRow> = {};
        if (patch.taskId !== undefined) p.task_id = patch.taskId;
        if (patch.phase !== undefined) p.phase = patch.phase;
        this.store.update(row.id, p);
        this.changed([row.id]);
      },
      cacheGet: (key) => this.store.cacheGet(key),
      cachePut: (key, endpoint, hash, params, result) => this.store.cachePut(key, endpoint, hash, params, result),
      async call<T>(endpoint: EndpointName, fn: (signal: AbortSignal) => Promise<T>, opts: { billingKey?: string | null; onBilled?: (r: T) => void } = {}): Promise<T> {
        const billing = opts.billingKey !== undefined ? opts.billingKey : endpoint === row.endpoint ? row.billing_key : null;
        if (f.intent) throw new ServiceError('cancelled', 'The job was stopped.');
        if (q.hold && (billing || !['quota', 'cap'].includes(q.hold.reason))) throw new Held(q.hold.message);
        if (billing) q.checkCaps(billing);
        let release: () => void;
        try {
          release = await q.limiter(endpoint).acquire(f.controller.signal);
        } catch {
          throw new ServiceError('cancelled', 'The job was stopped.');
        }
        if (q.hold && (billing || !['quota', 'cap'].includes(q.hold.reason))) {
          release();
          throw new Held(q.hold.message);
        }
        if (billing) {
          try {
            q.checkCaps(billing);
          } catch (e) {
            release();
            throw e;
          }
          q.reserved++;
          q.store.update(row.id, { phase: 'sent' });
          q.emit('job', toView(q.store.get(row.id)!));
        }
        try {
          const result = await fn(f.controller.signal);
          if (billing) {
            q.opts.db.transaction(() => {
              q.store.countBilled(billing);
              q.store.update(row.id, { phase: null });
              opts.onBilled?.(result);
            })();
            q.emitStatusSoon();
          }
          return result;
        } catch (e) {
          if (e instanceof ServiceError && e.kind === 'rate_limited') q.limiter(endpoint).penalize(1000);
          // Only an answer that may have been lost keeps the 'sent' mark.
          if (billing && !(e instanceof ServiceError && e.kind === 'unknown_outcome') && !(e instanceof ServiceError && e.kind === 'cancelled')) {
            q.store.update(row.id, { phase: null });
          }
          throw e;
        } finally {
          release();
          if (billing) q.reserved--;
        }
      },
    };
  }

  private checkCaps(billing: string): void {
    const caps = this.store.caps();
    const usage = this.store.usage();
    const next = this.reserved + 1;
    let msg: string | null = null;
    if (caps.dailyCalls != null && usage.today + next > caps.dailyCalls) {
      msg = `Paused before crossing your daily cap of ${caps.dailyCalls} billed calls (${usage.today} used today). Raise the cap in Settings or resume tomorrow.`;
    } else if (caps.monthlyCalls != null && usage.thisMonth + next > caps.monthlyCalls) {
      msg = `Paused before crossing your monthly cap of ${caps.monthlyCalls} billed calls (${usage.thisMonth} used this month). Raise the cap in Settings to go on.`;
    } else {
      const price = caps.pricePerCall?.[billing];
      if (price !== undefined) {
        const spend = this.spendSoFar(usage);
        if (caps.dailySpend != null && spend.today + price * next > caps.dailySpend) msg = `Paused before crossing your daily spend cap of ${caps.dailySpend}. Raise it in Settings or resume tomorrow.`;
        else if (caps.monthlySpend != null && spend.month + price * next > caps.monthlySpend) msg = `Paused before crossing your monthly spend cap of ${caps.monthlySpend}. Raise it in Settings to go on.`;
      }
    }
    if (msg) throw new CapReached(msg);
  }

  private spendSoFar(usage: ReturnType<JobStore['usage']>): { today: number; month: number } {
    const prices = this.store.caps().pricePerCall ?? {};
    const sum = (m: Record<string, number>) => Object.entries(m).reduce((a, [k, n]) => a + n * (prices[k] ?? 0), 0);
    return { today: sum(usage.byModelToday), month: sum(usage.byModelMonth) };
  }

  private async cancelRemote(id: number, handler: JobHandler<never>): Promise<void> {
    const r = this.store.get(id);
    if (r?.task_id) {
      try {
        const ac = new AbortController();
        const timer = setTimeout(() => ac.abort(), 15_000);
        const release = await this.limiter('cancelTask').acquire(ac.signal);
        try {
          if (handler.cancelRemote) await handler.cancelRemote(this.client, toView(r), ac.signal);
          else await this.client.cancelTask(r.task_id, { signal: ac.signal });
        } finally {
          release();
          clearTimeout(timer);
        }
      } catch (e) {
        log.warn(`Could not cancel remote task of job ${id}: ${(e as Error).message}`);
      }
    }
    this.finish(id, 'cancelled', { error_kind: null, error_message: null });
  }

  private async failed(id: number, handler: JobHandler<never>, f: Inflight, e: unknown): Promise<void> {
    if (f.intent === 'cancel') return this.cancelRemote(id, handler);
    if (f.intent === 'pause') return this.finish(id, 'paused', {});
    if (f.intent === 'requeue' && !(e instanceof ServiceError && e.kind === 'unknown_outcome')) return this.finish(id, 'queued', {});
    const now = Date.now();
    if (e instanceof Held) return this.finish(id, 'queued', {});
    if (e instanceof CapReached) {
      this.setHold('cap', e.message);
      return this.finish(id, 'queued', {});
    }
    if (e instanceof JobOutcome) return this.finish(id, e.state, { error_kind: e.state === 'failed' ? 'task_failed' : null, error_message: e.state === 'failed' ? e.message : null });
    if (!(e instanceof ServiceError)) {
      log.error(`Job ${id} failed`, e);
      return this.finish(id, 'failed', { error_kind: 'internal', error_message: (e as Error)?.message ?? 'Unexpected problem' });
    }
    const err = { error_kind: e.kind, error_message: e.message };
    switch (e.kind) {
      case 'rate_limited': {
        const n = (this.rateLimitedTries.get(id) ?? 0) + 1;
        this.rateLimitedTries.set(id, n);
        return this.finish(id, 'queued', { ...err, retry_after: now + backoff(n, 500, 15_000) });
      }
      case 'quota':
        this.setHold('quota', 'The service says the free quota and balance are used up. Billed work is paused; top up, then resume.');
        return this.finish(id, 'queued', err);
      case 'credentials':
        this.setHold('credentials', e.message);
        return this.finish(id, 'queued', err);
      case 'offline':
        this.setHold('offline', e.message);
        return this.finish(id, 'queued', err);
      case 'cancelled':
        return this.finish(id, 'queued', {});
      case 'unknown_outcome':
        return this.finish(id, 'unknown', err);
      case 'service': {
        const r = this.store.get(id)!;
        const attempts = r.attempts + 1;
        if (attempts >= this.tuning.maxAttempts) return this.finish(id, 'failed', { ...err, attempts });
        return this.finish(id, 'queued', { ...err, attempts, retry_after: now + backoff(attempts, this.tuning.retryBaseMs, this.tuning.retryMaxMs) });
      }
      default:
        return this.finish(id, 'failed', err);
    }
  }

  private finish(id: number, state: JobState, patch: Partial<JobRow>): void {
    const terminal = state === 'done' || state === 'failed' || state === 'cancelled' || state === 'unknown';
    const extra: Partial<JobRow> = terminal ? { finished_at: Date.now() } : {};
    if (state === 'done') Object.assign(extra, { error_kind: null, error_message: null, phase: null });
    if (terminal) this.rateLimitedTries.delete(id);
    this.store.update(id, { state, ...extra, ...patch });
    this.changed([id]);
  }

  // ---- holds and probing ------------------------------------------------------------------

  private setHold(reason: HoldReason, message: string): void {
    const rank: Record<HoldReason, number> = { credentials: 5, user: 4, quota: 3, cap: 2, offline: 1 };
    if (this.hold && rank[this.hold.reason] > rank[reason]) return;
    if (this.hold?.reason === reason && this.hold.message === message) return;
    this.hold = { reason, message, since: this.hold?.reason === reason ? this.hold.since : Date.now() };
    if (reason === 'offline') this.scheduleProbe();
    this.emitStatus();
    this.checkIdle();
  }

  private clearHold(): void {
    if (!this.hold) return;
    this.hold = null;
    this.probeAttempt = 0;
    if (this.probeTimer) { clearTimeout(this.probeTimer); this.probeTimer = null; }
    this.emitStatus();
  }

  private scheduleProbe(): void {
    if (this.probeTimer || this.stopped) return;
    this.probeAttempt++;
    const wait = backoff(this.probeAttempt, this.tuning.offlineProbeMs, this.tuning.offlineProbeMaxMs);
    if (this.hold) this.hold.nextCheckAt = Date.now() + wait;
    this.probeTimer = setTimeout(() => {
      this.probeTimer = null;
      void this.probe();
    }, wait);
  }

  private async probe(): Promise<void> {
    if (this.hold?.reason !== 'offline' || this.stopped) return;
    try {
      await this.client.authCheck({ timeoutMs: 10_000 });
      if (this.hold?.reason === 'offline') {
        log.info('The service answers again; resuming the queue.');
        this.clearHold();
        this.pump();
      }
    } catch (e) {
      if (e instanceof ServiceError && e.kind === 'credentials') {
        this.hold = null;
        this.setHold('credentials', e.message);
      } else if (e instanceof ServiceError && e.kind === 'rate_limited') {
        this.clearHold();
        this.pump();
      } else this.scheduleProbe();
    }
  }

  // ---- events -----------------------------------------------------------------------------

  private emit<E extends keyof QueueEvents>(event: E, payload: QueueEvents[E]): void {
    try {
      this.emitter.emit(event, payload);
    } catch (e) {
      log.error(`A ${event} listener failed`, e);
    }
  }

  private changed(ids: number[]): void {
    const batches = new Set<string>();
    for (const id of ids) {
      const r = this.store.get(id);
      if (!r) continue;
      this.emit('job', toView(r));
      if (r.batch_id) batches.add(r.batch_id);
    }
    for (const b of batches) this.emitBatch(b);
    this.scheduleLaneEmit();
    this.checkIdle();
  }

  private emitBatch(id: string): void {
    const b = this.store.batch(id);
    if (b) this.emit('batch', b);
  }

  private scheduleLaneEmit(): void {
    if (this.laneEmitTimer || this.stopped) return;
    this.laneEmitTimer = setTimeout(() => {
      this.laneEmitTimer = null;
      // Emit every lane whose view changed since the last emit, including one going idle,
      // so a listener never shows a lane as busy after its work is done.
      for (const l of this.lanes()) {
        const key = JSON.stringify([l.running, l.queued, l.paused, l.state]);
        if (this.lastLaneKey.get(l.name) === key) continue;
        this.lastLaneKey.set(l.name, key);
        this.emit('lane', l);
      }
    }, 200);
  }
  private readonly lastLaneKey = new Map<string, string>();

  private statusTimer: NodeJS.Timeout | null = null;
  private emitStatusSoon(): void {
    if (this.statusTimer || this.stopped) return;
    this.statusTimer = setTimeout(() => { this.statusTimer = null; this.emitStatus(); }, 250);
  }

  private emitStatus(): void {
    this.emit('status', this.status());
  }

  private isIdle(): boolean {
    if (this.inflight.size) return false;
    if (!this.started) return true;
    const paused = new Set(this.store.getSetting<string[]>('paused_lanes', []));
    const lanes = this.store.queuedLanes().filter((q) => !paused.has(q.lane));
    if (!lanes.length) return true;
    if (!this.hold) return false;
    if (this.hold.reason !== 'user' && lanes.some((q) => isLocalLane(q.lane))) return false;
    if (this.hold.reason === 'offline') return false;
    if (this.hold.reason === 'quota' || this.hold.reason === 'cap') {
      return !this.store.list({ states: ['queued'], limit: 100_000 }).some((r) => r.task_id && !paused.has(r.lane));
    }
    return true;
  }

  private checkIdle(): void {
    if (!this.idleWaiters.length || !this.isIdle()) return;
    const w = this.idleWaiters;
    this.idleWaiters = [];
    for (const fn of w) fn();
  }
}
