import { createHash } from 'node:crypto';
import type { Db } from '../library/db';

// The service results cache (table result_cache, written by the job queue) is keyed by the
// picture's media hash, the endpoint and the canonical parameters. The key's formula lives
// here, below the queue, so that the library can move cached results to a new media hash
// (rekeyResults) without knowing the queue.

/** The cache key of one answer; `canonicalParams` is the parameters' canonical JSON. */
export function resultCacheKey(mediaHash: string, endpoint: string, canonicalParams: string): string {
  return createHash('sha256').update(`${mediaHash}\n${endpoint}\n${canonicalParams}`).digest('hex');
}

/**
 * Make every answer cached for `from` answer for `to` as well, and let the runs that were done
 * with `from` count as done with `to` (one asset's). Used when a picture's media hash is
 * computed anew for the same, unchanged file: nothing is paid twice for it. Call inside a
 * transaction.
 */
export function rekeyResults(db: Db, assetId: number, from: string, to: string): void {
  if (from === to) return;
  const rows = db
    .prepare<[string], { endpoint: string; params: string; result: string; created_at: number }>(
      'SELECT endpoint, params, result, created_at FROM result_cache WHERE content_hash = ?',
    )
    .all(from);
  const put = db.prepare(
    'INSERT OR IGNORE INTO result_cache (cache_key, endpoint, content_hash, params, result, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  for (const r of rows) put.run(resultCacheKey(to, r.endpoint, r.params), r.endpoint, to, r.params, r.result, r.created_at);
  db.prepare('UPDATE ai_run_assets SET content_hash = ? WHERE asset_id = ? AND content_hash = ?').run(to, assetId, from);
  db.prepare('UPDATE analysis_run_assets SET content_hash = ? WHERE asset_id = ? AND content_hash = ?').run(to, assetId, from);
}
