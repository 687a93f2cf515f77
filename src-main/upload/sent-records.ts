import type { Db } from '../library/db';
import { prepared } from '../library/db';

// Issue 19: a record per photo per agency of the last time its file reached the agency's
// server, and the bookkeeping of an upload in flight (upload_transfers), so a restart after a
// crash resumes its own partial file and never sends a finished one twice.

export interface SentRecord {
  agency: string;
  /** epoch ms */
  sentAt: number;
  /** where it went, e.g. ftp://ftp.example.com:21/photos/IMG_1.jpg (never a user name or password) */
  remote: string;
  size: number;
  contentHash: string | null;
}

export function recordSent(db: Db, assetId: number, r: SentRecord): void {
  prepared(
    db,
    `INSERT INTO asset_sent (asset_id, agency, sent_at, remote, size, content_hash) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT(asset_id, agency) DO UPDATE SET sent_at = excluded.sent_at, remote = excluded.remote, size = excluded.size, content_hash = excluded.content_hash`,
  ).run(assetId, r.agency, r.sentAt, r.remote, r.size, r.contentHash);
}

/** Every agency this photo was sent to, newest first. */
export function sentRecords(db: Db, assetId: number): SentRecord[] {
  const rows = prepared(db, 'SELECT agency, sent_at, remote, size, content_hash FROM asset_sent WHERE asset_id = ? ORDER BY sent_at DESC').all(assetId) as {
    agency: string; sent_at: number; remote: string; size: number; content_hash: string | null;
  }[];
  return rows.map((r) => ({ agency: r.agency, sentAt: r.sent_at, remote: r.remote, size: r.size, contentHash: r.content_hash }));
}

export function sentRecord(db: Db, assetId: number, agency: string): SentRecord | null {
  return sentRecords(db, assetId).find((r) => r.agency === agency) ?? null;
}

export interface TransferRow {
  remote: string;
  size: number;
  mtimeMs: number;
}

export function transferOf(db: Db, jobId: number): TransferRow | null {
  const r = prepared(db, 'SELECT remote, size, mtime_ms FROM upload_transfers WHERE job_id = ?').get(jobId) as { remote: string; size: number; mtime_ms: number } | undefined;
  return r ? { remote: r.remote, size: r.size, mtimeMs: r.mtime_ms } : null;
}

export function beginTransfer(db: Db, jobId: number, t: TransferRow): void {
  prepared(
    db,
    `INSERT INTO upload_transfers (job_id, remote, size, mtime_ms, started_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT(job_id) DO UPDATE SET remote = excluded.remote, size = excluded.size, mtime_ms = excluded.mtime_ms, started_at = excluded.started_at`,
  ).run(jobId, t.remote, t.size, t.mtimeMs, Date.now());
}

export function endTransfer(db: Db, jobId: number): void {
  prepared(db, 'DELETE FROM upload_transfers WHERE job_id = ?').run(jobId);
}

/**
 * The transfer a cancelled or failed upload job left for this remote file (a cancel in Activity
 * aborts the file in flight and leaves its partial copy on the server), taken over by a new job
 * of the same file: its row moves to the new job, so the partial copy is resumed, not sent again.
 */
export function adoptTransfer(db: Db, jobId: number, remote: string): TransferRow | null {
  const r = prepared(
    db,
    `SELECT t.job_id, t.remote, t.size, t.mtime_ms FROM upload_transfers t JOIN jobs j ON j.id = t.job_id
      WHERE t.remote = ? AND t.job_id <> ? AND j.state IN ('cancelled', 'failed') ORDER BY t.started_at DESC LIMIT 1`,
  ).get(remote, jobId) as { job_id: number; remote: string; size: number; mtime_ms: number } | undefined;
  if (!r) return null;
  const row = { remote: r.remote, size: r.size, mtimeMs: r.mtime_ms };
  db.transaction(() => {
    endTransfer(db, r.job_id);
    beginTransfer(db, jobId, row);
  })();
  return row;
}
