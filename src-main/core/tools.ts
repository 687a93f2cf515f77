import { runProcess, type ProcessFailure } from './tool-runner';
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join, sep } from 'node:path';

// The outside programs Tagsmith runs (ffmpeg, ffprobe, and perl for exiftool), found through
// one door so that every spawn site uses the same binary and a missing one is named as missing.
//
// Order: an explicit setting, then TAGSMITH_FFMPEG / TAGSMITH_FFPROBE, then the binary that
// travels with the app (the @ffmpeg-installer / @ffprobe-installer per-platform packages, which
// carry it inside the npm package: no download at install), then PATH. On macOS an app started
// from Finder gets launchd's PATH (/usr/bin:/bin:/usr/sbin:/sbin), so Homebrew's and MacPorts'
// directories are searched as well. In a packaged Electron app the binaries live in
// app.asar.unpacked (a program cannot be executed from inside the asar archive).

export type ToolName = 'ffmpeg' | 'ffprobe' | 'exiftool' | 'perl';
export type ToolSource = 'setting' | 'env' | 'bundled' | 'path';

export interface FoundTool {
  path: string;
  source: ToolSource;
}

/** What stops working without each tool, in words a photographer understands. */
export const TOOL_IMPACT: Record<ToolName, string> = {
  ffprobe: 'Videos and audio files cannot be read: no duration, size or thumbnail, and videos cannot be sent for keywording.',
  ffmpeg: 'No thumbnails for videos, no video keywording (the copy without metadata), and speech split into parts cannot be joined.',
  exiftool: 'RAW previews, XMP sidecars and metadata of videos and RAW files cannot be read, and keywords and captions cannot be written into files.',
  perl: 'exiftool needs perl: RAW previews, XMP sidecars and writing keywords and captions into files do not work.',
};

/** The sentence a scan or a run records when a tool is missing (never "the file may be damaged"). */
export function missingToolReason(tool: ToolName, what?: string): string {
  const whatFails: Record<ToolName, string> = {
    ffprobe: 'Videos cannot be read',
    ffmpeg: 'Video thumbnails cannot be made',
    exiftool: 'File metadata cannot be read',
    perl: 'File metadata cannot be read',
  };
  return `${what ?? whatFails[tool]}: ${tool} is not available — see Settings › System.`;
}

/** A tool that could not be found or started. */
export class ToolMissingError extends Error {
  constructor(readonly tool: ToolName) {
    super(missingToolReason(tool));
    this.name = 'ToolMissingError';
  }
}

export const isToolMissing = (e: unknown): e is ToolMissingError => e instanceof ToolMissingError;

// ------------------------------------------------------------------------------ discovery

const ENV_KEY: Partial<Record<ToolName, string>> = { ffmpeg: 'TAGSMITH_FFMPEG', ffprobe: 'TAGSMITH_FFPROBE' };

const settings: Partial<Record<ToolName, string>> = {};

/** Paths the user set in the app (Settings › System); null clears one. */
export function setToolPaths(paths: Partial<Record<ToolName, string | null>>): void {
  for (const [k, v] of Object.entries(paths) as [ToolName, string | null | undefined][]) {
    if (v) settings[k] = v;
    else delete settings[k];
  }
  cache.clear();
}

const exe = (name: string): string => (process.platform === 'win32' ? `${name}.exe` : name);

function isExecutable(p: string): boolean {
  try {
    if (!statSync(p).isFile()) return false;
    if (process.platform !== 'win32') accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** A path inside app.asar is run from app.asar.unpacked, where electron-builder's asarUnpack puts it. */
export function unpackedPath(p: string): string {
  const asar = `${sep}app.asar${sep}`;
  return p.includes(asar) ? p.replace(asar, `${sep}app.asar.unpacked${sep}`) : p;
}

/** The directories searched for a tool on PATH, plus the usual macOS package managers' ones. */
export function searchDirs(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string[] {
  const dirs = (env.PATH ?? env.Path ?? '').split(delimiter).filter(Boolean);
  if (platform === 'darwin') {
    for (const d of ['/opt/homebrew/bin', '/usr/local/bin', '/opt/local/bin']) if (!dirs.includes(d)) dirs.push(d);
  }
  return dirs;
}

export function findOnPath(name: string, env: NodeJS.ProcessEnv = process.env): string | null {
  for (const dir of searchDirs(env)) {
    const p = join(dir, exe(name));
    if (isExecutable(p)) return p;
  }
  return null;
}

const require = createRequire(import.meta.url);

/** The binary inside @ffmpeg-installer/<platform>-<arch> or @ffprobe-installer/<platform>-<arch>. */
export function bundledPath(name: 'ffmpeg' | 'ffprobe'): string | null {
  const pkg = `@${name}-installer/${process.platform}-${process.arch}`;
  try {
    const p = unpackedPath(join(dirname(require.resolve(`${pkg}/package.json`)), exe(name)));
    return isExecutable(p) ? p : null;
  } catch {
    return null; // no package for this platform (it is an optional dependency)
  }
}

const cache = new Map<ToolName, FoundTool | null>();

/** Forget what was found (tests, or after the user installed a tool). */
export function resetToolCache(): void {
  cache.clear();
}

function discover(name: ToolName): FoundTool | null {
  const set = settings[name];
  if (set) return isExecutable(set) ? { path: set, source: 'setting' } : null;
  const envKey = ENV_KEY[name];
  const fromEnv = envKey ? process.env[envKey] : undefined;
  if (fromEnv) {
    // A bare name ("ffmpeg") in the variable is looked up on PATH.
    if (!fromEnv.includes('/') && !fromEnv.includes('\\')) {
      const p = findOnPath(fromEnv);
      return p ? { path: p, source: 'env' } : null;
    }
    return isExecutable(fromEnv) ? { path: fromEnv, source: 'env' } : null;
  }
  if (name === 'ffmpeg' || name === 'ffprobe') {
    const b = bundledPath(name);
    if (b) return { path: b, source: 'bundled' };
  }
  if (name === 'exiftool') {
    const p = vendoredExiftool();
    if (p) return { path: p, source: 'bundled' };
  }
  const p = findOnPath(name) ?? (name === 'perl' ? systemPerl() : null);
  return p ? { path: p, source: 'path' } : null;
}

/** exiftool's shebang is #!/usr/bin/perl, which works whatever PATH says (exiftool-vendored uses it when it exists). */
function systemPerl(): string | null {
  return process.platform !== 'win32' && isExecutable('/usr/bin/perl') ? '/usr/bin/perl' : null;
}

/** A path the user set (Settings) or put in the environment, even one that is not there. */
function configured(name: ToolName): FoundTool | null {
  if (settings[name]) return { path: settings[name], source: 'setting' };
  const envKey = ENV_KEY[name];
  const fromEnv = envKey ? process.env[envKey] : undefined;
  return fromEnv ? { path: fromEnv, source: 'env' } : null;
}

/** Where a tool is, or null; remembered until resetToolCache/setToolPaths. */
export function locateTool(name: ToolName): FoundTool | null {
  if (!cache.has(name)) cache.set(name, discover(name));
  return cache.get(name) ?? null;
}

/** The tool's path, or ToolMissingError. */
export function toolPath(name: ToolName): string {
  const t = locateTool(name);
  if (!t) throw new ToolMissingError(name);
  return t.path;
}

/** exiftool-vendored's own exiftool (the Perl script on Linux/macOS, exiftool.exe on Windows). */
function vendoredExiftool(): string | null {
  const pkg = process.platform === 'win32' ? 'exiftool-vendored.exe' : 'exiftool-vendored.pl';
  try {
    const dir = dirname(require.resolve(`${pkg}/package.json`));
    const p = unpackedPath(join(dir, 'bin', process.platform === 'win32' ? 'exiftool.exe' : 'exiftool'));
    return existsSync(p) ? p : null;
  } catch {
    return null;
  }
}

/** exiftool on Linux and macOS is a Perl script: without perl it cannot start. */
export const exiftoolNeedsPerl = (): boolean => process.platform !== 'win32';

/**
 * Whether exiftool can run at all: its script is there and, where it needs perl, perl is found.
 * The metadata reader asks this before starting exiftool, so a missing perl is reported as such.
 */
export function exiftoolUsable(): ToolName | null {
  if (!locateTool('exiftool')) return 'exiftool';
  if (exiftoolNeedsPerl() && !locateTool('perl')) return 'perl';
  return null;
}

// ------------------------------------------------------------------------------ running

export interface RunOptions {
  timeoutMs: number;
  signal?: AbortSignal;
}

/** The tool's stdout; ToolMissingError when it is not there, the process error otherwise (with stderr). */
export async function runTool(name: ToolName, args: string[], opts: RunOptions): Promise<Buffer> {
  try {
    return await runProcess(toolPath(name), args, { timeoutMs: opts.timeoutMs, signal: opts.signal });
  } catch (err) {
    const code = (err as ProcessFailure).code;
    if (code === 'ENOENT' || code === 'EACCES') {
      // Removed or made unusable since it was found: look again next time.
      cache.delete(name);
      throw new ToolMissingError(name);
    }
    throw err;
  }
}

/** The first line of a tool's stderr (for messages), else the error's message. */
export function toolErrorLine(e: unknown): string {
  const stderr = (e as { stderr?: unknown }).stderr;
  const text = typeof stderr === 'string' && stderr.trim() ? stderr : e instanceof Error ? e.message : String(e);
  return text.trim().split('\n')[0] ?? '';
}

// ------------------------------------------------------------------------------ health check

export interface ToolStatus {
  name: ToolName;
  ok: boolean;
  /** The version string the tool reports, e.g. "5.1.6-0+deb12u1", "13.25", "v5.36.0". */
  version: string | null;
  path: string | null;
  source: ToolSource | null;
  /** What does not work without it. */
  impact: string;
}

const VERSION_ARGS: Record<ToolName, string[]> = {
  ffmpeg: ['-hide_banner', '-version'],
  ffprobe: ['-hide_banner', '-version'],
  perl: ['-e', 'print $^V'],
  exiftool: ['-ver'],
};

function parseVersion(name: ToolName, out: string): string | null {
  const first = out.trim().split('\n')[0]?.trim() ?? '';
  if (name === 'ffmpeg' || name === 'ffprobe') return /version\s+(\S+)/.exec(first)?.[1] ?? (first || null);
  return first || null;
}

async function checkTool(name: ToolName): Promise<ToolStatus> {
  const found = locateTool(name);
  const status = (ok: boolean, version: string | null): ToolStatus => {
    // A configured path that is not there is shown, so the user sees what to fix.
    const where = found ?? configured(name);
    return { name, ok, version, path: where?.path ?? null, source: where?.source ?? null, impact: TOOL_IMPACT[name] };
  };
  if (!found) return status(false, null);
  try {
    let out: Buffer;
    if (name === 'exiftool' && exiftoolNeedsPerl()) {
      const perl = locateTool('perl');
      if (!perl) return status(false, null);
      out = await runTool('perl', [found.path, ...VERSION_ARGS.exiftool], { timeoutMs: 30_000 });
    } else {
      out = await runTool(name, VERSION_ARGS[name], { timeoutMs: 30_000 });
    }
    return status(true, parseVersion(name, out.toString('utf8')));
  } catch {
    // Found but it does not run (wrong architecture, broken install): not usable.
    return status(false, null);
  }
}

/** Every tool, found or not, with its version and where it came from (doctor, Settings › System). */
export async function checkTools(): Promise<ToolStatus[]> {
  resetToolCache();
  const names: ToolName[] = ['ffmpeg', 'ffprobe', 'exiftool'];
  if (exiftoolNeedsPerl()) names.push('perl');
  return Promise.all(names.map(checkTool));
}
