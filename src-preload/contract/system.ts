// Settings › System and `tagsmith doctor`: the outside tools, the catalogue's health, the service in use.

export type ToolName = 'ffmpeg' | 'ffprobe' | 'exiftool' | 'perl';

export interface ToolStatus {
  /** The executable's name. */
  name: ToolName;
  ok: boolean;
  /** The version string the tool reports; null when it is missing or does not run. */
  version: string | null;
  path: string | null;
  /** Where it came from: a path set in Settings, TAGSMITH_FFMPEG/TAGSMITH_FFPROBE, the copy shipped with the app, or PATH. */
  source: 'setting' | 'env' | 'bundled' | 'path' | null;
  /** What does not work without it. */
  impact: string;
}

/** `tagsmith doctor --json` and Settings › System. */
export interface SystemReport {
  tools: ToolStatus[];
  library: { path: string; sizeBytes: number; assets: number; integrity: string };
  service: { url: string; credentials: 'keychain' | 'env' | 'none' };
}

export interface SystemApi {
  /** Every outside tool (found or not, version, where from, impact), the catalogue's health, the service. */
  systemStatus(): Promise<SystemReport>;
}

/** A catalogue backup as `tagsmith backups --json` lists it. */
export interface BackupView {
  path: string;
  /** ISO 8601, UTC. */
  createdAt: string;
  bytes: number;
  reason: 'manual' | 'daily' | 'migration' | 'before-restore' | 'damaged';
}

export interface SystemSettings {
  /** How many catalogue backups are kept beside the catalogue (default 7). */
  backupKeep: number;
  /** Paths set by the user; a tool without one is found automatically (Settings › System). */
  toolPaths: { ffmpeg?: string; ffprobe?: string };
}

export interface SystemApi {
  systemSettings(): Promise<SystemSettings>;
  setSystemSettings(args: { backupKeep?: number; toolPaths?: { ffmpeg?: string | null; ffprobe?: string | null } }): Promise<SystemSettings>;
  /** Backups, newest first. */
  listBackups(): Promise<BackupView[]>;
  /** Back the catalogue up now. */
  backupNow(): Promise<BackupView>;
  /**
   * Restore a listed backup. The catalogue cannot be swapped under the running app: the restore
   * happens as the app starts again (it restarts itself when it can; `restartRequired` says so).
   */
  restoreBackup(args: { path: string }): Promise<{ restartRequired: boolean }>;
  /** A renderer error (an error boundary, window.onerror, an unhandled rejection), written to the app's log. */
  reportError(args: { message: string; stack?: string; where?: string }): Promise<void>;
  /** The renderer's view state as it was left (last view, sort, thumbnail size, panel widths, filters). */
  getViewState(): Promise<Record<string, unknown>>;
  /** Merged into the stored view state (keys given replace theirs). */
  setViewState(args: { state: Record<string, unknown> }): Promise<void>;
}
