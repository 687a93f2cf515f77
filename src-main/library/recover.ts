import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { log } from '../core/log';
import { libraryPaths } from '../core/paths';
import { checkWithBackup, lastSession, restoreCatalogue, type BackupInfo, type FileCheck, type RestoreResult } from './backup';
import { openLibrary, type LibraryCtx } from './context';
import { openReadOnly } from './db';
import { checkInWorker } from './integrity';
import { migrations } from './migrations';

// Opening the catalogue the way the app does. SQLite's quick_check reads every page (4-6 s at
// a million photos), so it runs in a worker thread (integrity.ts) and comes before the open
// only when damage is likely or would be carried forward: the last session did not end
// cleanly (a crash or a power loss), the catalogue is about to be upgraded, or SQLite refuses
// to open it. A damaged catalogue then offers the newest backup that passes the same check
// instead of failing. Otherwise the library opens at once and the same check runs after, in
// the background, for the app to tell the user what it finds.

export interface CheckedOpenOptions {
  nativeBinding?: string;
  /** Asked when the catalogue is damaged and a good backup exists: true restores it. */
  onDamaged(problem: string, backup: BackupInfo): Promise<boolean> | boolean;
}

export interface CheckedLibrary {
  ctx: LibraryCtx;
  restored: RestoreResult | null;
  /**
   * The check running after the open (null: it came before, or there was no catalogue yet); a
   * damaged catalogue comes with the newest good backup. Rejects when the worker fails.
   */
  background: Promise<FileCheck> | null;
}

export class DamagedCatalogueError extends Error {
  override readonly name = 'DamagedCatalogueError';
}

const LATEST = Math.max(0, ...migrations.map((m) => m.version));

export async function openCheckedLibrary(dataDir: string, opts: CheckedOpenOptions): Promise<CheckedLibrary> {
  const { dbFile } = libraryPaths(dataDir);
  const { nativeBinding } = opts;
  const open = (restored: RestoreResult | null): CheckedLibrary => ({ ctx: openLibrary(dataDir, { nativeBinding }), restored, background: null });
  if (!existsSync(dbFile)) return open(null);
  const because = checkFirstBecause(dataDir, dbFile, nativeBinding);
  if (because) {
    log.info(`checking the catalogue before opening it: ${because}`);
    return open(await recoverIfDamaged(dataDir, opts));
  }
  let ctx: LibraryCtx;
  try {
    ctx = openLibrary(dataDir, { nativeBinding });
  } catch (err) {
    // SQLite's own refusal (a malformed page, not a database): the check says whether it is damage.
    if (!(err instanceof Database.SqliteError)) throw err;
    const restored = await recoverIfDamaged(dataDir, opts);
    if (!restored) throw err;
    return open(restored);
  }
  return { ctx, restored: null, background: checkInWorker(dbFile, { nativeBinding, backupsOf: dataDir }) };
}

/** Why the check must come before the open, or null when it can run after it. */
function checkFirstBecause(dataDir: string, dbFile: string, nativeBinding?: string): string | null {
  if (lastSession(dataDir) === 'crashed') return 'the last session did not end cleanly';
  try {
    const db = openReadOnly(dbFile, nativeBinding);
    try {
      // Its migrations would rewrite a damaged file, and the copy made before them would be damaged too.
      if ((db.pragma('user_version', { simple: true }) as number) < LATEST) return 'it is about to be upgraded';
    } finally {
      db.close();
    }
  } catch (err) {
    return `it could not be read (${(err as Error).message})`;
  }
  return null;
}

/** The check before the open: a damaged catalogue is replaced by its newest good backup when the user agrees. */
async function recoverIfDamaged(dataDir: string, opts: CheckedOpenOptions): Promise<RestoreResult | null> {
  const { dbFile } = libraryPaths(dataDir);
  const request = { nativeBinding: opts.nativeBinding, backupsOf: dataDir };
  const { check, backup } = await checkInWorker(dbFile, request).catch((err: unknown) => {
    // This check cannot be skipped: without its worker it runs here.
    log.error('the catalogue check worker failed; checking on the main thread', err);
    return checkWithBackup(dbFile, request);
  });
  if (check.ok) return null;
  if (!backup) {
    throw new DamagedCatalogueError(`The catalogue ${dbFile} is damaged (${check.problem}) and there is no backup to restore.`);
  }
  if (!(await opts.onDamaged(check.problem, backup))) {
    throw new DamagedCatalogueError(`The catalogue ${dbFile} is damaged (${check.problem}); it was left as it is.`);
  }
  return restoreCatalogue(dataDir, backup.path, { nativeBinding: opts.nativeBinding });
}
