import type { Migration } from './migration';

export const migration: Migration = {
  version: 28,
  name: 'library undo',
  // Undo beyond the fields of photos: an edit may also change the library itself (a collection
  // created, renamed, moved or deleted; keyword-list entries deleted with a keyword). What puts
  // that back is kept with the edit as JSON (library/library-undo.ts), beside its edit_changes.
  sql: /* sql */ `
      ALTER TABLE edits ADD COLUMN library_undo TEXT;
    `,
};
