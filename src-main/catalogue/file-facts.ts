import { stmt, type Db } from './statements';

// What the file writer learns of a photo's file, as the catalogue stores it: the file's new size,
// time and content hash after a write (so the next scan does not take Tagsmith's own write for
// an outside change), and where the file's metadata blocks disagree. Like the scan's reading of
// a file, these are not recorded as changes (each machine learns them from its own files).

/** A rewritten file's size, modification time (ms) and content hash. */
export function setFileFacts(db: Db, assetId: number, size: number, mtimeMs: number, hash: string): void {
  stmt(db, 'UPDATE assets SET size = ?, mtime_ms = ?, content_hash = ? WHERE id = ?').run(size, mtimeMs, hash, assetId);
}

/** Where the file's metadata blocks disagree (JSON), or null when they agree. */
export function setBlockDisagreement(db: Db, assetId: number, json: string | null): void {
  stmt(db, 'UPDATE assets SET block_disagreement = ? WHERE id = ?').run(json, assetId);
}
