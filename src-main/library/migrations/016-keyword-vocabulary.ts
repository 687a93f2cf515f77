import type { Migration } from './migration';

export const migration: Migration = {
  version: 16,
  name: 'keyword vocabulary',
  // Issue 16. The keyword list a photographer keeps (Lightroom's keyword list), also the
  // keywords no photo carries yet: each a whole hierarchy path ('Animals|Cat') with its
  // synonyms (JSON array, in order), whether it is included on export (Lightroom's [name]),
  // and its place among its siblings (the order of the imported file).
  sql: /* sql */ `
      CREATE TABLE keyword_vocabulary (
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL UNIQUE COLLATE NOCASE,
        exportable INTEGER NOT NULL DEFAULT 1 CHECK (exportable IN (0, 1)),
        synonyms TEXT NOT NULL DEFAULT '[]',
        position INTEGER NOT NULL
      ) STRICT;
    `,
};
