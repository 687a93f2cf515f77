import type { Migration } from './migration';

export const migration: Migration = {
  version: 10,
  name: 'capture-date order in one index',
  // The timeline orders by (taken_at, name, id). Without name in the index, listing a whole
  // result in that order (select all, a deep page) sorted each run of equal dates in a temp
  // B-tree and read every row from the table: seconds at a million assets. With it, the
  // walk is index-only. The old index is its prefix, so it goes.
  sql: /* sql */ `
      DROP INDEX assets_live_taken;
      CREATE INDEX assets_live_taken ON assets (removed_at, taken_at, name, id);
    `,
};
