import type { Migration } from './migration';

export const migration: Migration = {
  version: 18,
  name: 'collections',
  // Collections as Lightroom users know them (issue 16): manual ones hold photos in a custom
  // order, smart ones a saved search (JSON SearchQuery, evaluated live), sets hold other
  // collections. Names are unique across all of them (the CLI addresses a collection by name).
  // Membership never touches the files; a removed asset keeps its memberships hidden, so a
  // folder that comes back brings its photos back into their collections.
  sql: /* sql */ `
      CREATE TABLE collections (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE COLLATE NOCASE,
        kind TEXT NOT NULL CHECK (kind IN ('manual', 'smart', 'set')),
        parent_id INTEGER REFERENCES collections(id) ON DELETE CASCADE,
        query TEXT,
        created_at INTEGER NOT NULL,
        CHECK ((kind = 'smart') = (query IS NOT NULL))
      ) STRICT;
      CREATE INDEX collections_parent ON collections (parent_id);
      CREATE TABLE collection_assets (
        collection_id INTEGER NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
        asset_id INTEGER NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
        -- The custom order: REAL, so a photo dragged between two others gets a position
        -- between theirs and nothing else moves (one undoable change per moved photo).
        position REAL NOT NULL,
        PRIMARY KEY (collection_id, asset_id)
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX collection_assets_asset ON collection_assets (asset_id);
      CREATE INDEX collection_assets_order ON collection_assets (collection_id, position);
    `,
};
