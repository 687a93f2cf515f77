import type { Migration } from './migration';

export const migration: Migration = {
  version: 3,
  name: 'search indexes',
  // Filters that scanned the whole table at 100k assets get an index each: the grid's
  // total count for these is then an index-only count.
  sql: /* sql */ `
      CREATE INDEX assets_live_name_nocase ON assets (removed_at, name COLLATE NOCASE, id);
      CREATE INDEX assets_live_kind ON assets (removed_at, kind, taken_at, id);
      CREATE INDEX assets_live_rating ON assets (removed_at, rating, taken_at, id);
      CREATE INDEX assets_no_keywords ON assets (removed_at, taken_at, id) WHERE keyword_count = 0;
      CREATE INDEX assets_with_errors ON assets (removed_at, taken_at, id) WHERE has_error = 1;
      CREATE INDEX assets_camera_make ON assets (camera_make);
      CREATE INDEX assets_folder_taken ON assets (folder_id, removed_at, taken_at, id);
    `,
};
