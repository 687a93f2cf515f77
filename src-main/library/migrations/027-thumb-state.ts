import type { Migration } from './migration';

export const migration: Migration = {
  version: 27,
  name: 'thumb state',
  // Issue 18 part 2: a new file shows in the grid as soon as its metadata is read, with the
  // preview its file already holds (a JPEG's EXIF thumbnail, a RAW/DNG's embedded preview,
  // HEIC's thumbnail item); the full thumbnail is made afterwards in the background.
  // thumb_state says which picture assets.thumb is:
  //   'full'    the grid thumbnail made from the picture itself (every thumbnail before this),
  //   'preview' the file's embedded preview, its full thumbnail still to be made,
  //   'pending' no picture yet, its full thumbnail still to be made,
  //   NULL      nothing to make (audio; or no thumbnail could be made, see scan_errors).
  // Rows left 'preview' or 'pending' by a stopped scan are finished by the next one.
  sql: /* sql */ `
      ALTER TABLE assets ADD COLUMN thumb_state TEXT CHECK (thumb_state IN ('full', 'preview', 'pending'));
      UPDATE assets SET thumb_state = 'full' WHERE thumb IS NOT NULL;
      CREATE INDEX assets_thumb_owed ON assets (folder_id) WHERE thumb_state IN ('preview', 'pending');
    `,
};
