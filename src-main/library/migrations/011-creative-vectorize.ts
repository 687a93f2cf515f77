import type { Migration } from './migration';

export const migration: Migration = {
  version: 11,
  name: 'creative vectorize',
  // Image vectorize (raster -> SVG) becomes a creative kind of its own (issue 15); video face
  // swap stays kind 'faceSwap' with endpoint 'videoFaceSwap'. SQLite cannot change a CHECK, so
  // creative_tasks is rebuilt. Its parts reference it with ON DELETE CASCADE and foreign keys
  // cannot be switched off inside the migration's transaction, so the parts are set aside
  // first and put back afterwards: no row of either table is lost.
  sql: /* sql */ `
      CREATE TEMP TABLE creative_task_parts_kept AS SELECT * FROM creative_task_parts;
      DROP TABLE creative_task_parts;

      CREATE TABLE creative_tasks_new (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('speech', 'videoLipsync', 'imageLipsync', 'generate', 'edit', 'faceSwap', 'vectorize')),
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
        retry_of INTEGER REFERENCES creative_tasks_new(id) ON DELETE SET NULL
      ) STRICT;
      INSERT INTO creative_tasks_new SELECT * FROM creative_tasks;
      DROP TABLE creative_tasks;
      ALTER TABLE creative_tasks_new RENAME TO creative_tasks;
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
      INSERT INTO creative_task_parts SELECT * FROM creative_task_parts_kept;
      DROP TABLE creative_task_parts_kept;
    `,
};
