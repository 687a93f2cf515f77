import type { Migration } from './migration';

export const migration: Migration = {
  version: 34,
  name: 'change log',
  // The catalogue's one door (catalogue/change-log.ts) records every change it applies here, in
  // order: undo, the inspector's history and the studio sync read it. `catalogue_clock` is this
  // library's device (made once, here, and kept: a copy of the catalogue file is the same
  // device until it joins a studio), the next sequence number of its changes and the last time
  // of its hybrid logical clock (catalogue/hlc.ts).
  //
  // change_log.position is the local order (a reader asks for "every change after position
  // X"); device + seq name a change on every machine (a replay is recognised); hlc orders
  // edits of one field across machines. An asset is named by its id here and, for other
  // machines, by its folder's path, its path inside that folder and its content hash as they
  // were when the change was made. edit_id links the change to the edit it belongs to (undo
  // and the history read edits/edit_changes); `undo` is 1 for a change that undid one.
  sql: /* sql */ `
      CREATE TABLE catalogue_clock (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        device TEXT NOT NULL,
        next_seq INTEGER NOT NULL,
        hlc TEXT NOT NULL
      ) STRICT;
      INSERT INTO catalogue_clock (id, device, next_seq, hlc)
        SELECT 1, d, 1, '1970-01-01T00:00:00.000Z-0000-' || d FROM (SELECT lower(hex(randomblob(8))) AS d);

      CREATE TABLE change_log (
        position INTEGER PRIMARY KEY,
        device TEXT NOT NULL,
        seq INTEGER NOT NULL,
        hlc TEXT NOT NULL,
        -- set | add | remove | move (of an asset's field), or what happened to the library:
        -- collection.create, collection.update, collection.delete, keyword.rename, …
        op TEXT NOT NULL,
        asset_id INTEGER,
        asset_folder TEXT,
        asset_path TEXT,
        asset_hash TEXT,
        field TEXT,
        value TEXT,
        edit_id INTEGER REFERENCES edits(id) ON DELETE SET NULL,
        undo INTEGER NOT NULL DEFAULT 0,
        UNIQUE (device, seq)
      ) STRICT;
      CREATE INDEX change_log_edit ON change_log (edit_id);
    `,
};
