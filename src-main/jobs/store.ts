// The queue's tables (migration 2): prepared statements only, writes in transactions.
import type Database from 'better-sqlite3';
import { prepared, type Db } from '../library/db';
import { resultCacheKey } from './result-cache';
import type { EndpointName } from '../service/endpoints';
import type { BatchView, JobState, JobView, QueueCaps, UsageSummary } from './types';

export interface JobRow {
  id: number;
  batch_id: string | null;
  kind: string;
  endpoint: string;
  lane: string;
  state: JobState;
  payload: string;
  cache_key: string | null;
  billing_key: string | null;
  task_id: string | null;
  phase: string | null;
  result: string | null;
  from_cache: number;
  attempts: number;
  retry_after: number | null;
  error_kind: string | null;
  error_message: string | null;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
  updated_at: number;
}

export function toView(r: JobRow): JobView {
  return {
    id: r.id,
    batchId: r.batch_id,
    kind: r.kind,
    endpoint: r.endpoint as EndpointName,
    lane: r.lane,
    state: r.state,
    taskId: r.task_id,
    phase: r.phase,
    fromCache: r.from_cache === 1,
    attempts: r.attempts,
    retryAfter: r.retry_after,
    error: r.error_kind ? { kind: r.error_kind, message: r.error_message ?? '' } : null,
    result: r.result ? JSON.parse(r.result) : null,
    createdAt: r.created_at,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
  };
}

/** Canonical JSON (sorted keys) so equal parameters give equal cache keys. */
export function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v).filter((k) => (v as Record<string, unknown>)[k] !== undefined).sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

export function cacheKeyOf(contentHash: string, endpoint: string, params: unknown): string {
  return resultCacheKey(contentHash, endpoint, canonical(params ?? {}));
}

export function localDay(t = Date.now()): string {
  const d = new Date(t);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

export class JobStore {
  constructor(readonly db: Db) {}

  private now = () => Date.now();

  /** The statement for `sql`, prepared once per connection (a batch of thousands reads its jobs back thousands of times). */
  private prepare<P extends unknown[] | object = unknown[], R = unknown>(sql: string): Database.Statement<P, R> {
    return prepared(this.db, sql) as unknown as Database.Statement<P, R>;
  }

  insertJob(j: { batchId: string | null; kind: string; endpoint: string; lane: string; payload: string; cacheKey: string | null; billingKey: string | null; state?: JobState; result?: string | null; fromCache?: boolean }): number {
    const t = this.now();
    const info = this.prepare(`INSERT INTO jobs (batch_id, kind, endpoint, lane, state, payload, cache_key, billing_key, result, from_cache, created_at, updated_at, finished_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(
      j.batchId, j.kind, j.endpoint, j.lane, j.state ?? 'queued', j.payload, j.cacheKey, j.billingKey, j.result ?? null, j.fromCache ? 1 : 0, t, t,
      j.state === 'done' ? t : null,
    );
    return Number(info.lastInsertRowid);
  }

  /** A new batch; a staged one (queued a chunk at a time) runs nothing and is not listed until unstageBatch. */
  insertBatch(id: string, label: string, staged = false): void {
    this.prepare('INSERT INTO job_batches (id, label, created_at, staged) VALUES (?, ?, ?, ?)').run(id, label, this.now(), staged ? 1 : 0);
  }

  /** Make a staged batch runnable; false when it is gone (removed as a crash's leftover by another process's start). */
  unstageBatch(id: string): boolean {
    return this.prepare('UPDATE job_batches SET staged = 0 WHERE id = ? AND staged = 1').run(id).changes > 0;
  }

  /** How many jobs a batch holds, whatever their state. */
  batchSize(id: string): number {
    return this.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM jobs WHERE batch_id = ?').get(id)!.n;
  }

  /**
   * Delete staged batches and their jobs (none of which ran): `id`'s, or (null) every one a
   * crash left, but for those being queued by this process (`keep`). Returns how many.
   */
  dropStaged(id: string | null, keep: readonly string[] = []): number {
    return id === null
      ? this.prepare('DELETE FROM job_batches WHERE staged = 1 AND id NOT IN (SELECT value FROM json_each(?))').run(JSON.stringify(keep)).changes
      : this.prepare('DELETE FROM job_batches WHERE id = ? AND staged = 1').run(id).changes;
  }

  get(id: number): JobRow | undefined {
    return this.prepare<[number], JobRow>('SELECT * FROM jobs WHERE id = ?').get(id);
  }

  /** The state of each of `ids` that exists, in one statement. */
  states(ids: readonly number[]): Map<number, JobState> {
    const rows = this.prepare<[string], { id: number; state: JobState }>('SELECT id, state FROM jobs WHERE id IN (SELECT value FROM json_each(?))').all(JSON.stringify(ids));
    return new Map(rows.map((r) => [r.id, r.state]));
  }

  /** The next runnable job of a lane, skipping paused batches and jobs already in flight. */
  nextRunnable(lane: string, now: number, exclude: number[]): JobRow | undefined {
    const ex = exclude.length ? exclude : [-1];
    return this.prepare<unknown[], JobRow>(`SELECT j.* FROM jobs j LEFT JOIN job_batches b ON b.id = j.batch_id
      WHERE j.state = 'queued' AND j.lane = ? AND (j.retry_after IS NULL OR j.retry_after <= ?)
        AND (b.id IS NULL OR (b.paused = 0 AND b.cancelled = 0 AND b.staged = 0))
        AND j.id NOT IN (${ex.map(() => '?').join(',')})
      ORDER BY j.id LIMIT 1`).get(lane, now, ...ex);
  }

  /** Lanes with queued work, and the earliest retry time among waiting jobs. */
  queuedLanes(): { lane: string; n: number; earliest: number | null }[] {
    return this.prepare<[], { lane: string; n: number; earliest: number | null }>(`SELECT j.lane, COUNT(*) AS n, MIN(j.retry_after) AS earliest
      FROM jobs j LEFT JOIN job_batches b ON b.id = j.batch_id
      WHERE j.state = 'queued' AND (b.id IS NULL OR (b.paused = 0 AND b.cancelled = 0 AND b.staged = 0)) GROUP BY j.lane`).all();
  }

  update(id: number, patch: Partial<Omit<JobRow, 'id'>>): void {
    const keys = Object.keys(patch);
    if (!keys.length) return;
    const sets = [...keys.map((k) => `${k} = @${k}`), 'updated_at = @updated_at'].join(', ');
    this.prepare(`UPDATE jobs SET ${sets} WHERE id = @id`).run({ ...patch, updated_at: this.now(), id });
  }

  setState(ids: number[], from: JobState[], to: JobState): number[] {
    const changed: number[] = [];
    const stmt = this.prepare(`UPDATE jobs SET state = ?, updated_at = ?, finished_at = CASE WHEN ? IN ('cancelled') THEN ? ELSE finished_at END
      WHERE id = ? AND state IN (${from.map(() => '?').join(',')})`);
    this.db.transaction(() => {
      const t = this.now();
      for (const id of ids) if (stmt.run(to, t, to, t, id, ...from).changes) changed.push(id);
    })();
    return changed;
  }

  jobIdsOfBatch(batchId: string, states: JobState[]): number[] {
    return this.prepare<unknown[], { id: number }>(`SELECT id FROM jobs WHERE batch_id = ? AND state IN (${states.map(() => '?').join(',')})`)
      .all(batchId, ...states).map((r) => r.id);
  }

  jobIdsOfLane(lane: string, states: JobState[]): number[] {
    return this.prepare<unknown[], { id: number }>(`SELECT id FROM jobs WHERE lane = ? AND state IN (${states.map(() => '?').join(',')})`)
      .all(lane, ...states).map((r) => r.id);
  }

  setBatchFlag(id: string, flag: 'paused' | 'cancelled', value: boolean): boolean {
    return this.prepare(`UPDATE job_batches SET ${flag} = ? WHERE id = ?`).run(value ? 1 : 0, id).changes > 0;
  }

  batch(id: string): BatchView | undefined {
    const b = this.prepare<[string], { id: string; label: string; created_at: number; paused: number; cancelled: number }>('SELECT * FROM job_batches WHERE id = ?').get(id);
    if (!b) return undefined;
    const counts = Object.fromEntries(
      this.prepare<[string], { state: JobState; n: number }>('SELECT state, COUNT(*) AS n FROM jobs WHERE batch_id = ? GROUP BY state').all(id).map((r) => [r.state, r.n]),
    ) as Partial<Record<JobState, number>>;
    const total = Object.values(counts).reduce((a, n) => a + (n ?? 0), 0);
    const cached = this.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM jobs WHERE batch_id = ? AND from_cache = 1').get(id)!.n;
    return { id: b.id, label: b.label, createdAt: b.created_at, paused: b.paused === 1, cancelled: b.cancelled === 1, total, cached, counts };
  }

  batches(limit = 100): BatchView[] {
    return this.prepare<[number], { id: string }>('SELECT id FROM job_batches WHERE staged = 0 ORDER BY created_at DESC LIMIT ?').all(limit).map((r) => this.batch(r.id)!);
  }

  list(filter: { batchId?: string; states?: JobState[]; lane?: string; limit?: number; offset?: number } = {}): JobRow[] {
    const where: string[] = [];
    const args: unknown[] = [];
    if (filter.batchId) { where.push('batch_id = ?'); args.push(filter.batchId); }
    if (filter.lane) { where.push('lane = ?'); args.push(filter.lane); }
    if (filter.states?.length) { where.push(`state IN (${filter.states.map(() => '?').join(',')})`); args.push(...filter.states); }
    return this.prepare<unknown[], JobRow>(`SELECT * FROM jobs ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY id LIMIT ? OFFSET ?`)
      .all(...args, filter.limit ?? 500, filter.offset ?? 0);
  }

  countByState(): Partial<Record<JobState, number>> {
    return Object.fromEntries(this.prepare<[], { state: JobState; n: number }>(`SELECT state, COUNT(*) AS n FROM jobs
      WHERE batch_id IS NULL OR batch_id NOT IN (SELECT id FROM job_batches WHERE staged = 1) GROUP BY state`).all().map((r) => [r.state, r.n]));
  }

  runningRows(): JobRow[] {
    return this.prepare<[], JobRow>("SELECT * FROM jobs WHERE state = 'running'").all();
  }

  // ---- cache --------------------------------------------------------------------------

  cacheGet(key: string): unknown | undefined {
    const r = this.prepare<[string], { result: string }>('SELECT result FROM result_cache WHERE cache_key = ?').get(key);
    return r ? JSON.parse(r.result) : undefined;
  }

  /** Whether an answer is cached, without reading it. */
  cacheHas(key: string): boolean {
    return this.prepare<[string], { one: number }>('SELECT 1 AS one FROM result_cache WHERE cache_key = ?').get(key) !== undefined;
  }

  cachePut(key: string, endpoint: string, contentHash: string, params: unknown, result: unknown): void {
    this.prepare('INSERT OR REPLACE INTO result_cache (cache_key, endpoint, content_hash, params, result, created_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(key, endpoint, contentHash, canonical(params ?? {}), JSON.stringify(result), this.now());
  }

  // ---- usage and settings ---------------------------------------------------------------

  countBilled(billingKey: string, t = Date.now()): void {
    this.prepare('INSERT INTO service_usage (billing_key, day, calls) VALUES (?, ?, 1) ON CONFLICT (billing_key, day) DO UPDATE SET calls = calls + 1')
      .run(billingKey, localDay(t));
  }

  usage(t = Date.now()): UsageSummary {
    const day = localDay(t);
    const month = day.slice(0, 7);
    const rows = this.prepare<[string], { billing_key: string; day: string; calls: number }>("SELECT billing_key, day, calls FROM service_usage WHERE day LIKE ? || '%'").all(month);
    const out: UsageSummary = { day, month, today: 0, thisMonth: 0, byModelToday: {}, byModelMonth: {} };
    for (const r of rows) {
      out.thisMonth += r.calls;
      out.byModelMonth[r.billing_key] = (out.byModelMonth[r.billing_key] ?? 0) + r.calls;
      if (r.day === day) {
        out.today += r.calls;
        out.byModelToday[r.billing_key] = (out.byModelToday[r.billing_key] ?? 0) + r.calls;
      }
    }
    return out;
  }

  /** This machine's billed calls of the month holding `t`, per day and billing key. */
  usageRows(t = Date.now()): { billingKey: string; day: string; calls: number }[] {
    const month = localDay(t).slice(0, 7);
    return this.prepare<[string], { billing_key: string; day: string; calls: number }>("SELECT billing_key, day, calls FROM service_usage WHERE day LIKE ? || '%'")
      .all(month).map((r) => ({ billingKey: r.billing_key, day: r.day, calls: r.calls }));
  }

  getSetting<T>(key: string, fallback: T): T {
    const r = this.prepare<[string], { value: string }>('SELECT value FROM service_settings WHERE key = ?').get(key);
    return r ? (JSON.parse(r.value) as T) : fallback;
  }

  setSetting(key: string, value: unknown): void {
    this.prepare('INSERT INTO service_settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, JSON.stringify(value));
  }

  caps(): QueueCaps {
    return this.getSetting<QueueCaps>('caps', {});
  }
}
