import type { Migration } from './migration';

export const migration: Migration = {
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
};
