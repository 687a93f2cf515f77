import type { Migration } from './migration';

export const migration: Migration = {
  version: 14,
  name: 'agency fields and sends',
  // Issue 19. asset_stock: what stock agencies ask of a photo beyond IPTC — the editorial
  // flag, release names (JSON array) and a category per agency (JSON array of "agency:value",
  // e.g. "adobe:11", "shutterstock:Nature"). agency_sends: a record per photo per agency of
  // what was uploaded (when, where, how many bytes), which search and collections filter on.
  sql: /* sql */ `
      CREATE TABLE asset_stock (
        asset_id INTEGER PRIMARY KEY REFERENCES assets(id) ON DELETE CASCADE,
        editorial INTEGER NOT NULL DEFAULT 0 CHECK (editorial IN (0, 1)),
        releases TEXT NOT NULL DEFAULT '[]',
        categories TEXT NOT NULL DEFAULT '[]'
      ) STRICT;
      CREATE TABLE agency_sends (
        asset_id INTEGER NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
        agency TEXT NOT NULL,
        sent_at INTEGER NOT NULL,
        remote TEXT NOT NULL,
        bytes INTEGER NOT NULL,
        PRIMARY KEY (asset_id, agency)
      ) STRICT;
      CREATE INDEX agency_sends_by_agency ON agency_sends(agency, asset_id);
    `,
};
