import type { Migration } from './migration';

export const migration: Migration = {
  version: 15,
  name: 'agency fields',
  // Issue 19. asset_stock: what stock agencies ask of a photo beyond IPTC — the editorial
  // flag, release names (JSON array) and a category per agency (JSON array of "agency:value",
  // e.g. "adobe:11", "shutterstock:Nature").
  sql: /* sql */ `
      CREATE TABLE asset_stock (
        asset_id INTEGER PRIMARY KEY REFERENCES assets(id) ON DELETE CASCADE,
        editorial INTEGER NOT NULL DEFAULT 0 CHECK (editorial IN (0, 1)),
        releases TEXT NOT NULL DEFAULT '[]',
        categories TEXT NOT NULL DEFAULT '[]'
      ) STRICT;
    `,
};
