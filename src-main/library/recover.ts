import { existsSync } from 'node:fs';
import { libraryPaths } from '../core/paths';
import { checkCatalogueFile, latestGoodBackup, restoreCatalogue, type BackupInfo, type RestoreResult } from './backup';
import { openLibrary, type LibraryCtx } from './context';

// Opening the catalogue the way the app does: SQLite's quick_check first, and a damaged
// catalogue offers the newest backup that passes the same check instead of failing.

export interface CheckedOpenOptions {
  nativeBinding?: string;
  /** Asked when the catalogue is damaged and a good backup exists: true restores it. */
  onDamaged(problem: string, backup: BackupInfo): Promise<boolean> | boolean;
}

export class DamagedCatalogueError extends Error {
  override readonly name = 'DamagedCatalogueError';
}

export async function openCheckedLibrary(dataDir: string, opts: CheckedOpenOptions): Promise<{ ctx: LibraryCtx; restored: RestoreResult | null }> {
  const { dbFile } = libraryPaths(dataDir);
  let restored: RestoreResult | null = null;
  if (existsSync(dbFile)) {
    const check = checkCatalogueFile(dbFile, opts.nativeBinding);
    if (!check.ok) {
      const backup = latestGoodBackup(dataDir, opts.nativeBinding);
      if (!backup) {
        throw new DamagedCatalogueError(`The catalogue ${dbFile} is damaged (${check.problem}) and there is no backup to restore.`);
      }
      if (!(await opts.onDamaged(check.problem, backup))) {
        throw new DamagedCatalogueError(`The catalogue ${dbFile} is damaged (${check.problem}); it was left as it is.`);
      }
      restored = restoreCatalogue(dataDir, backup.path, { nativeBinding: opts.nativeBinding });
    }
  }
  return { ctx: openLibrary(dataDir, { nativeBinding: opts.nativeBinding }), restored };
}
