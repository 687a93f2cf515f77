// The durable job queue: jobs live in SQLite, lanes pace the calls (lanes.ts), holds stop
// billed work on 429/caps and everything on 401/offline (holds.ts, caps.ts), a failed run is
// settled by retry.ts, and nothing billed is ever sent twice blindly.
import { randomUUID } from 'node:crypto';
import { inSteps, STEP as ENQUEUE_STEP } from '../core/steps';
import type { Db } from '../library/db';
import type { ServiceClient } from '../service/client';
import { ENDPOINTS, rateKeyOf, type EndpointName } from '../service/endpoints';
import { ServiceError } from '../service/errors';
import { CANCEL_UNCONFIRMED, CANCEL_UNCONFIRMED_MESSAGE, NOT_CANCELLABLE, NOT_CANCELLABLE_MESSAGE, cancelRemoteTask } from './cancel';
import { addUsage, checkCaps, previewBatch, validateCaps, withSharedCaps, type Accounting } from './caps';
import { QueueEmitter } from './events';
import { QueueHolds } from './holds';
import { DEFAULT_TUNING, type JobContext, type JobDescription, type JobHandler, type QueueTuning, type Tuning } from './job-handler';
import { LOCAL, LOCAL_LANE_PREFIX, Lanes, isLocalLane, isSerialLane, laneOf } from './lanes';
import { sleep } from './rate';
import type { SharedAccount, StudioCaps } from './shared-account';
import { settleFailure, type StopIntent } from './retry';
import { JobStore, toView, type JobRow } from './store';
import type { BatchPreview, BatchView, JobSpec, JobState, JobView, LaneView, QueueCaps, QueueEvents, QueueHold, QueueStatus } from './types';

/** phase of a job whose remote task is being cancelled (state 'running', nothing in flight) */
const CANCELLING = 'cancel';

const removedWhileQueued = (label: string): Error =>
  new Error(`The batch "${label}" was removed while it was being queued (another Tagsmith window or command started its queue at that moment); none of it ran. Start it again.`);

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
  intent?: StopIntent;
  done: Promise<void>;
}

export class JobQueue {
  readonly store: JobStore;
  private readonly handlers = new Map<string, JobHandler<never>>();
  private readonly inflight = new Map<number, Inflight>();
  private readonly rateLimitedTries = new Map<number, number>();
  private readonly tuning: Tuning;
  private readonly pacing: Lanes;
  private readonly holds: QueueHolds;
  private readonly events: QueueEmitter;
  private reserved = 0;
  /** Batches this queue is queueing in steps right now (enqueueBatchInSteps). */
  private readonly staging = new Set<string>();
  private started = false;
  private stopped = false;
  private wakeTimer: NodeJS.Timeout | null = null;
  private idleWaiters: (() => void)[] = [];
  /** cancels on their way to the service for jobs not running */
  private readonly remoteCancels = new Set<Promise<void>>();
  private readonly cancellingIds = new Set<number>();
  /** the account this machine shares with others (a studio), when it does */
  private shared: SharedAccount | null = null;

  constructor(private readonly opts: JobQueueOptions) {
    this.store = new JobStore(opts.db);
    this.tuning = { ...DEFAULT_TUNING, ...Object.fromEntries(Object.entries(opts.tuning ?? {}).filter(([k]) => k !== 'concurrency')) };
    this.pacing = new Lanes(this.tuning.marginMs, opts.tuning?.concurrency);
    const stopped = () => this.stopped;
    this.events = new QueueEmitter({ lanes: () => this.lanes(), status: () => this.status(), stopped });
    this.holds = new QueueHolds({
      client: () => this.client,
      tuning: this.tuning,
      stopped,
      onSet: () => { this.events.status(); this.checkIdle(); },
      onClear: () => this.events.status(),
      onBack: () => this.pump(),
    });
    for (const [k, h] of Object.entries(opts.handlers ?? {})) this.handlers.set(k, h);
  }

  private get client(): ServiceClient {
    return typeof this.opts.client === 'function' ? this.opts.client() : this.opts.client;
  }

  /** Share the service account with other machines (a studio), or stop sharing (null). */
  setSharedAccount(account: SharedAccount | null): void {
    this.shared = account;
  }

  private sharing(): SharedAccount | null {
    return this.shared?.active() ? this.shared : null;
  }

  /**
   * The caps and billed counts that apply: for a machine sharing its account (a studio), the
   * account's total (this machine's count plus the others' as last heard, also while offline)
   * and the caps its admin set; otherwise this machine's own.
   */
  private accounting(): Accounting {
    const heard = this.shared?.accounting() ?? null;
    const store = this.store;
    if (!heard) return store;
    return {
      shared: heard.caps !== null,
      caps: () => (heard.caps ? withSharedCaps(store.caps(), heard.caps) : store.caps()),
      usage: () => addUsage(store.usage(), heard.others),
    };
  }

  /** For a machine sharing its account: hear the other machines' billed counts and the account's caps now. */
  refreshUsage(): Promise<void> {
    return this.reportUsage();
  }

  /** Tell the shared account this machine's billed counts (and hear the others' and its caps). */
  private reportUsage(): Promise<void> {
    const shared = this.sharing();
    if (!shared) return Promise.resolve();
    const usage = this.store.usage();
    return shared.report(usage.month, this.store.usageRows()).then(() => this.events.statusSoon());
  }

  /**
   * The shared account's results for these jobs, put into this machine's result cache before
   * they are counted and queued: a picture another machine already paid for is a cache hit
   * here too. Asked in pages; an account that cannot be reached answers nothing.
   */
  private async fetchShared(count: number, keyOf: (i: number) => string | null | undefined): Promise<void> {
    const shared = this.sharing();
    if (!shared) return;
    const PAGE = 500;
    let keys: string[] = [];
    const flush = async () => {
      const found = await shared.lookup(keys);
      if (found.length) this.opts.db.transaction(() => { for (const r of found) this.store.cachePut(r.key, r.endpoint, r.contentHash, r.params, r.result); })();
      keys = [];
    };
    for (let i = 0; i < count; i++) {
      const k = keyOf(i);
      if (k && !this.store.cacheHas(k)) keys.push(k);
      if (keys.length >= PAGE) await flush();
    }
    if (keys.length) await flush();
  }

  registerHandler<P>(kind: string, handler: JobHandler<P>): void {
    this.handlers.set(kind, handler as unknown as JobHandler<never>);
  }

  on<E extends keyof QueueEvents>(event: E, listener: (payload: QueueEvents[E]) => void): () => void {
    return this.events.on(event, listener);
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
    // A cancel that was on its way to the service when Tagsmith stopped: sent again below.
    const cancelling = rows.filter((r) => r.task_id && r.phase === CANCELLING && !this.cancellingIds.has(r.id)).map((r) => r.id);
    this.opts.db.transaction(() => {
      // A batch still staged was cut short while it was being queued (a crash): none of its
      // jobs ran; it goes, so nothing of a half batch is ever sent, billed or written.
      this.store.dropStaged(null, [...this.staging]);
      for (const r of rows) {
        // A cancel this process has on its way: it settles the job itself.
        if (this.cancellingIds.has(r.id)) continue;
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
    if (this.store.getSetting('paused_all', false)) this.holds.set('user', 'Paused by you.');
    // Listeners learn what the restart settled (a request lost on its way is 'unknown' now):
    // a creative task or a run that mirrors its jobs must not wait on for a job that ended.
    this.changed(rows.filter((r) => !this.cancellingIds.has(r.id) && !cancelling.includes(r.id)).map((r) => r.id));
    for (const id of cancelling) this.cancelJob(id);
    this.pump();
  }

  /** Stop starting work; wait for requests in flight to end (they are not aborted: an abort could lose a billed answer). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.started = false;
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.wakeTimer = null;
    this.holds.stop();
    this.events.stop();
    for (const f of this.inflight.values()) if (!f.intent) f.intent = 'requeue';
    // Polling jobs stop at their next wait; sync requests finish.
    await Promise.allSettled([...this.inflight.values()].map((f) => f.done));
    await Promise.allSettled([...this.remoteCancels]);
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
    const id = this.insertJob(spec, d, batchId);
    const view = toView(this.store.get(id)!);
    this.events.emit('job', view);
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
    this.events.emit('batch', batch);
    if (this.started) this.pump();
    return { batch, jobIds };
  }

  /**
   * Queue many jobs as one batch, a chunk at a time with the event loop let run in between (a
   * thousand-photo write queued in one transaction held the main thread ~85 ms on a busy
   * machine). The same batch as enqueueBatch, for the user: all validated first (one bad
   * payload queues nothing); the batch stays staged (none of its jobs runs, it is not listed)
   * until one last transaction makes it runnable; a crash before that leaves a staged batch
   * that start() deletes with its jobs, so no job of it is ever sent, billed or written twice.
   * Resolves once the batch is runnable; each job's event follows, a chunk at a time.
   *
   * `beforeSeal` runs while the batch is still staged, with every job in: what the caller
   * records about the batch (a run and its photos) is there before any job of it can end. If
   * it throws, nothing of the batch stays.
   */
  async enqueueBatchInSteps(
    label: string,
    specs: JobSpec[],
    step = ENQUEUE_STEP,
    beforeSeal?: (batchId: string, jobIds: readonly number[]) => Promise<void>,
  ): Promise<{ batch: BatchView; jobIds: number[] }> {
    const described = await this.describeInSteps(specs, step);
    await this.fetchShared(described.length, (i) => described[i].cacheKey);
    await this.reportUsage();
    for (const d of described) if (d.endpoint === LOCAL && d.lane && !isLocalLane(d.lane)) throw new Error(`A local job's lane must start with '${LOCAL_LANE_PREFIX}'.`);
    const id = randomUUID();
    const jobIds: number[] = [];
    const db = this.opts.db;
    this.store.insertBatch(id, label, true);
    this.staging.add(id);
    try {
      await inSteps(specs, (chunk, start) => db.transaction(() => chunk.forEach((s, k) => jobIds.push(this.insertJob(s, described[start + k], id))))(), step);
      if (beforeSeal) await beforeSeal(id, jobIds);
      // The last step: runnable all at once, or not at all.
      const sealed = db.transaction(() => this.store.batchSize(id) === specs.length && this.store.unstageBatch(id))();
      if (!sealed) throw removedWhileQueued(label);
    } catch (e) {
      // Nothing of a staged batch has run: it goes entirely (and what beforeSeal recorded for
      // it, by the trigger of migration 030). Removed by another process's start meanwhile,
      // whatever failed on the way says less than that.
      if (!db.open) throw e;
      const gone = this.store.dropStaged(id) === 0;
      throw gone ? removedWhileQueued(label) : e;
    } finally {
      this.staging.delete(id);
    }
    const batch = this.store.batch(id)!;
    this.events.emit('batch', batch);
    if (this.started) this.pump();
    await inSteps(jobIds, (chunk) => {
      for (const j of chunk) {
        const r = this.store.get(j);
        if (r) this.events.emit('job', toView(r));
      }
    }, step);
    return { batch, jobIds };
  }

  /** One job's row, its cached answer (if any) making it done at once. */
  private insertJob(spec: JobSpec, d: JobDescription, batchId: string | null): number {
    const cached = d.cacheKey ? this.store.cacheGet(d.cacheKey) : undefined;
    return this.store.insertJob({
      batchId, kind: spec.kind, endpoint: d.endpoint, lane: d.lane ?? laneOf(d.endpoint), payload: JSON.stringify(spec.payload ?? null),
      cacheKey: d.cacheKey ?? null, billingKey: d.billingKey ?? null,
      ...(cached !== undefined ? { state: 'done' as const, result: JSON.stringify(cached), fromCache: true } : {}),
    });
  }

  /** How many billable calls a batch would make (cache hits and in-batch duplicates excluded) and whether it fits the caps. */
  async preview(specs: JobSpec[]): Promise<BatchPreview> {
    // Each described once, a page at a time (never all kept); a studio member first brings the
    // studio's results for the page into the result cache, so they count as cached.
    const describe = (i: number) => this.handlerOf(specs[i].kind).describe(specs[i].payload as never);
    const shared = this.sharing() ? (page: readonly JobDescription[]) => this.fetchShared(page.length, (i) => page[i].cacheKey) : undefined;
    await this.reportUsage();
    const accounting = this.accounting();
    return previewBatch({ caps: () => accounting.caps(), usage: () => accounting.usage(), cacheHas: (k) => this.store.cacheHas(k) }, specs.length, describe, shared);
  }

  /** Every spec described (validated, its cache and billing keys made), a chunk at a time with the event loop let run in between. */
  private async describeInSteps(specs: JobSpec[], step: number): Promise<JobDescription[]> {
    const described: JobDescription[] = [];
    await inSteps(specs, (chunk) => { for (const s of chunk) described.push(this.handlerOf(s.kind).describe(s.payload as never)); }, step);
    return described;
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

  /**
   * Cancel: a job whose task is at the service (it has a task id) is cancelled there, whatever
   * its state here (waiting in back-off or a hold, paused, stopped waiting): it ends when the
   * service answers, and a 409 sends it back to following the task. A job with no task id
   * ends at once; a running job's request is aborted and its remote task cancelled.
   */
  cancelJob(id: number): void {
    const before = this.store.get(id);
    const f = this.inflight.get(id);
    if (!f) {
      if (before?.task_id && ['queued', 'paused', 'unknown', 'failed'].includes(before.state)) {
        // 'running' with phase 'cancel' until the service answers: not dispatched meanwhile,
        // and sent again after a restart.
        this.store.update(id, { state: 'running', phase: CANCELLING, retry_after: null });
        this.changed([id]);
        this.cancellingIds.add(id);
        const p = this.cancelRemote(id, this.handlerOf(before.kind)).finally(() => {
          this.remoteCancels.delete(p);
          this.cancellingIds.delete(id);
          this.checkIdle();
        });
        this.remoteCancels.add(p);
        return;
      }
      this.changed(this.store.setState([id], ['queued', 'paused', 'unknown'], 'cancelled'));
      return;
    }
    f.intent = 'cancel';
    const row = this.store.get(id);
    // Its task at the service: the cancel is written down (phase 'cancel'), so a crash before
    // the service has it sends it again after the restart instead of following the task on.
    if (row?.task_id && row.phase !== 'sent' && row.phase !== CANCELLING) this.store.update(id, { phase: CANCELLING });
    // A billed request already on the wire is allowed to finish: aborting it would leave its
    // outcome (and billing) unknown. Its answer is kept (cache, task id) and the remote task
    // is then cancelled. Anything else (preparing, waiting for a slot, polling, downloading) stops now.
    if (row?.phase !== 'sent') f.controller.abort();
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
    const paused = this.pausedLanes();
    paused.add(lane);
    this.store.setSetting('paused_lanes', [...paused]);
    this.events.lanesSoon();
  }

  resumeLane(lane: string): void {
    const paused = this.pausedLanes();
    paused.delete(lane);
    this.store.setSetting('paused_lanes', [...paused]);
    this.events.lanesSoon();
    this.pump();
  }

  cancelLane(lane: string): void {
    for (const j of this.store.jobIdsOfLane(lane, ['queued', 'paused', 'running'])) this.cancelJob(j);
  }

  /** Hold everything (persisted across restarts) until resume(). */
  pauseAll(): void {
    this.store.setSetting('paused_all', true);
    this.holds.set('user', 'Paused by you.');
  }

  /** Lift any hold (after topping up, new credentials, a raised cap, or a user pause) and go on. */
  resume(): void {
    this.store.setSetting('paused_all', false);
    this.holds.clear();
    this.pump();
  }

  getCaps(): QueueCaps {
    return this.store.caps();
  }

  /** The shared account's caps (a studio's, set by its admin) as last heard, also while offline; null: none, this machine's own apply. */
  sharedCaps(): StudioCaps | null {
    return this.shared?.accounting()?.caps ?? null;
  }

  setCaps(caps: QueueCaps): void {
    validateCaps(caps);
    this.store.setSetting('caps', caps);
    if (this.holds.current?.reason === 'cap') this.resume();
    else this.events.status();
  }

  // ---- views ----------------------------------------------------------------------------

  getJob(id: number): JobView | undefined {
    const r = this.store.get(id);
    return r ? toView(r) : undefined;
  }

  /** The state of each of `ids` still in the queue (one read for a whole batch). */
  jobStates(ids: readonly number[]): Map<number, JobState> {
    return this.store.states(ids);
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
    return { hold: this.hold, counts: this.store.countByState(), lanes: this.lanes(), usage: this.accounting().usage() };
  }

  lanes(): LaneView[] {
    const queued = new Map(this.store.queuedLanes().map((q) => [q.lane, q.n]));
    return this.pacing.view(queued, this.pausedLanes(), this.hold);
  }

  private get hold(): QueueHold | null {
    return this.holds.current;
  }

  private pausedLanes(): Set<string> {
    return new Set(this.store.getSetting<string[]>('paused_lanes', []));
  }

  // ---- scheduling -----------------------------------------------------------------------

  private pump(): void {
    if (!this.started || this.stopped) return;
    const now = Date.now();
    const paused = this.pausedLanes();
    let earliest: number | null = null;
    const onlyTasks = this.hold && (this.hold.reason === 'quota' || this.hold.reason === 'cap');
    const blocked = this.hold && !onlyTasks;
    for (const q of this.store.queuedLanes()) {
      if (paused.has(q.lane)) continue;
      // Local work is stopped only by the user's pause, never by a service hold.
      if (isLocalLane(q.lane) ? this.hold?.reason === 'user' : blocked) continue;
      if (q.earliest !== null && q.earliest > now) earliest = earliest === null ? q.earliest : Math.min(earliest, q.earliest);
      while (this.pacing.runningIn(q.lane) < this.pacing.concurrencyOf(q.lane)) {
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
    this.pacing.started(lane);
    this.store.update(row.id, { state: 'running', started_at: Date.now(), retry_after: null });
    const entry: Inflight = { controller, lane, cacheKey: row.cache_key, done: Promise.resolve() };
    this.inflight.set(row.id, entry);
    this.changed([row.id]);
    entry.done = this.runJob(row, entry).finally(() => {
      this.inflight.delete(row.id);
      this.pacing.ended(lane);
      this.events.lanesSoon();
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
    // Another machine of a shared account may have this answer, or be paying for it now.
    let claim: { release(): void } | null = null;
    const shared = this.sharing();
    if (row.cache_key && shared) {
      try {
        const c = await shared.claim(row.cache_key, f.controller.signal);
        if ('result' in c) {
          const r = c.result;
          this.store.cachePut(r.key, r.endpoint, r.contentHash, r.params, r.result);
          this.finish(row.id, 'done', { result: JSON.stringify(r.result), from_cache: 1 });
          return;
        }
        claim = c;
      } catch (e) {
        await this.failed(row.id, handler, f, f.controller.signal.aborted ? new ServiceError('cancelled', 'The job was stopped.') : e);
        return;
      }
    }
    // A one-at-a-time lane is one at a time for every machine of a shared account too.
    let turn: (() => void) | null = null;
    if (shared && isSerialLane(row.lane)) {
      try {
        turn = await shared.lane(row.lane, f.controller.signal);
      } catch (e) {
        claim?.release();
        await this.failed(row.id, handler, f, f.controller.signal.aborted ? new ServiceError('cancelled', 'The job was stopped.') : e);
        return;
      }
    }
    let fromCache = false;
    const ctx = this.context(row, f, () => { fromCache = true; });
    try {
      const result = await handler.run(ctx);
      if (f.intent === 'cancel') {
        // The task finished before the cancel could reach it: its result is here and paid.
        if (this.store.get(row.id)?.task_id) {
          this.finish(row.id, 'done', { result: JSON.stringify(result ?? null), from_cache: 0, error_kind: NOT_CANCELLABLE, error_message: NOT_CANCELLABLE_MESSAGE });
          return;
        }
        await this.cancelRemote(row.id, handler);
        return;
      }
      this.finish(row.id, 'done', { result: JSON.stringify(result ?? null), from_cache: fromCache ? 1 : 0 });
    } catch (e) {
      await this.failed(row.id, handler, f, e);
    } finally {
      // Shared (cachePut below) or failed: another machine waiting for this answer goes on.
      claim?.release();
      turn?.();
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
      cachePut: (key, endpoint, hash, params, result) => {
        this.store.cachePut(key, endpoint, hash, params, result);
        this.sharing()?.share({ key, endpoint, contentHash: hash, params, result });
      },
      async call<T>(endpoint: EndpointName, fn: (signal: AbortSignal) => Promise<T>, opts: { billingKey?: string | null; onBilled?: (r: T) => void } = {}): Promise<T> {
        const billing = opts.billingKey !== undefined ? opts.billingKey : endpoint === row.endpoint ? row.billing_key : null;
        if (f.intent) throw new ServiceError('cancelled', 'The job was stopped.');
        q.holds.check(billing);
        if (billing) checkCaps(q.accounting(), q.reserved, billing);
        let release: () => void;
        try {
          const own = await q.pacing.limiter(endpoint).acquire(f.controller.signal);
          // The shared account's pace (a studio's machines together), on top of this machine's own.
          let studio: (() => void) | null = null;
          try {
            const shared = q.sharing();
            studio = shared ? await shared.slot(rateKeyOf(ENDPOINTS[endpoint]), ENDPOINTS[endpoint].ratePerSecond, f.controller.signal) : null;
          } catch (e) {
            own();
            throw e;
          }
          // The account-wide ceiling, when the user set one, on top of the endpoint's own pace.
          const account = q.pacing.accountLimiter(q.store.caps().accountRatePerSecond);
          let ceiling: (() => void) | null = null;
          try {
            ceiling = account ? await account.acquire(f.controller.signal) : null;
          } catch (e) {
            own();
            studio?.();
            throw e;
          }
          release = () => {
            own();
            studio?.();
            ceiling?.();
          };
        } catch {
          throw new ServiceError('cancelled', 'The job was stopped.');
        }
        try {
          q.holds.check(billing);
          if (billing) checkCaps(q.accounting(), q.reserved, billing);
        } catch (e) {
          release();
          throw e;
        }
        if (billing) {
          q.reserved++;
          q.store.update(row.id, { phase: 'sent' });
          q.events.emit('job', toView(q.store.get(row.id)!));
        }
        try {
          const result = await fn(f.controller.signal);
          if (billing) {
            q.opts.db.transaction(() => {
              q.store.countBilled(billing);
              q.store.update(row.id, { phase: null });
              opts.onBilled?.(result);
            })();
            q.events.statusSoon();
            void q.reportUsage();
          }
          return result;
        } catch (e) {
          if (e instanceof ServiceError && e.kind === 'rate_limited') q.pacing.limiter(endpoint).penalize(1000);
          // Answered success in a shape that cannot be read: carried out, so counted as billed.
          if (billing && e instanceof ServiceError && e.kind === 'unreadable') {
            q.store.countBilled(billing);
            void q.reportUsage();
          }
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

  private async cancelRemote(id: number, handler: JobHandler<never>): Promise<void> {
    const r = this.store.get(id);
    const got = r?.task_id ? await cancelRemoteTask(this.client, this.pacing.limiter('cancelTask'), handler, { ...r, task_id: r.task_id }) : { outcome: 'cancelled' as const };
    if (!this.store.get(id)) return;
    if (got.outcome === 'final') {
      // 409: the task will finish (and is paid): follow it on and land its result.
      this.store.update(id, { state: 'queued', phase: 'poll', retry_after: null, finished_at: null, error_kind: NOT_CANCELLABLE, error_message: NOT_CANCELLABLE_MESSAGE });
      this.changed([id]);
      this.pump();
      return;
    }
    this.finish(id, 'cancelled', got.outcome === 'cancelled' ? { error_kind: null, error_message: null, phase: null } : { error_kind: CANCEL_UNCONFIRMED, error_message: `${CANCEL_UNCONFIRMED_MESSAGE} (${got.reason})`, phase: null });
  }

  private async failed(id: number, handler: JobHandler<never>, f: Inflight, e: unknown): Promise<void> {
    const s = settleFailure({ id, intent: f.intent, rateLimitedTries: this.rateLimitedTries.get(id) ?? 0, attempts: () => this.store.get(id)!.attempts }, e, this.tuning);
    if (s.cancelRemote) return this.cancelRemote(id, handler);
    if (s.rateLimitedTries !== undefined) this.rateLimitedTries.set(id, s.rateLimitedTries);
    if (s.hold) this.holds.set(s.hold.reason, s.hold.message);
    return this.finish(id, s.state, s.patch);
  }

  private finish(id: number, state: JobState, patch: Partial<JobRow>): void {
    const terminal = state === 'done' || state === 'failed' || state === 'cancelled' || state === 'unknown';
    const extra: Partial<JobRow> = terminal ? { finished_at: Date.now() } : {};
    if (state === 'done') Object.assign(extra, { error_kind: null, error_message: null, phase: null });
    if (terminal) this.rateLimitedTries.delete(id);
    this.store.update(id, { state, ...extra, ...patch });
    this.changed([id]);
  }

  // ---- events and idleness ------------------------------------------------------------------

  private changed(ids: number[]): void {
    const batches = new Set<string>();
    for (const id of ids) {
      const r = this.store.get(id);
      if (!r) continue;
      this.events.emit('job', toView(r));
      if (r.batch_id) batches.add(r.batch_id);
    }
    for (const b of batches) this.emitBatch(b);
    this.events.lanesSoon();
    this.checkIdle();
  }

  private emitBatch(id: string): void {
    const b = this.store.batch(id);
    if (b) this.events.emit('batch', b);
  }

  private isIdle(): boolean {
    if (this.inflight.size || this.remoteCancels.size) return false;
    if (!this.started) return true;
    const paused = this.pausedLanes();
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
