import type { Migration } from './migration';

export const migration: Migration = {
  version: 37,
  name: 'change log by operation',
  // Every page of studio changes a replica applies first reads the keyword renames, merges and
  // deletes since it joined (a handful); without this index that read went through the whole
  // change log, so joining a studio of a million photos slowed with every page it applied.
  sql: /* sql */ `
      CREATE INDEX change_log_op ON change_log (op);
    `,
};
