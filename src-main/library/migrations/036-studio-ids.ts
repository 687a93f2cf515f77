import type { Migration } from './migration';

export const migration: Migration = {
  version: 36,
  name: 'stable collection ids and change authors for the studio',
  // A collection is known on every replica of a studio by an id made once where it was created
  // (its row id differs from machine to machine). The id is kept beside the row, not in it, so
  // a collection deleted and put back by undo (same row id) is the same collection everywhere.
  // A change made by another member of a studio names its author (the studio user), for the
  // photo's history.
  sql: /* sql */ `
      CREATE TABLE collection_uids (
        id INTEGER PRIMARY KEY,
        uid TEXT NOT NULL UNIQUE
      ) STRICT;
      INSERT INTO collection_uids (id, uid) SELECT id, lower(hex(randomblob(16))) FROM collections;
      ALTER TABLE change_log ADD COLUMN author TEXT;
      -- A keyword renamed in the studio: the photos whose changes used the old name are found by it.
      CREATE INDEX change_log_keyword ON change_log (value) WHERE field = 'keywords';
    `,
};
