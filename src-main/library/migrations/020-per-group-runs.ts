import type { Migration } from './migration';

export const migration: Migration = {
  version: 20,
  name: 'per-group runs',
  // Issue 17, pay per scene: a keyword or caption run may send one representative of a group
  // of similar pictures; the other members share its job and receive its suggestions, and
  // from_asset_id says whose they are ("from IMG_0012"). NULL: the asset's own answer.
  sql: /* sql */ `
      ALTER TABLE ai_run_assets ADD COLUMN from_asset_id INTEGER REFERENCES assets(id) ON DELETE SET NULL;
    `,
};
