import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

// Settings of the app rather than of the catalogue (how many backups to keep, tool paths, the
// window and the views as the user left them): a small JSON file beside the catalogue, so that
// restoring a catalogue backup does not roll them back, and the CLI reads the same values.
// Written whole through a temp file and a rename: a crash leaves the old file or the new one.

export interface WindowBounds {
  x?: number;
  y?: number;
  width: number;
  height: number;
  maximized?: boolean;
}

export interface AppSettings {
  /** Catalogue backups kept beside the catalogue (oldest removed first). */
  backupKeep: number;
  /** Paths set in Settings › System; absent: found automatically. */
  toolPaths: { ffmpeg?: string; ffprobe?: string };
  window: WindowBounds | null;
  /** The renderer's view state (last view, sort, thumbnail size, panel widths, filters), as it sends it. */
  viewState: Record<string, unknown>;
}

export const DEFAULT_SETTINGS: AppSettings = { backupKeep: 7, toolPaths: {}, window: null, viewState: {} };

export const settingsFile = (dataDir: string): string => join(dataDir, 'settings.json');

export function readAppSettings(dataDir: string): AppSettings {
  try {
    const raw = JSON.parse(readFileSync(settingsFile(dataDir), 'utf8')) as Partial<AppSettings>;
    const keep = Number(raw.backupKeep);
    return {
      backupKeep: Number.isInteger(keep) && keep >= 1 && keep <= 365 ? keep : DEFAULT_SETTINGS.backupKeep,
      toolPaths: raw.toolPaths && typeof raw.toolPaths === 'object' ? raw.toolPaths : {},
      window: raw.window && typeof raw.window === 'object' ? raw.window : null,
      viewState: raw.viewState && typeof raw.viewState === 'object' ? raw.viewState : {},
    };
  } catch {
    // Missing (first run) or unreadable: the defaults; the next write replaces it.
    return { ...DEFAULT_SETTINGS, toolPaths: {}, viewState: {} };
  }
}

export function updateAppSettings(dataDir: string, change: Partial<AppSettings>): AppSettings {
  const next = { ...readAppSettings(dataDir), ...change };
  const file = settingsFile(dataDir);
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(next, null, 2));
  renameSync(tmp, file);
  return next;
}
