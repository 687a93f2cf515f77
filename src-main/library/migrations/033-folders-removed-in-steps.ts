import type { Migration } from './migration';

export const migration: Migration = {
  version: 33,
  name: 'folders removed in steps',
  // Removing a folder deletes its photos a turn's budget at a time (library/folders.ts). The
  // folder is marked first, so it leaves the folder list at once, no scan or watcher adds its
  // files back while it goes, and a removal cut short (the app quit) is finished at the next
  // start.
  //
  // Deleting a photo also clears or drops the rows that point at it. Two of those had no index
  // to find them by, so each deleted photo read the whole table: the AI runs' "suggested from
  // this photo" links and the rename journal.
  sql: /* sql */ `
      ALTER TABLE folders ADD COLUMN removing_at INTEGER;
      CREATE INDEX ai_run_assets_from ON ai_run_assets (from_asset_id) WHERE from_asset_id IS NOT NULL;
      CREATE INDEX rename_journal_asset ON rename_journal (asset_id);
    `,
};
