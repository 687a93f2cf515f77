import { recordOperations } from './change-log';
import { stmt, type Db } from './statements';

// The content hash of a photo the scan showed before hashing it (time to grid: only the
// metadata head of a JPEG is read before the photo is in the grid). The pass after the grid
// (the photo's full-thumbnail job, or a service run that needs the photo's key at once)
// hashes the file and records it here, with the change that tells every replica: the same
// asset.change shape the scan records ({ size, mtimeMs, hash }), now with the hash.

/**
 * Record the content hash of a photo still owed one, if its row still describes the file that
 * was hashed (same size and time, not removed, no hash yet). Returns whether it was recorded;
 * false means the file changed meanwhile (the next scan reads it again) or another pass was
 * first. Call inside a transaction.
 */
export function recordContentHash(db: Db, assetId: number, file: { size: number; mtimeMs: number }, hash: string): boolean {
  const n = stmt(db, 'UPDATE assets SET content_hash = ? WHERE id = ? AND content_hash IS NULL AND removed_at IS NULL AND size = ? AND mtime_ms = ?')
    .run(hash, assetId, file.size, file.mtimeMs).changes;
  if (n === 0) return false;
  recordOperations(db, null, [{ op: 'asset.change', assetId, value: { size: file.size, mtimeMs: file.mtimeMs, hash } }]);
  return true;
}
