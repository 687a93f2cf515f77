import type { Migration } from './migration';

export const migration: Migration = {
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
};
