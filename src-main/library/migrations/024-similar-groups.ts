import type { Migration } from './migration';

export const migration: Migration = {
  version: 24,
  name: 'similar groups',
  // Issue 17, the grid's half. The library's groups of one scene (library/similarity/groups.ts)
  // as last computed, so that search can filter by them ("similar groups") and fold them like
  // RAW+JPEG stacks: similar_groups one row per group (its id is its lowest member id, its
  // kind, the suggested best frame, how many members), similar_members each member's group and
  // place in it (capture order). similarity_state counts the changes that can move a group
  // (a fingerprint written, an asset removed or restored); the groups are computed again when
  // that count moved since they were (grouped).
  sql: /* sql */ `
      CREATE TABLE similar_groups (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL,
        best_id INTEGER NOT NULL,
        size INTEGER NOT NULL
      ) STRICT;
      CREATE TABLE similar_members (
        asset_id INTEGER PRIMARY KEY,
        group_id INTEGER NOT NULL,
        position INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX similar_members_group ON similar_members (group_id, position);
      CREATE TABLE similarity_state (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        changes INTEGER NOT NULL,
        grouped INTEGER NOT NULL
      ) STRICT;
      INSERT INTO similarity_state (id, changes, grouped) VALUES (1, 1, 0);
      CREATE TRIGGER similarity_fp_insert AFTER INSERT ON asset_fingerprints BEGIN
        UPDATE similarity_state SET changes = changes + 1 WHERE id = 1;
      END;
      CREATE TRIGGER similarity_fp_update AFTER UPDATE ON asset_fingerprints BEGIN
        UPDATE similarity_state SET changes = changes + 1 WHERE id = 1;
      END;
      CREATE TRIGGER similarity_fp_delete AFTER DELETE ON asset_fingerprints BEGIN
        UPDATE similarity_state SET changes = changes + 1 WHERE id = 1;
      END;
      CREATE TRIGGER similarity_asset_presence AFTER UPDATE OF removed_at, content_hash ON assets
        WHEN old.removed_at IS NOT new.removed_at OR old.content_hash IS NOT new.content_hash BEGIN
        UPDATE similarity_state SET changes = changes + 1 WHERE id = 1;
      END;
    `,
};
