import type { Migration } from './migration';

export const migration: Migration = {
  version: 14,
  name: 'metadata-block-disagreement',
  // When a file's IPTC and XMP blocks disagreed at its last reading (or write): JSON
  // {fields, took: 'xmp'|'iptc', digest: 'matches'|'differs'|'absent'} (metadata/blocks.ts),
  // shown in the inspector. NULL when they agreed, or for files read before this existed
  // (the next reading of the file fills it in).
  sql: /* sql */ `
      ALTER TABLE assets ADD COLUMN block_disagreement TEXT CHECK (block_disagreement IS NULL OR json_valid(block_disagreement));
    `,
};
