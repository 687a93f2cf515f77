import type { CreativeKind, CreativePartView, CreativeStatus, CreativeTaskView } from '../../src-preload/contract';
import { NOT_CANCELLABLE_MESSAGE } from '../jobs/cancel';
import { prepared, type Db } from '../library/db';

// The creative tables of migration 8: one row per request, one part per billed service task.
// Prepared statements with bound parameters only.

export interface CreativeTaskRow {
  id: number;
  kind: CreativeKind;
  endpoint: string;
  params: string;
  source_asset_ids: string;
  status: CreativeStatus;
  error: string | null;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
  result_path: string | null;
  result_asset_id: number | null;
  retry_of: number | null;
  /** migration 12: the time budget (ms) from the interface's typical times, and when it runs out */
  budget_ms: number | null;
  deadline_at: number | null;
}

export interface CreativePartRow {
  task_id: number;
  part: number;
  job_id: number | null;
  remote_task_id: string | null;
  remote_status: string | null;
  queue: number | null;
  eta: number | null;
  result_url: string | null;
  file: string | null;
}

/** How the error of a task whose create was answered in a shape Tagsmith cannot read starts (ServiceError 'unreadable'). */
export const UNREADABLE_PREFIX = 'Answered, unreadable';

/** What the user reads about a task whose cancel the service answered 409 (kept in its error, also once done). */
export const NOT_CANCELLABLE_TASK = `Could not be cancelled: the service had already gone too far, so the task finishes and is paid. ${NOT_CANCELLABLE_MESSAGE.split(': ')[1] ?? ''}`.trim();
const notCancellable = (row: CreativeTaskRow): boolean => !!row.error?.startsWith('Could not be cancelled:');

export const FINAL_STATUSES: readonly CreativeStatus[] = ['done', 'failed', 'cancelled', 'unknown', 'download_failed'];

/** The task statuses of interface section 3; anything else is shown as an unknown state. */
export const KNOWN_REMOTE_STATUSES = ['PENDING', 'STARTED', 'SUCCESS', 'FAILURE', 'REVOKED'];

export function insertTask(db: Db, t: { kind: CreativeKind; endpoint: string; params: unknown; sourceAssetIds: number[]; parts: number; retryOf?: number | null; budgetMs?: number | null }): number {
  return db.transaction(() => {
    const id = Number(
      prepared(db, `INSERT INTO creative_tasks (kind, endpoint, params, source_asset_ids, status, created_at, retry_of, budget_ms) VALUES (?, ?, ?, ?, 'waiting', ?, ?, ?)`)
        .run(t.kind, t.endpoint, JSON.stringify(t.params), JSON.stringify(t.sourceAssetIds), Date.now(), t.retryOf ?? null, t.budgetMs ?? null).lastInsertRowid,
    );
    const part = prepared(db, 'INSERT INTO creative_task_parts (task_id, part) VALUES (?, ?)');
    for (let i = 0; i < t.parts; i++) part.run(id, i);
    return id;
  })();
}

export function getTaskRow(db: Db, id: number): CreativeTaskRow | undefined {
  return prepared(db, 'SELECT * FROM creative_tasks WHERE id = ?').get(id) as CreativeTaskRow | undefined;
}

export function partsOf(db: Db, taskId: number): CreativePartRow[] {
  return prepared(db, 'SELECT * FROM creative_task_parts WHERE task_id = ? ORDER BY part').all(taskId) as CreativePartRow[];
}

export function partOfJob(db: Db, jobId: number): CreativePartRow | undefined {
  return prepared(db, 'SELECT * FROM creative_task_parts WHERE job_id = ?').get(jobId) as CreativePartRow | undefined;
}

export function updatePart(db: Db, taskId: number, part: number, patch: Partial<Omit<CreativePartRow, 'task_id' | 'part'>>): void {
  const keys = Object.keys(patch).filter((k) => /^[a-z_]+$/.test(k));
  if (!keys.length) return;
  prepared(db, `UPDATE creative_task_parts SET ${keys.map((k) => `${k} = ?`).join(', ')} WHERE task_id = ? AND part = ?`)
    .run(...keys.map((k) => (patch as Record<string, unknown>)[k] ?? null), taskId, part);
}

export function updateTask(db: Db, id: number, patch: Partial<Omit<CreativeTaskRow, 'id'>>): void {
  const keys = Object.keys(patch).filter((k) => /^[a-z_]+$/.test(k));
  if (!keys.length) return;
  prepared(db, `UPDATE creative_tasks SET ${keys.map((k) => `${k} = ?`).join(', ')} WHERE id = ?`)
    .run(...keys.map((k) => (patch as Record<string, unknown>)[k] ?? null), id);
}

export function listTaskRows(db: Db, opts: { limit?: number; kind?: CreativeKind; active?: boolean } = {}): CreativeTaskRow[] {
  const finals = FINAL_STATUSES.map((s) => `'${s}'`).join(', ');
  const where: string[] = [];
  const args: unknown[] = [];
  if (opts.kind) { where.push('kind = ?'); args.push(opts.kind); }
  if (opts.active) where.push(`status NOT IN (${finals})`);
  const sql = `SELECT * FROM creative_tasks ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ?`;
  return prepared(db, sql).all(...args, opts.limit ?? 200) as CreativeTaskRow[];
}

export function taskOfAsset(db: Db, assetId: number): CreativeTaskRow | undefined {
  return prepared(db, 'SELECT * FROM creative_tasks WHERE result_asset_id = ? ORDER BY id DESC LIMIT 1').get(assetId) as CreativeTaskRow | undefined;
}

export function getSetting<T>(db: Db, key: string, fallback: T): T {
  const row = prepared(db, 'SELECT value FROM creative_settings WHERE key = ?').get(key) as { value: string } | undefined;
  return row ? (JSON.parse(row.value) as T) : fallback;
}

export function setSetting(db: Db, key: string, value: unknown): void {
  if (value === undefined) return;
  prepared(db, 'INSERT OR REPLACE INTO creative_settings (key, value) VALUES (?, ?)').run(key, JSON.stringify(value));
}

/** The view of a task; `localQueue` gives Tagsmith's own queue position of a part's job while it waits. */
const minutes = (ms: number): string => (ms >= 90 * 60_000 ? `${Math.round(ms / 3_600_000)} h` : `${Math.max(1, Math.round(ms / 60_000))} min`);

function attentionOf(row: CreativeTaskRow, active: CreativePartRow | undefined, final: boolean, now: number): CreativeTaskView['attention'] {
  // A cancelled task carries an error only when its cancel did not reach the service.
  if (row.status === 'cancelled' && row.error) return { kind: 'cancel_unconfirmed', message: row.error };
  if (row.status === 'unknown' && row.error?.startsWith(UNREADABLE_PREFIX)) return { kind: 'unreadable', message: row.error };
  if (notCancellable(row)) return { kind: 'not_cancellable', message: NOT_CANCELLABLE_TASK };
  if (final) return null;
  const st = active?.remote_status;
  if (st && !KNOWN_REMOTE_STATUSES.includes(st)) {
    return { kind: 'unknown_state', message: `The service reports a state Tagsmith does not know (“${st}”); it keeps asking. Cancel it if it does not move on.` };
  }
  if (row.deadline_at !== null && now > row.deadline_at && row.status !== 'downloading') {
    return { kind: 'slow', message: `Taking unusually long: more than ${minutes(row.budget_ms ?? 0)} at the service, longer than such a task usually takes. Cancel it, or keep waiting.` };
  }
  return null;
}

export function toTaskView(row: CreativeTaskRow, parts: CreativePartRow[], localQueue: (jobId: number) => number | null, now = Date.now()): CreativeTaskView {
  const final = FINAL_STATUSES.includes(row.status);
  const active = parts.find((p) => p.remote_status !== 'SUCCESS') ?? parts[parts.length - 1];
  let queue: number | null = null;
  if (!final && active) {
    if (active.remote_task_id) queue = active.queue;
    else if (active.job_id !== null) queue = localQueue(active.job_id);
  }
  const partViews: CreativePartView[] = parts.map((p) => ({
    part: p.part, jobId: p.job_id, remoteTaskId: p.remote_task_id, remoteStatus: p.remote_status,
    queue: p.remote_task_id ? p.queue : p.job_id !== null && !final ? localQueue(p.job_id) : null,
  }));
  const end = row.finished_at ?? (final ? null : now);
  return {
    id: row.id,
    kind: row.kind,
    endpoint: row.endpoint,
    status: row.status,
    params: JSON.parse(row.params) as Record<string, unknown>,
    sourceAssetIds: JSON.parse(row.source_asset_ids) as number[],
    parts: partViews,
    queue,
    eta: final ? null : (active?.eta ?? null),
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    elapsedMs: row.started_at !== null && end !== null ? end - row.started_at : null,
    resultUrl: parts.length === 1 ? parts[0].result_url : null,
    resultPath: row.result_path,
    resultAssetId: row.result_asset_id,
    error: row.error,
    retryOf: row.retry_of,
    // A task at the service is cancelled there whatever its state here; not after a 409.
    canCancel: !notCancellable(row) && ((!final && row.status !== 'downloading') || (row.status === 'unknown' && parts.every((p) => p.remote_task_id))),
    canRetry: row.status === 'failed' || row.status === 'unknown',
    // An 'unknown' task the service accepted is followed by its task id (a status call, free):
    // every part's id is known, or the one part's answer was unreadable (the user gives the id).
    canRefetch: row.status === 'download_failed' || (row.status === 'done' && parts.every((p) => p.result_url))
      || (row.status === 'unknown' && (parts.every((p) => p.remote_task_id) || (parts.length === 1 && !!row.error?.startsWith(UNREADABLE_PREFIX)))),
    attention: attentionOf(row, active, final, now),
    deadlineAt: row.deadline_at,
  };
}
