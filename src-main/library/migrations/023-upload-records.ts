import type { Migration } from './migration';

export const migration: Migration = {
  version: 23,
  name: 'upload records',
  // Issue 19, upload. asset_sent: one row per photo and agency, the last time the photo's file
  // reached that agency's server ("sent to Adobe Stock on 2026-11-24"): where to (the address
  // without any user name or password), its size and content hash then.
  // upload_transfers: an upload job's file on its way, written before the first byte leaves,
  // so that after a crash the next run knows which remote file is its own partial copy and
  // of which local content (resume it, or start it again when the file changed).
  sql: /* sql */ `
      CREATE TABLE asset_sent (
        asset_id INTEGER NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
        agency TEXT NOT NULL,
        sent_at INTEGER NOT NULL,
        remote TEXT NOT NULL,
        size INTEGER NOT NULL,
        content_hash TEXT,
        PRIMARY KEY (asset_id, agency)
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX asset_sent_agency ON asset_sent (agency, asset_id);

      CREATE TABLE upload_transfers (
        job_id INTEGER PRIMARY KEY REFERENCES jobs(id) ON DELETE CASCADE,
        remote TEXT NOT NULL,
        size INTEGER NOT NULL,
        mtime_ms INTEGER NOT NULL,
        started_at INTEGER NOT NULL
      ) STRICT;
    `,
};
