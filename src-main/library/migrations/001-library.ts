import type { Migration } from './migration';

export const migration: Migration = {
  version: 1,
  name: 'library',
  sql: /* sql */ `
      CREATE TABLE folders (
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL UNIQUE,
        added_at INTEGER NOT NULL,
        last_scan_at INTEGER,
        online INTEGER NOT NULL DEFAULT 1,
        -- JSON checkpoint of an interrupted scan, so the next one resumes.
        scan_checkpoint TEXT
      ) STRICT;

      CREATE TABLE assets (
        id INTEGER PRIMARY KEY,
        folder_id INTEGER NOT NULL REFERENCES folders(id) ON DELETE CASCADE,
        -- Relative to the folder, '/'-separated.
        rel_path TEXT NOT NULL,
        name TEXT NOT NULL,
        ext TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('image', 'video', 'audio')),
        format TEXT NOT NULL,
        is_raw INTEGER NOT NULL DEFAULT 0,
        size INTEGER NOT NULL,
        mtime_ms INTEGER NOT NULL,
        content_hash TEXT,
        width INTEGER,
        height INTEGER,
        orientation INTEGER,
        duration_s REAL,
        video_codec TEXT,
        audio_codec TEXT,
        -- Camera-local wall-clock time as written: 'YYYY-MM-DDTHH:MM:SS' (+ offset when recorded).
        taken_at TEXT,
        camera_make TEXT,
        camera_model TEXT,
        lens TEXT,
        gps_lat REAL,
        gps_lon REAL,
        rating INTEGER NOT NULL DEFAULT 0 CHECK (rating BETWEEN 0 AND 5),
        color_label TEXT,
        caption TEXT,
        title TEXT,
        -- Accepted keywords in order, newline-joined; mirrors asset_keywords for FTS and fast reads.
        keywords_text TEXT NOT NULL DEFAULT '',
        keyword_count INTEGER NOT NULL DEFAULT 0,
        -- Thumbnail file relative to the cache dir, null when none could be made.
        thumb TEXT,
        preview TEXT,
        -- Lower-cased folder-relative path without extension: RAW+JPEG of one shot share it.
        stack_key TEXT NOT NULL,
        has_error INTEGER NOT NULL DEFAULT 0,
        added_at INTEGER NOT NULL,
        indexed_at INTEGER NOT NULL,
        -- Set when the file disappeared from an online folder; kept so a move can revive it.
        removed_at INTEGER,
        UNIQUE (folder_id, rel_path)
      ) STRICT;

      CREATE INDEX assets_live_taken ON assets (removed_at, taken_at, id);
      CREATE INDEX assets_live_name ON assets (removed_at, name, id);
      CREATE INDEX assets_live_added ON assets (removed_at, added_at, id);
      CREATE INDEX assets_live_size ON assets (removed_at, size, id);
      CREATE INDEX assets_hash ON assets (content_hash);
      CREATE INDEX assets_stack ON assets (folder_id, stack_key);
      CREATE INDEX assets_folder ON assets (folder_id, removed_at);
      CREATE INDEX assets_camera ON assets (camera_model);

      CREATE TABLE keywords (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE COLLATE NOCASE
      ) STRICT;

      CREATE TABLE asset_keywords (
        asset_id INTEGER NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
        keyword_id INTEGER NOT NULL REFERENCES keywords(id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        PRIMARY KEY (asset_id, keyword_id)
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX asset_keywords_keyword ON asset_keywords (keyword_id, asset_id);

      -- Problems met while indexing. asset_id is null for things that are not assets
      -- (an unreadable folder, a name that is not valid UTF-8).
      CREATE TABLE scan_errors (
        id INTEGER PRIMARY KEY,
        folder_id INTEGER NOT NULL REFERENCES folders(id) ON DELETE CASCADE,
        asset_id INTEGER REFERENCES assets(id) ON DELETE CASCADE,
        path TEXT NOT NULL,
        stage TEXT NOT NULL,
        reason TEXT NOT NULL,
        at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX scan_errors_asset ON scan_errors (asset_id);
      CREATE INDEX scan_errors_folder ON scan_errors (folder_id);

      -- Every user edit, with the values before and after, for undo (and later "revert this batch").
      CREATE TABLE edits (
        id INTEGER PRIMARY KEY,
        at INTEGER NOT NULL,
        description TEXT NOT NULL,
        batch_id TEXT,
        undone INTEGER NOT NULL DEFAULT 0
      ) STRICT;
      CREATE TABLE edit_changes (
        edit_id INTEGER NOT NULL REFERENCES edits(id) ON DELETE CASCADE,
        asset_id INTEGER NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
        field TEXT NOT NULL,
        old_value TEXT,
        new_value TEXT
      ) STRICT;
      CREATE INDEX edit_changes_edit ON edit_changes (edit_id);

      CREATE VIRTUAL TABLE assets_fts USING fts5 (
        name, keywords, caption, title,
        content = 'assets', content_rowid = 'id',
        tokenize = 'unicode61 remove_diacritics 2',
        prefix = '2 3'
      );
      CREATE TRIGGER assets_fts_ai AFTER INSERT ON assets BEGIN
        INSERT INTO assets_fts (rowid, name, keywords, caption, title)
        VALUES (new.id, new.name, new.keywords_text, new.caption, new.title);
      END;
      CREATE TRIGGER assets_fts_ad AFTER DELETE ON assets BEGIN
        INSERT INTO assets_fts (assets_fts, rowid, name, keywords, caption, title)
        VALUES ('delete', old.id, old.name, old.keywords_text, old.caption, old.title);
      END;
      CREATE TRIGGER assets_fts_au AFTER UPDATE OF name, keywords_text, caption, title ON assets BEGIN
        INSERT INTO assets_fts (assets_fts, rowid, name, keywords, caption, title)
        VALUES ('delete', old.id, old.name, old.keywords_text, old.caption, old.title);
        INSERT INTO assets_fts (rowid, name, keywords, caption, title)
        VALUES (new.id, new.name, new.keywords_text, new.caption, new.title);
      END;
    `,
};
