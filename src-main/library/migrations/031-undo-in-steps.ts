import type { Migration } from './migration';

export const migration: Migration = {
  version: 31,
  name: 'undo puts flags back itself',
  // Undo (library/edits.ts) puts every logged value back itself, picks and rejects included,
  // a chunk of changes per transaction, and marks the edit undone with its last chunk. The
  // trigger that put every flag of the edit back in that last step would redo all of them in
  // one statement: it goes.
  sql: /* sql */ `
      DROP TRIGGER IF EXISTS edits_undo_flag;
    `,
};
