import type { Migration } from './migration';

export const migration: Migration = {
  version: 17,
  name: 'similarity fingerprints',
  // Issue 17. One row per picture (or video poster) whose fingerprint was computed, for the
  // content it was computed from: a changed file (another content hash) is computed again.
  // phash is 64 bits as two unsigned 32-bit halves; colour 32 bytes of chromaticities; both
  // NULL when the picture could not be read (so it is not tried again until it changes).
  // sharpness: variance of the Laplacian at thumbnail size (library/similarity/fingerprint.ts).
  sql: /* sql */ `
      CREATE TABLE asset_fingerprints (
        asset_id INTEGER PRIMARY KEY REFERENCES assets(id) ON DELETE CASCADE,
        content_hash TEXT NOT NULL,
        version INTEGER NOT NULL,
        phash_hi INTEGER,
        phash_lo INTEGER,
        colour BLOB,
        sharpness REAL,
        computed_at INTEGER NOT NULL
      ) STRICT;
    `,
};
