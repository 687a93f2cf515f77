import type { Migration } from './migration';

export const migration: Migration = {
  version: 35,
  name: 'change log by asset and field',
  // A studio replica applies another member's change to a field only when it is newer (by the
  // hybrid logical clock) than the newest change of that field this library knows: that look-up
  // goes by asset, field and time.
  sql: /* sql */ `
      CREATE INDEX change_log_asset_field ON change_log (asset_id, field, hlc);
    `,
};
