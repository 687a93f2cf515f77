import type { Migration } from './migration';

export const migration: Migration = {
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
};
