// Numbered migrations. Never edit one once released: add the next number instead.
// Each runs in its own transaction and bumps PRAGMA user_version.

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const migrations: Migration[] = [
  {
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
  },
  {
    version: 2,
    name: 'service jobs',
    sql: /* sql */ `
      -- A group of jobs the user started together (e.g. "keyword 300 photos").
      CREATE TABLE job_batches (
        id TEXT PRIMARY KEY,
        label TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        paused INTEGER NOT NULL DEFAULT 0,
        cancelled INTEGER NOT NULL DEFAULT 0
      ) STRICT;

      -- The durable queue of calls to the cloud service. 'unknown': a request whose answer was
      -- lost (it may have been billed); it is never re-sent without the user's say.
      CREATE TABLE jobs (
        id INTEGER PRIMARY KEY,
        batch_id TEXT REFERENCES job_batches(id) ON DELETE CASCADE,
        kind TEXT NOT NULL,
        endpoint TEXT NOT NULL,
        lane TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed', 'cancelled', 'unknown', 'paused')),
        -- JSON input of the job's handler (paths, hashes, parameters; never secrets).
        payload TEXT NOT NULL,
        cache_key TEXT,
        billing_key TEXT,
        -- Async tasks: the service's task id once the create was answered.
        task_id TEXT,
        -- Where a running job got to: null (preparing), 'sent' (a billed request left), 'poll', 'download'.
        phase TEXT,
        result TEXT,
        from_cache INTEGER NOT NULL DEFAULT 0,
        attempts INTEGER NOT NULL DEFAULT 0,
        retry_after INTEGER,
        error_kind TEXT,
        error_message TEXT,
        created_at INTEGER NOT NULL,
        started_at INTEGER,
        finished_at INTEGER,
        updated_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX jobs_runnable ON jobs (state, lane, id);
      CREATE INDEX jobs_batch ON jobs (batch_id, state);
      CREATE INDEX jobs_cache_key ON jobs (cache_key);

      -- Parsed answers by content hash + endpoint + parameters: the same picture is paid for once.
      CREATE TABLE result_cache (
        cache_key TEXT PRIMARY KEY,
        endpoint TEXT NOT NULL,
        content_hash TEXT NOT NULL,
        params TEXT NOT NULL,
        result TEXT NOT NULL,
        created_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX result_cache_hash ON result_cache (content_hash);

      -- Billed calls per model key and local day ('YYYY-MM-DD'); months are sums of days.
      CREATE TABLE service_usage (
        billing_key TEXT NOT NULL,
        day TEXT NOT NULL,
        calls INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (billing_key, day)
      ) STRICT, WITHOUT ROWID;

      -- Queue settings: caps, prices, paused lanes (JSON values; never credentials).
      CREATE TABLE service_settings (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
      ) STRICT;
    `,
  },
  {
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
  },
  {
    version: 4,
    name: 'metadata written into files',
    sql: /* sql */ `
      -- Stock and rights fields written as IPTC Core / XMP beside keywords (null: not set in
      -- Tagsmith, the file's value is left alone).
      ALTER TABLE assets ADD COLUMN headline TEXT;
      ALTER TABLE assets ADD COLUMN creator TEXT;
      ALTER TABLE assets ADD COLUMN copyright TEXT;
      ALTER TABLE assets ADD COLUMN credit TEXT;
      ALTER TABLE assets ADD COLUMN city TEXT;
      ALTER TABLE assets ADD COLUMN country TEXT;
      -- Lightroom-style flag (P / X / U). A reject is written as XMP Rating -1.
      ALTER TABLE assets ADD COLUMN flag TEXT CHECK (flag IN ('pick', 'reject'));

      -- What the file holds for the managed fields, as last read from it or written into it:
      -- the common base of the three-way merge when the file is changed by another program.
      CREATE TABLE file_state (
        asset_id INTEGER PRIMARY KEY REFERENCES assets(id) ON DELETE CASCADE,
        -- JSON of the managed fields (keywords, caption, title, rating, rejected, headline, ...).
        fields TEXT,
        status TEXT NOT NULL CHECK (status IN ('read', 'written', 'failed')),
        -- Why the last write failed, in words for the user.
        error TEXT,
        -- JSON list of fields changed both in the file and in the library, for the user to resolve.
        conflicts TEXT,
        checked_at INTEGER NOT NULL,
        written_at INTEGER
      ) STRICT;
      CREATE INDEX file_state_status ON file_state (status);
    `,
  },
  {
    version: 5,
    name: 'keywording and captioning runs',
    // AI results land as suggestions with their provenance (which run, which parameters,
    // when) and are reviewed before they touch an asset; accepting goes through the edit log
    // under the run's batch id, so a whole run can be reverted (workflows/).
    sql: /* sql */ `
      CREATE TABLE ai_runs (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('keywords', 'caption')),
        -- JSON of the request parameters as the user chose them (lang, num_keywords, caption_len, ...).
        params TEXT NOT NULL,
        -- Canonical JSON of the service parameters: "already done with the same parameters".
        params_key TEXT NOT NULL,
        lang TEXT,
        created_at INTEGER NOT NULL,
        -- The queue's job_batches.id; also edits.batch_id of every edit the run's acceptances made.
        batch_id TEXT NOT NULL UNIQUE,
        status TEXT NOT NULL CHECK (status IN ('running', 'done', 'reverted')),
        reverted_at INTEGER
      ) STRICT;

      -- One asset of a run: its queue job and what became of it.
      CREATE TABLE ai_run_assets (
        run_id INTEGER NOT NULL REFERENCES ai_runs(id) ON DELETE CASCADE,
        asset_id INTEGER NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
        job_id INTEGER,
        -- The hash the analysis was keyed by: a changed picture is not "already done".
        content_hash TEXT,
        state TEXT NOT NULL CHECK (state IN ('queued', 'done', 'failed', 'cancelled')),
        error TEXT,
        -- Image keywording with colors=true: the colours as the service sent them (JSON).
        colors TEXT,
        finished_at INTEGER,
        PRIMARY KEY (run_id, asset_id)
      ) STRICT;
      CREATE INDEX ai_run_assets_job ON ai_run_assets (job_id);
      CREATE INDEX ai_run_assets_asset ON ai_run_assets (asset_id, state);

      CREATE TABLE suggestions (
        id INTEGER PRIMARY KEY,
        asset_id INTEGER NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
        run_id INTEGER NOT NULL REFERENCES ai_runs(id) ON DELETE CASCADE,
        -- NFC, whitespace collapsed, casing resolved against the library vocabulary.
        keyword TEXT NOT NULL,
        -- As the service sent it.
        raw TEXT NOT NULL,
        lang TEXT NOT NULL,
        score REAL NOT NULL,
        -- Place in the service's answer (0 = first).
        position INTEGER NOT NULL,
        state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'accepted', 'rejected')),
        decided_at INTEGER,
        UNIQUE (run_id, asset_id, keyword)
      ) STRICT;
      CREATE INDEX suggestions_asset ON suggestions (asset_id, state, score DESC);
      CREATE INDEX suggestions_run ON suggestions (run_id, state);

      CREATE TABLE caption_suggestions (
        id INTEGER PRIMARY KEY,
        asset_id INTEGER NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
        run_id INTEGER NOT NULL REFERENCES ai_runs(id) ON DELETE CASCADE,
        -- The text to accept: the service's caption, or the user's edit of it.
        text TEXT NOT NULL,
        raw TEXT NOT NULL,
        caption_len TEXT NOT NULL,
        state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'accepted', 'rejected')),
        -- Where an accepted caption went: the asset's caption or its title.
        accepted_as TEXT CHECK (accepted_as IN ('caption', 'title')),
        decided_at INTEGER,
        UNIQUE (run_id, asset_id)
      ) STRICT;
      CREATE INDEX caption_suggestions_asset ON caption_suggestions (asset_id, state);

      -- Keyword hygiene settings: exclude list, required keywords, limit, casing (JSON values).
      CREATE TABLE keyword_settings (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
      ) STRICT;

      CREATE INDEX edits_batch ON edits (batch_id) WHERE batch_id IS NOT NULL;
      CREATE INDEX edit_changes_asset ON edit_changes (asset_id, field);
    `,
  },
  {
    version: 6,
    name: 'media hash',
    // The hash of a file's content without its metadata (media-hash.ts): the service's
    // result cache is keyed by it, so writing keywords into a file never makes the next
    // analysis of the same picture billable again. Filled by the next scan of each file.
    sql: /* sql */ `
      ALTER TABLE assets ADD COLUMN media_hash TEXT;
      CREATE INDEX assets_media_hash ON assets (media_hash);
    `,
  },
  {
    version: 7,
    name: 'quality, faces and colours',
    // What the service measured, per asset, with provenance (run, parameters, when). One row
    // per asset and measurement (the latest wins); faces and colours one row each. Runs are
    // keyed by the media hash like keywording, so re-measuring a duplicate costs nothing.
    sql: /* sql */ `
      CREATE TABLE analysis_runs (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('quality', 'qualityUgc', 'faces', 'colors')),
        -- JSON of the options as the user chose them (numColors, ...).
        params TEXT NOT NULL,
        params_key TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        -- The queue's job_batches.id.
        batch_id TEXT NOT NULL UNIQUE,
        status TEXT NOT NULL CHECK (status IN ('running', 'done'))
      ) STRICT;

      CREATE TABLE analysis_run_assets (
        run_id INTEGER NOT NULL REFERENCES analysis_runs(id) ON DELETE CASCADE,
        asset_id INTEGER NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
        job_id INTEGER,
        content_hash TEXT,
        -- Faces: the size of the uploaded derivative (EXIF-rotated, ~300 px short side) the
        -- service's pixel boxes refer to; known before the upload.
        derivative_width INTEGER,
        derivative_height INTEGER,
        state TEXT NOT NULL CHECK (state IN ('queued', 'done', 'failed', 'cancelled')),
        error TEXT,
        finished_at INTEGER,
        PRIMARY KEY (run_id, asset_id)
      ) STRICT;
      CREATE INDEX analysis_run_assets_job ON analysis_run_assets (job_id);
      CREATE INDEX analysis_run_assets_asset ON analysis_run_assets (asset_id, state);

      CREATE TABLE asset_quality (
        asset_id INTEGER PRIMARY KEY REFERENCES assets(id) ON DELETE CASCADE,
        score REAL NOT NULL,
        run_id INTEGER REFERENCES analysis_runs(id) ON DELETE SET NULL,
        params TEXT NOT NULL,
        measured_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX asset_quality_score ON asset_quality (score, asset_id);

      CREATE TABLE asset_ugc_quality (
        asset_id INTEGER PRIMARY KEY REFERENCES assets(id) ON DELETE CASCADE,
        score REAL NOT NULL,
        class INTEGER NOT NULL CHECK (class BETWEEN 1 AND 5),
        run_id INTEGER REFERENCES analysis_runs(id) ON DELETE SET NULL,
        params TEXT NOT NULL,
        measured_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX asset_ugc_quality_score ON asset_ugc_quality (score, asset_id);
      CREATE INDEX asset_ugc_quality_class ON asset_ugc_quality (class, asset_id);

      -- One row per asset whose faces were looked for (zero faces is a result too).
      CREATE TABLE asset_face_scans (
        asset_id INTEGER PRIMARY KEY REFERENCES assets(id) ON DELETE CASCADE,
        face_count INTEGER NOT NULL,
        min_age REAL,
        max_age REAL,
        -- A model release is likely needed when a person is in the picture.
        release_needed INTEGER NOT NULL GENERATED ALWAYS AS (face_count > 0) STORED,
        derivative_width INTEGER NOT NULL,
        derivative_height INTEGER NOT NULL,
        run_id INTEGER REFERENCES analysis_runs(id) ON DELETE SET NULL,
        params TEXT NOT NULL,
        measured_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX asset_face_scans_count ON asset_face_scans (face_count, asset_id);
      CREATE INDEX asset_face_scans_min_age ON asset_face_scans (min_age, asset_id);
      CREATE INDEX asset_face_scans_release ON asset_face_scans (release_needed, asset_id);

      -- Boxes normalised 0..1 to the displayed (EXIF-rotated) picture.
      CREATE TABLE asset_faces (
        asset_id INTEGER NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        age REAL NOT NULL,
        score REAL NOT NULL,
        class TEXT NOT NULL,
        x0 REAL NOT NULL,
        y0 REAL NOT NULL,
        x1 REAL NOT NULL,
        y1 REAL NOT NULL,
        PRIMARY KEY (asset_id, position)
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX asset_faces_age ON asset_faces (age, asset_id);

      CREATE TABLE asset_color_scans (
        asset_id INTEGER PRIMARY KEY REFERENCES assets(id) ON DELETE CASCADE,
        run_id INTEGER REFERENCES analysis_runs(id) ON DELETE SET NULL,
        params TEXT NOT NULL,
        measured_at INTEGER NOT NULL
      ) STRICT;

      -- CIE L*a*b* (D65) beside the service's values, for perceptual matching in SQL.
      CREATE TABLE asset_colors (
        asset_id INTEGER NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        name TEXT NOT NULL,
        hex TEXT NOT NULL,
        r INTEGER NOT NULL,
        g INTEGER NOT NULL,
        b INTEGER NOT NULL,
        -- As the service sent it (0..100), and as a share of the picture (0..1).
        percentage REAL NOT NULL,
        share REAL NOT NULL,
        lab_l REAL NOT NULL,
        lab_a REAL NOT NULL,
        lab_b REAL NOT NULL,
        PRIMARY KEY (asset_id, position)
      ) STRICT, WITHOUT ROWID;

      CREATE INDEX assets_live_flag ON assets (removed_at, flag, taken_at, id);

      -- Picks and rejects are logged in edit_changes under field 'flag'; undo (library/edits.ts)
      -- marks the edit undone, and this puts the flags back as they were.
      CREATE TRIGGER edits_undo_flag AFTER UPDATE OF undone ON edits WHEN new.undone = 1 AND old.undone = 0 BEGIN
        UPDATE assets SET flag = (
          SELECT json_extract(c.old_value, '$') FROM edit_changes c WHERE c.edit_id = new.id AND c.asset_id = assets.id AND c.field = 'flag'
        ) WHERE id IN (SELECT asset_id FROM edit_changes WHERE edit_id = new.id AND field = 'flag');
      END;
    `,
  },
  {
    version: 8,
    name: 'creative tasks and voices',
    // Creative work (speech, lipsync, generation, editing, face swap): one row per request the
    // user made, one part per billed service task (a long text split for TTS makes several),
    // mirrored from the queue's jobs so progress, results and provenance survive restarts.
    // params never hold secrets: media are referenced as {assetId} or {path}.
    sql: /* sql */ `
      CREATE TABLE tts_voices (
        api_name TEXT PRIMARY KEY,
        language TEXT NOT NULL,
        gender TEXT NOT NULL,
        age TEXT NOT NULL,
        fetched_at INTEGER NOT NULL
      ) STRICT;

      CREATE TABLE creative_tasks (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('speech', 'videoLipsync', 'imageLipsync', 'generate', 'edit', 'faceSwap')),
        endpoint TEXT NOT NULL,
        params TEXT NOT NULL,
        source_asset_ids TEXT NOT NULL DEFAULT '[]',
        status TEXT NOT NULL,
        error TEXT,
        created_at INTEGER NOT NULL,
        started_at INTEGER,
        finished_at INTEGER,
        result_path TEXT,
        result_asset_id INTEGER REFERENCES assets(id) ON DELETE SET NULL,
        retry_of INTEGER REFERENCES creative_tasks(id) ON DELETE SET NULL
      ) STRICT;
      CREATE INDEX creative_tasks_created ON creative_tasks (created_at);
      CREATE INDEX creative_tasks_asset ON creative_tasks (result_asset_id);

      CREATE TABLE creative_task_parts (
        task_id INTEGER NOT NULL REFERENCES creative_tasks(id) ON DELETE CASCADE,
        part INTEGER NOT NULL,
        -- The queue's jobs.id (a retry points it at the new job).
        job_id INTEGER,
        remote_task_id TEXT,
        remote_status TEXT,
        queue INTEGER,
        eta REAL,
        result_url TEXT,
        -- The downloaded file, before it joins the others and moves into the creations folder.
        file TEXT,
        PRIMARY KEY (task_id, part)
      ) STRICT;
      CREATE INDEX creative_task_parts_job ON creative_task_parts (job_id);

      CREATE TABLE creative_settings (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 9,
    name: 'metadata presets',
    // Named sets of stock and rights fields (IPTC Core / XMP) a user applies to a selection.
    sql: /* sql */ `
      CREATE TABLE metadata_presets (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE COLLATE NOCASE,
        -- JSON object of the rights fields the preset sets (headline, creator, copyright, credit, city, country).
        fields TEXT NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 10,
    name: 'capture-date order in one index',
    // The timeline orders by (taken_at, name, id). Without name in the index, listing a whole
    // result in that order (select all, a deep page) sorted each run of equal dates in a temp
    // B-tree and read every row from the table: seconds at a million assets. With it, the
    // walk is index-only. The old index is its prefix, so it goes.
    sql: /* sql */ `
      DROP INDEX assets_live_taken;
      CREATE INDEX assets_live_taken ON assets (removed_at, taken_at, name, id);
    `,
  },
];
