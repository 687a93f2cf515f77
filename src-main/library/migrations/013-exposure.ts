import type { Migration } from './migration';

export const migration: Migration = {
  version: 13,
  name: 'exposure',
  // How each photo was exposed, as the reader gives it (units exiftool prints): aperture
  // (F-number), shutter ('1/250', '2.5'), ISO, focal length and its 35 mm equivalent (mm),
  // exposure compensation (EV), flash fired (0/1). NULL where the file does not record it.
  // exposure_read = 0 marks the pictures catalogued before: the next scan reads their
  // metadata again (and nothing else: no hash, no thumbnail) to fill these columns in.
  // Ranges are filtered by the catalogue index in the app; these indexes serve the SQL path
  // (the CLI), where a range is selective.
  sql: /* sql */ `
      ALTER TABLE assets ADD COLUMN aperture REAL;
      ALTER TABLE assets ADD COLUMN shutter TEXT;
      ALTER TABLE assets ADD COLUMN iso REAL;
      ALTER TABLE assets ADD COLUMN focal_length REAL;
      ALTER TABLE assets ADD COLUMN focal_length_35 REAL;
      ALTER TABLE assets ADD COLUMN exposure_bias REAL;
      ALTER TABLE assets ADD COLUMN flash INTEGER CHECK (flash IN (0, 1));
      ALTER TABLE assets ADD COLUMN exposure_read INTEGER NOT NULL DEFAULT 0 CHECK (exposure_read IN (0, 1));
      UPDATE assets SET exposure_read = 1 WHERE kind <> 'image';
      CREATE INDEX assets_iso ON assets (iso) WHERE iso IS NOT NULL;
      CREATE INDEX assets_focal_length ON assets (focal_length) WHERE focal_length IS NOT NULL;
      CREATE INDEX assets_aperture ON assets (aperture) WHERE aperture IS NOT NULL;
    `,
};
