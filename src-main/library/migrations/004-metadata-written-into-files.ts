import type { Migration } from './migration';

export const migration: Migration = {
  version: 4,
  name: 'metadata written into files',
  sql: /* sql */ `
      -- Stock and rights fields written as IPTC Core / XMP beside keywords (null: not set in
      -- Tagsmith, the file's value is left alone).
      ALTER TABLE assets ADD COLUMN headline TEXT;
      ALTER TABLE assets ADD COLUMN creator TEXT;
      ALTER TABLE assets ADD COLUMN copyright TEXT;
      ALTER TABLE assets ADD COLUMN credit TEXT;
      ALTER TABLE assets ADD COLUMN city TEXT;
      ALTER TABLE assets ADD COLUMN country TEXT;
      -- Lightroom-style flag (P / X / U). A reject is written as XMP Rating -1.
      ALTER TABLE assets ADD COLUMN flag TEXT CHECK (flag IN ('pick', 'reject'));

      -- What the file holds for the managed fields, as last read from it or written into it:
      -- the common base of the three-way merge when the file is changed by another program.
      CREATE TABLE file_state (
        asset_id INTEGER PRIMARY KEY REFERENCES assets(id) ON DELETE CASCADE,
        -- JSON of the managed fields (keywords, caption, title, rating, rejected, headline, ...).
        fields TEXT,
        status TEXT NOT NULL CHECK (status IN ('read', 'written', 'failed')),
        -- Why the last write failed, in words for the user.
        error TEXT,
        -- JSON list of fields changed both in the file and in the library, for the user to resolve.
        conflicts TEXT,
        checked_at INTEGER NOT NULL,
        written_at INTEGER
      ) STRICT;
      CREATE INDEX file_state_status ON file_state (status);
    `,
};
