import type { Migration } from './migration';

export const migration: Migration = {
  version: 26,
  name: 'similar groups follow quality scores',
  // Issue 17. A group's suggested best frame is the highest quality score when one was
  // measured (library/similarity/groups.ts): a score measured, measured again or forgotten
  // moves it, so the stored groups (migration 24) are computed again, as after a fingerprint.
  sql: /* sql */ `
      CREATE TRIGGER similarity_quality_insert AFTER INSERT ON asset_quality BEGIN
        UPDATE similarity_state SET changes = changes + 1 WHERE id = 1;
      END;
      CREATE TRIGGER similarity_quality_update AFTER UPDATE OF score ON asset_quality BEGIN
        UPDATE similarity_state SET changes = changes + 1 WHERE id = 1;
      END;
      CREATE TRIGGER similarity_quality_delete AFTER DELETE ON asset_quality BEGIN
        UPDATE similarity_state SET changes = changes + 1 WHERE id = 1;
      END;
    `,
};
