// Numbered migrations, one file each (NNN-name.ts). Never edit one once released: add the
// next number as a new file and list it here. Each runs in its own transaction and bumps
// PRAGMA user_version.

import type { Migration } from './migration';
import { migration as m001 } from './001-library';
import { migration as m002 } from './002-service-jobs';
import { migration as m003 } from './003-search-indexes';
import { migration as m004 } from './004-metadata-written-into-files';
import { migration as m005 } from './005-keywording-and-captioning-runs';
import { migration as m006 } from './006-media-hash';
import { migration as m007 } from './007-quality-faces-and-colours';
import { migration as m008 } from './008-creative-tasks-and-voices';
import { migration as m009 } from './009-metadata-presets';
import { migration as m010 } from './010-capture-date-order-in-one-index';
import { migration as m011 } from './011-creative-vectorize';
import { migration as m012 } from './012-creative-deadlines';
import { migration as m013 } from './013-exposure';
import { migration as m014 } from './014-metadata-block-disagreement';
import { migration as m015 } from './015-agency-fields';
import { migration as m016 } from './016-keyword-vocabulary';
import { migration as m017 } from './017-similarity-fingerprints';
import { migration as m018 } from './018-collections';
import { migration as m019 } from './019-keyword-casing-by-language';
import { migration as m020 } from './020-per-group-runs';
import { migration as m021 } from './021-metadata-template-fields';
import { migration as m022 } from './022-rename-journal';
import { migration as m023 } from './023-upload-records';
import { migration as m024 } from './024-similar-groups';
import { migration as m025 } from './025-upload-host-keys';
import { migration as m026 } from './026-similar-groups-quality';
import { migration as m027 } from './027-thumb-state';
import { migration as m028 } from './028-library-undo';
import { migration as m029 } from './029-staged-job-batches';
import { migration as m030 } from './030-staged-runs';
import { migration as m031 } from './031-undo-in-steps';
import { migration as m032 } from './032-rename-journal-shots';
import { migration as m033 } from './033-folders-removed-in-steps';
import { migration as m034 } from './034-change-log';
import { migration as m035 } from './035-change-log-by-asset';
import { migration as m036 } from './036-studio-ids';
import { migration as m037 } from './037-change-log-by-op';

export type { Migration } from './migration';

export const migrations: Migration[] = [
  m001,
  m002,
  m003,
  m004,
  m005,
  m006,
  m007,
  m008,
  m009,
  m010,
  m011,
  m012,
  m013,
  m014,
  m015,
  m016,
  m017,
  m018,
  m019,
  m020,
  m021,
  m022,
  m023,
  m024,
  m025,
  m026,
  m027,
  m028,
  m029,
  m030,
  m031,
  m032,
  m033,
  m034,
  m035,
  m036,
  m037,
];
