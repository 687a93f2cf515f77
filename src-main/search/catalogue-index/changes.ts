import { prepared, type Db } from '../../library/db';

// Change tracking: TEMP triggers on this connection record which assets (and whether their
// sort keys or text changed), keyword links, stack groups and content hashes a write
// touched; the index re-reads only those (CatalogueIndex.applyDirty) and then clears them.

const TRIGGERS = /* sql */ `
  CREATE TEMP TABLE IF NOT EXISTS idx_dirty (id INTEGER PRIMARY KEY, sort INTEGER NOT NULL, text INTEGER NOT NULL);
  CREATE TEMP TABLE IF NOT EXISTS idx_dirty_kw (keyword_id INTEGER NOT NULL, asset_id INTEGER NOT NULL, PRIMARY KEY (keyword_id, asset_id)) WITHOUT ROWID;
  CREATE TEMP TABLE IF NOT EXISTS idx_dirty_stacks (folder_id INTEGER NOT NULL, stack_key TEXT NOT NULL, PRIMARY KEY (folder_id, stack_key)) WITHOUT ROWID;
  CREATE TEMP TABLE IF NOT EXISTS idx_dirty_hashes (hash TEXT PRIMARY KEY) WITHOUT ROWID;

  CREATE TEMP TRIGGER IF NOT EXISTS idx_assets_ai AFTER INSERT ON main.assets BEGIN
    INSERT INTO idx_dirty (id, sort, text) VALUES (new.id, 1, 1) ON CONFLICT (id) DO UPDATE SET sort = 1, text = 1;
    INSERT OR IGNORE INTO idx_dirty_stacks (folder_id, stack_key) VALUES (new.folder_id, new.stack_key);
    INSERT OR IGNORE INTO idx_dirty_hashes (hash) SELECT new.content_hash WHERE new.content_hash IS NOT NULL;
  END;
  CREATE TEMP TRIGGER IF NOT EXISTS idx_assets_ad AFTER DELETE ON main.assets BEGIN
    INSERT INTO idx_dirty (id, sort, text) VALUES (old.id, 1, 1) ON CONFLICT (id) DO UPDATE SET sort = 1, text = 1;
    INSERT OR IGNORE INTO idx_dirty_stacks (folder_id, stack_key) VALUES (old.folder_id, old.stack_key);
    INSERT OR IGNORE INTO idx_dirty_hashes (hash) SELECT old.content_hash WHERE old.content_hash IS NOT NULL;
  END;
  CREATE TEMP TRIGGER IF NOT EXISTS idx_assets_au AFTER UPDATE ON main.assets WHEN
    old.removed_at IS NOT new.removed_at OR old.kind IS NOT new.kind OR old.folder_id IS NOT new.folder_id
    OR old.rating IS NOT new.rating OR old.flag IS NOT new.flag OR old.color_label IS NOT new.color_label OR old.has_error IS NOT new.has_error
    OR old.keyword_count IS NOT new.keyword_count OR old.camera_make IS NOT new.camera_make
    OR old.camera_model IS NOT new.camera_model OR old.is_raw IS NOT new.is_raw OR old.stack_key IS NOT new.stack_key
    OR old.content_hash IS NOT new.content_hash OR old.name IS NOT new.name OR old.taken_at IS NOT new.taken_at
    OR old.added_at IS NOT new.added_at OR old.size IS NOT new.size
    OR old.keywords_text IS NOT new.keywords_text OR old.caption IS NOT new.caption OR old.title IS NOT new.title
    OR old.lens IS NOT new.lens OR old.iso IS NOT new.iso OR old.focal_length IS NOT new.focal_length OR old.aperture IS NOT new.aperture
  BEGIN
    INSERT INTO idx_dirty (id, sort, text) VALUES (new.id, (old.removed_at IS NOT new.removed_at OR old.name IS NOT new.name
      OR old.taken_at IS NOT new.taken_at OR old.added_at IS NOT new.added_at OR old.size IS NOT new.size),
      (old.name IS NOT new.name OR old.keywords_text IS NOT new.keywords_text OR old.caption IS NOT new.caption OR old.title IS NOT new.title))
      ON CONFLICT (id) DO UPDATE SET sort = max(sort, excluded.sort), text = max(text, excluded.text);
    INSERT OR IGNORE INTO idx_dirty_stacks (folder_id, stack_key)
      SELECT old.folder_id, old.stack_key WHERE old.folder_id IS NOT new.folder_id OR old.stack_key IS NOT new.stack_key OR old.is_raw IS NOT new.is_raw
      UNION ALL
      SELECT new.folder_id, new.stack_key WHERE old.folder_id IS NOT new.folder_id OR old.stack_key IS NOT new.stack_key OR old.is_raw IS NOT new.is_raw;
    INSERT OR IGNORE INTO idx_dirty_hashes (hash)
      SELECT old.content_hash WHERE old.content_hash IS NOT NULL AND (old.content_hash IS NOT new.content_hash OR old.removed_at IS NOT new.removed_at)
      UNION ALL
      SELECT new.content_hash WHERE new.content_hash IS NOT NULL AND (old.content_hash IS NOT new.content_hash OR old.removed_at IS NOT new.removed_at);
  END;
  CREATE TEMP TRIGGER IF NOT EXISTS idx_kw_ai AFTER INSERT ON main.asset_keywords BEGIN
    INSERT OR IGNORE INTO idx_dirty_kw (keyword_id, asset_id) VALUES (new.keyword_id, new.asset_id);
  END;
  CREATE TEMP TRIGGER IF NOT EXISTS idx_kw_ad AFTER DELETE ON main.asset_keywords BEGIN
    INSERT OR IGNORE INTO idx_dirty_kw (keyword_id, asset_id) VALUES (old.keyword_id, old.asset_id);
  END;
  CREATE TEMP TRIGGER IF NOT EXISTS idx_kw_au AFTER UPDATE OF keyword_id, asset_id ON main.asset_keywords BEGIN
    INSERT OR IGNORE INTO idx_dirty_kw (keyword_id, asset_id) VALUES (old.keyword_id, old.asset_id);
    INSERT OR IGNORE INTO idx_dirty_kw (keyword_id, asset_id) VALUES (new.keyword_id, new.asset_id);
  END;
`;

/** Set up this connection's change triggers (idempotent) and start from no recorded change. */
export function trackChanges(db: Db): void {
  db.exec(TRIGGERS);
  clearDirty(db);
}

export function clearDirty(db: Db): void {
  for (const t of ['idx_dirty', 'idx_dirty_kw', 'idx_dirty_stacks', 'idx_dirty_hashes']) prepared(db, `DELETE FROM temp.${t}`).run();
}
