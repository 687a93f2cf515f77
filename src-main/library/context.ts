import { mkdirSync } from 'node:fs';
import { ApiEventBus } from '../core/events';
import { libraryPaths, type LibraryPaths } from '../core/paths';
import { openDb, type Db } from './db';
import { recoverRenames } from './rename-journal';

/** Everything the library's modules need: the catalogue, where files go, and the event stream. */
export interface LibraryCtx {
  db: Db;
  paths: LibraryPaths;
  events: ApiEventBus;
}

export function openLibrary(dataDir: string, opts: { nativeBinding?: string } = {}): LibraryCtx {
  const paths = libraryPaths(dataDir);
  mkdirSync(paths.thumbsDir, { recursive: true });
  mkdirSync(paths.previewsDir, { recursive: true });
  const db = openDb(paths.dbFile, { nativeBinding: opts.nativeBinding });
  const ctx = { db, paths, events: new ApiEventBus() };
  try {
    // A batch rename cut short by a crash is finished or rolled back before anything reads paths.
    recoverRenames(ctx);
  } catch (err) {
    // A catalogue SQLite cannot read is not left open: recover.ts may restore a backup over it.
    db.close();
    throw err;
  }
  return ctx;
}
