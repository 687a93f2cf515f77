import type { Migration } from './migration';

export const migration: Migration = {
  version: 21,
  name: 'metadata template fields',
  // Issue 16. The IPTC Core / Extension fields a metadata template sets beyond the six rights
  // columns (creator contact info, usage terms, rights URL, instructions, source, location
  // created and shown): a JSON object of the fields an asset has, null when it has none.
  sql: /* sql */ `
      ALTER TABLE assets ADD COLUMN iptc_extended TEXT;
    `,
};
