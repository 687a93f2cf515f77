import type { Migration } from './migration';

export const migration: Migration = {
  version: 6,
  name: 'media hash',
  // The hash of a file's content without its metadata (media-hash.ts): the service's
  // result cache is keyed by it, so writing keywords into a file never makes the next
  // analysis of the same picture billable again. Filled by the next scan of each file.
  sql: /* sql */ `
      ALTER TABLE assets ADD COLUMN media_hash TEXT;
      CREATE INDEX assets_media_hash ON assets (media_hash);
    `,
};
