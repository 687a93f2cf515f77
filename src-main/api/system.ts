import { statSync } from 'node:fs';
import type { Api, BackupView, SystemReport, SystemSettings } from '../../src-preload/contract';
import { readAppSettings, updateAppSettings } from '../core/app-settings';
import { log } from '../core/log';
import { checkTools, setToolPaths } from '../core/tools';
import { backupCatalogue, listBackups, pruneBackups, requestRestore } from '../library/backup';
import type { LibraryCtx } from '../library/context';
import { catalogueIntegrity } from '../library/integrity';
import { liveTotal } from '../search/tallies';
import { ApiError } from '../core/errors';
import type { ServiceHost } from './service';

// The health check behind `tagsmith doctor` and Settings › System (the outside tools, the
// catalogue's size and SQLite's quick_check, the service in use), the app's own settings, and
// the catalogue backups of Settings › Library.

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

export async function systemReport(ctx: LibraryCtx, service: ServiceHost): Promise<SystemReport> {
  // Read before the checks run (seconds at a million photos): the window may close meanwhile.
  const assets = liveTotal(ctx) ?? ctx.db.prepare<[], { n: number }>('SELECT count(*) AS n FROM assets WHERE removed_at IS NULL').get()!.n;
  const [tools, settings, integrity] = await Promise.all([checkTools(), service.methods.serviceSettings(), catalogueIntegrity(ctx)]);
  const db = ctx.paths.dbFile;
  const source = settings.credentials.source;
  return {
    tools,
    library: {
      path: ctx.paths.dataDir,
      sizeBytes: fileSize(db) + fileSize(`${db}-wal`),
      assets,
      integrity,
    },
    // Credentials held for this session only (no keychain) are not stored anywhere: 'none'.
    service: { url: settings.baseUrl, credentials: source === 'keychain' || source === 'env' ? source : 'none' },
  };
}

/** Apply the tool paths the user set (the app and the CLI call this at start). */
export function applyToolSettings(dataDir: string): void {
  const { ffmpeg, ffprobe } = readAppSettings(dataDir).toolPaths;
  // Both named: a path the user removed is forgotten here too.
  setToolPaths({ ffmpeg: ffmpeg ?? null, ffprobe: ffprobe ?? null });
}

export interface SystemOptions {
  /** Restart the app (Electron); absent elsewhere. */
  relaunch?: () => void;
}

type SystemMethods = Pick<
  Api,
  'systemStatus' | 'systemSettings' | 'setSystemSettings' | 'listBackups' | 'backupNow' | 'restoreBackup' | 'reportError' | 'getViewState' | 'setViewState'
>;

export function systemMethods(ctx: LibraryCtx, service: ServiceHost, opts: SystemOptions = {}): SystemMethods {
  const dataDir = ctx.paths.dataDir;
  const settingsView = (): SystemSettings => {
    const s = readAppSettings(dataDir);
    return { backupKeep: s.backupKeep, toolPaths: s.toolPaths };
  };
  applyToolSettings(dataDir);
  return {
    async systemStatus() {
      return systemReport(ctx, service);
    },
    async systemSettings() {
      return settingsView();
    },
    async setSystemSettings({ backupKeep, toolPaths }) {
      const current = readAppSettings(dataDir);
      const paths = { ...current.toolPaths };
      for (const name of ['ffmpeg', 'ffprobe'] as const) {
        const v = toolPaths?.[name];
        if (v === null || v === '') delete paths[name];
        else if (v !== undefined) paths[name] = v;
      }
      updateAppSettings(dataDir, { backupKeep: backupKeep ?? current.backupKeep, toolPaths: paths });
      applyToolSettings(dataDir);
      if (backupKeep !== undefined) pruneBackups(dataDir, backupKeep);
      return settingsView();
    },
    async listBackups() {
      return listBackups(dataDir);
    },
    async backupNow(): Promise<BackupView> {
      const made = await backupCatalogue(ctx.db, dataDir, 'manual');
      return listBackups(dataDir).find((b) => b.path === made.path) ?? { ...made, createdAt: new Date().toISOString(), reason: 'manual' };
    },
    async restoreBackup({ path }) {
      // Only a backup this library lists: the renderer never names an arbitrary file.
      const backup = listBackups(dataDir).find((b) => b.path === path);
      if (!backup) throw new ApiError('not_found', 'That backup is no longer there. The list was refreshed.');
      requestRestore(dataDir, backup.path);
      if (opts.relaunch) {
        opts.relaunch();
        return { restartRequired: false };
      }
      return { restartRequired: true };
    },
    async reportError({ message, stack, where }) {
      log.error(`renderer${where ? ` (${where})` : ''}: ${message}${stack ? `\n${stack}` : ''}`);
    },
    async getViewState() {
      return readAppSettings(dataDir).viewState;
    },
    async setViewState({ state }) {
      updateAppSettings(dataDir, { viewState: { ...readAppSettings(dataDir).viewState, ...state } });
    },
  };
}
