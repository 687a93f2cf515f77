// Asynchronous tasks: PENDING -> STARTED -> SUCCESS/FAILURE on a clock, REVOKED on cancel,
// one at a time per account and lane, callbacks on completion, results as real files.
import { randomUUID } from 'node:crypto';
import { isLoopbackUrl } from './validation.js';
import { SimClock } from './clock.js';

export type TaskStatus = 'PENDING' | 'STARTED' | 'SUCCESS' | 'FAILURE' | 'REVOKED';
export const FINAL: TaskStatus[] = ['SUCCESS', 'FAILURE', 'REVOKED'];

/** Kinds that the service runs one at a time per account, and the lane they share. */
export const SERIAL_LANES: Record<string, string> = {
  tts: 'tts',
  video_lipsync: 'lipsync',
  image_lipsync: 'lipsync',
  imageswap: 'imageswap',
  videoswap: 'videoswap',
};

/** Interface 1/8: inputs and results of queued requests are kept at most 24 hours. */
export const RETENTION_MS = 24 * 60 * 60 * 1000;

export interface TaskOutput {
  ext: string;
  mime: string;
  data: Buffer;
}

export interface SimTask {
  task_id: string;
  clientId: string;
  kind: string;
  model: string;
  status: TaskStatus;
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  result: string;
  error: string | null;
  callback: string | null;
}

interface TaskState extends SimTask {
  pendingUntil: number;
  finishAt: number | null;
  willFail: boolean;
  extraMs: number;
  produce: () => Promise<TaskOutput>;
  output?: { done: boolean; value?: TaskOutput; error?: string };
}

export interface CallbackRecord {
  task_id: string;
  url: string;
  body: { task_id: string; status: TaskStatus; result: string };
  /** HTTP status of the receiver, or null when it could not be reached or was not loopback */
  status: number | null;
  error?: string;
  at: number;
}

export interface TaskClock {
  pendingMs: number;
  startedMs: number;
}

export class TaskEngine {
  private tasks: TaskState[] = [];
  readonly files = new Map<string, TaskOutput>();
  readonly callbacks: CallbackRecord[] = [];
  private timer: NodeJS.Timeout;
  private pendingCallbacks = new Set<Promise<void>>();
  constructor(
    public clock: TaskClock,
    private baseUrl: () => string,
    private readonly retentionMs = RETENTION_MS,
    /** The simulator's clock (the rate limits count by the same one): real time unless a test moves it. */
    private readonly time: SimClock = new SimClock(),
  ) {
    const every = Math.max(5, Math.min(50, Math.floor(Math.min(clock.pendingMs, clock.startedMs) / 4) || 5));
    this.timer = setInterval(() => this.tick(), every);
    this.timer.unref();
  }

  now(): number {
    return this.time.now();
  }

  /** Move the simulator's clock forward: tasks progress and results expire as if that time had passed. */
  advance(ms: number): void {
    this.time.advance(ms);
    this.tick();
  }

  private expired(t: TaskState): boolean {
    return t.finishedAt !== null ? this.now() - t.finishedAt > this.retentionMs : this.now() - t.createdAt > this.retentionMs;
  }

  /** A result file, while its task is kept (24 hours after it finished). */
  file(name: string): TaskOutput | undefined {
    const f = this.files.get(name);
    if (!f) return undefined;
    const t = this.tasks.find((x) => name.startsWith(`${x.task_id}.`));
    if (t && this.expired(t)) {
      this.files.delete(name);
      return undefined;
    }
    return f;
  }

  create(input: {
    clientId: string;
    kind: string;
    model: string;
    callback: string | null;
    produce: () => Promise<TaskOutput>;
    willFail?: boolean;
    extraMs?: number;
  }): SimTask {
    const now = this.now();
    const t: TaskState = {
      task_id: randomUUID(),
      clientId: input.clientId,
      kind: input.kind,
      model: input.model,
      status: 'PENDING',
      createdAt: now,
      startedAt: null,
      finishedAt: null,
      result: '',
      error: null,
      callback: input.callback,
      pendingUntil: now + this.clock.pendingMs,
      finishAt: null,
      willFail: !!input.willFail,
      extraMs: input.extraMs ?? 0,
      produce: input.produce,
    };
    this.tasks.push(t);
    this.tick();
    return t;
  }

  /** A task of this account; undefined once it is past the retention (the service deleted it). */
  get(clientId: string, id: string): SimTask | undefined {
    this.tick();
    const t = this.tasks.find((x) => x.task_id === id && x.clientId === clientId);
    return t && !this.expired(t) ? t : undefined;
  }

  /** Queue position: 0 once processing or finished. */
  queue(task: SimTask): number {
    if (task.status !== 'PENDING') return 0;
    const lane = SERIAL_LANES[task.kind];
    if (!lane) return 1;
    return 1 + this.tasks.filter((o) => o.status === 'PENDING' && o.clientId === task.clientId &&
      SERIAL_LANES[o.kind] === lane && o.createdAt <= task.createdAt && o !== task &&
      this.tasks.indexOf(o) < this.tasks.indexOf(task as TaskState)).length;
  }

  /** 'ok' when revoked (again), 'final' when it can no longer be cancelled. */
  cancel(clientId: string, id: string): 'ok' | 'final' | 'missing' {
    const t = this.tasks.find((x) => x.task_id === id && x.clientId === clientId);
    if (!t || this.expired(t)) return 'missing';
    this.tick();
    if (t.status === 'REVOKED') return 'ok';
    if (t.status === 'SUCCESS' || t.status === 'FAILURE') return 'final';
    this.finish(t, 'REVOKED');
    return 'ok';
  }

  list(): SimTask[] {
    this.tick();
    return this.tasks.map((t) => ({
      task_id: t.task_id, clientId: t.clientId, kind: t.kind, model: t.model, status: t.status, createdAt: t.createdAt,
      startedAt: t.startedAt, finishedAt: t.finishedAt, result: t.result, error: t.error, callback: t.callback,
    }));
  }

  tick(): void {
    const now = this.now();
    for (const t of this.tasks) {
      if (t.status === 'PENDING' && now >= t.pendingUntil) {
        const lane = SERIAL_LANES[t.kind];
        if (lane) {
          const sameLane = this.tasks.filter((o) => o.clientId === t.clientId && SERIAL_LANES[o.kind] === lane);
          if (sameLane.some((o) => o.status === 'STARTED')) continue;
          if (sameLane.find((o) => o.status === 'PENDING') !== t) continue;
        }
        this.start(t, now);
      }
      if (t.status === 'STARTED' && t.finishAt !== null && now >= t.finishAt) {
        if (t.willFail) this.finish(t, 'FAILURE', 'Simulated task failure');
        else if (t.output?.done) {
          if (t.output.value) {
            const id = t.task_id;
            this.files.set(`${id}.${t.output.value.ext}`, t.output.value);
            this.finish(t, 'SUCCESS', null, `${this.baseUrl()}/files/${id}.${t.output.value.ext}`);
          } else this.finish(t, 'FAILURE', t.output.error ?? 'Processing failed');
        }
      }
    }
  }

  private start(t: TaskState, now: number): void {
    t.status = 'STARTED';
    t.startedAt = now;
    t.finishAt = now + this.clock.startedMs + t.extraMs;
    if (t.willFail) return;
    const out: { done: boolean; value?: TaskOutput; error?: string } = { done: false };
    t.output = out;
    t.produce().then(
      (v) => { out.done = true; out.value = v; this.tick(); },
      (e: Error) => { out.done = true; out.error = e.message; this.tick(); },
    );
  }

  private finish(t: TaskState, status: TaskStatus, error: string | null = null, result = ''): void {
    t.status = status;
    t.finishedAt = this.now();
    t.error = error;
    t.result = result;
    if (t.callback) this.deliver(t);
  }

  private deliver(t: TaskState): void {
    const url = t.callback!;
    const body = { task_id: t.task_id, status: t.status, result: t.result };
    const rec: CallbackRecord = { task_id: t.task_id, url, body, status: null, at: this.now() };
    this.callbacks.push(rec);
    // The simulator never reaches beyond loopback.
    if (!isLoopbackUrl(url)) { rec.error = 'not a loopback URL; not delivered'; return; }
    const p = fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(5000) })
      .then(async (r) => { rec.status = r.status; await r.arrayBuffer().catch(() => undefined); })
      .catch((e: Error) => { rec.error = e.message; })
      .finally(() => this.pendingCallbacks.delete(p));
    this.pendingCallbacks.add(p);
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await Promise.allSettled([...this.pendingCallbacks]);
  }
}
