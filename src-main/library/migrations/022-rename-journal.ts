import type { Migration } from './migration';

export const migration: Migration = {
  version: 22,
  name: 'rename journal',
  // Issue 16 (batch rename). One row per file of a rename batch still in flight: written in the
  // same transaction as the edit log before any file moves, deleted in the transaction that
  // points the catalogue at the file's new name. A row left behind by a killed process is
  // finished or rolled back when the catalogue is next opened (library/rename-journal.ts).
  // Paths are relative to the folder, '/'-separated; sidecars a JSON array of [from, to].
  sql: /* sql */ `
      CREATE TABLE rename_journal (
        id INTEGER PRIMARY KEY,
        batch TEXT NOT NULL,
        pid INTEGER NOT NULL,
        edit_id INTEGER REFERENCES edits(id) ON DELETE CASCADE,
        is_undo INTEGER NOT NULL DEFAULT 0 CHECK (is_undo IN (0, 1)),
        -- A RAW and its JPEG are one shot: a crash settles the shot as a whole.
        shot INTEGER NOT NULL,
        asset_id INTEGER NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
        folder_path TEXT NOT NULL,
        from_rel TEXT NOT NULL,
        to_rel TEXT NOT NULL,
        sidecars TEXT NOT NULL DEFAULT '[]'
      ) STRICT;
    `,
};
