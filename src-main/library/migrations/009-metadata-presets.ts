import type { Migration } from './migration';

export const migration: Migration = {
  version: 9,
  name: 'metadata presets',
  // Named sets of stock and rights fields (IPTC Core / XMP) a user applies to a selection.
  sql: /* sql */ `
      CREATE TABLE metadata_presets (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE COLLATE NOCASE,
        -- JSON object of the rights fields the preset sets (headline, creator, copyright, credit, city, country).
        fields TEXT NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;
    `,
};
