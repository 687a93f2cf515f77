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
