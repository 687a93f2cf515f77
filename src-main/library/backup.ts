import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { uptime } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { readAppSettings } from '../core/app-settings';

/** A catalogue connection (db.ts's Db; named here so db.ts can call into this file without a cycle). */
type Db = Database.Database;

// Catalogue backups: decisions not yet written into the files live only in library.sqlite, so
// it is copied with SQLite's own consistent snapshot before every migration, daily while the
// app runs, and on demand, into <data>/backups/ beside it; the newest N are kept (a setting,
// default 7). A backup is a plain SQLite file named library-<UTC time>-<reason>.sqlite.
//
// On demand and daily: better-sqlite3's db.backup() (SQLite's online backup, copied in steps
// so the app keeps answering). Before a migration: VACUUM INTO, because opening a catalogue is
// synchronous and the copy must exist before the first migration statement runs.

export type BackupReason = 'manual' | 'daily' | 'migration' | 'before-restore' | 'damaged';
const REASONS: readonly BackupReason[] = ['manual', 'daily', 'migration', 'before-restore', 'damaged'];

export interface BackupInfo {
  path: string;
  /** ISO 8601, UTC. */
  createdAt: string;
  bytes: number;
  reason: BackupReason;
}

export const backupsDir = (dataDir: string): string => join(dataDir, 'backups');

const NAME = /^library-(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})-(\d{3})Z(?:-\d+)?-([a-z-]+)\.sqlite$/;

/** A new, unused backup path for now. */
function newBackupPath(dataDir: string, reason: BackupReason): string {
  const dir = backupsDir(dataDir);
  mkdirSync(dir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  let path = join(dir, `library-${stamp}-${reason}.sqlite`);
  for (let n = 2; existsSync(path); n++) path = join(dir, `library-${stamp}-${n}-${reason}.sqlite`);
  return path;
}

function infoOf(path: string): BackupInfo | null {
  const m = NAME.exec(basename(path));
  if (!m || !(REASONS as readonly string[]).includes(m[6])) return null;
  try {
    return { path, createdAt: `${m[1]}T${m[2]}:${m[3]}:${m[4]}.${m[5]}Z`, bytes: statSync(path).size, reason: m[6] as BackupReason };
  } catch {
    return null;
  }
}

/** Every backup, newest first. */
export function listBackups(dataDir: string): BackupInfo[] {
  let names: string[];
  try {
    names = readdirSync(backupsDir(dataDir));
  } catch {
    return [];
  }
  return names
    .map((n) => infoOf(join(backupsDir(dataDir), n)))
    .filter((b): b is BackupInfo => b !== null)
    .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : b.path.localeCompare(a.path)));
}

/** Keep the newest `keep` backups (the setting when not given). */
export function pruneBackups(dataDir: string, keep = readAppSettings(dataDir).backupKeep): void {
  for (const b of listBackups(dataDir).slice(Math.max(1, keep))) rmSync(b.path, { force: true });
}

/** A backup now, through SQLite's online backup (the app keeps working meanwhile). */
export async function backupCatalogue(db: Db, dataDir: string, reason: BackupReason = 'manual'): Promise<{ path: string; bytes: number }> {
  const path = newBackupPath(dataDir, reason);
  const partial = `${path}.partial`;
  try {
    await db.backup(partial);
    renameSync(partial, path);
  } catch (err) {
    rmSync(partial, { force: true });
    throw err;
  }
  pruneBackups(dataDir);
  return { path, bytes: statSync(path).size };
}

/**
 * Called by the migration runner when a catalogue that already has data is about to be
 * migrated: a consistent copy first (synchronous), so a failed or unwanted upgrade can be undone.
 */
export function backupBeforeMigration(db: Db, dbFile: string, fromVersion: number): string {
  const dataDir = dirname(dbFile);
  const path = newBackupPath(dataDir, 'migration');
  const partial = `${path}.partial`;
  try {
    db.prepare('VACUUM INTO ?').run(partial);
    renameSync(partial, path);
  } catch (err) {
    rmSync(partial, { force: true });
    throw new Error(`The catalogue could not be backed up before upgrading it (version ${fromVersion}), so it was not changed: ${(err as Error).message}`, { cause: err });
  }
  pruneBackups(dataDir);
  return path;
}

/** Whether the backup for "daily" is due: none in the last 24 hours. */
export function dailyBackupDue(dataDir: string, now = Date.now()): boolean {
  const newest = listBackups(dataDir)[0];
  return !newest || now - Date.parse(newest.createdAt) >= 24 * 3600 * 1000;
}

// ------------------------------------------------------------------------------ checking

export type CatalogueCheck = { ok: true; version: number } | { ok: false; problem: string };

/** Open a catalogue file read-only and run SQLite's quick_check on it. */
export function checkCatalogueFile(file: string, nativeBinding?: string): CatalogueCheck {
  let db: Database.Database | null = null;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true, ...(nativeBinding ? { nativeBinding } : {}) });
    const rows = db.prepare<[], { quick_check: string }>('PRAGMA quick_check(5)').all().map((r) => r.quick_check);
    if (rows.length !== 1 || rows[0] !== 'ok') return { ok: false, problem: rows.join('; ') };
    return { ok: true, version: db.pragma('user_version', { simple: true }) as number };
  } catch (err) {
    return { ok: false, problem: (err as Error).message };
  } finally {
    db?.close();
  }
}

/** The newest backup that passes quick_check, or null. */
export function latestGoodBackup(dataDir: string, nativeBinding?: string): BackupInfo | null {
  return listBackups(dataDir).find((b) => b.reason !== 'damaged' && checkCatalogueFile(b.path, nativeBinding).ok) ?? null;
}

export interface FileCheck {
  check: CatalogueCheck;
  /** When the file is damaged and its library was named: the newest backup that passes the same check. */
  backup: BackupInfo | null;
}

/** quick_check of a catalogue file and, when it is damaged, the backup to offer instead (seconds each at 1M photos: a worker thread's work). */
export function checkWithBackup(file: string, opts: { nativeBinding?: string; backupsOf?: string }): FileCheck {
  const check = checkCatalogueFile(file, opts.nativeBinding);
  return { check, backup: !check.ok && opts.backupsOf ? latestGoodBackup(opts.backupsOf, opts.nativeBinding) : null };
}

// ------------------------------------------------------------------------------ the app's lock

const lockFile = (dataDir: string): string => join(dataDir, 'app.lock');

interface Lock {
  pid: number;
  /** When the app took it (ms since the epoch; absent in locks of older versions). */
  startedAt?: number;
}

function readLock(dataDir: string): Lock | null {
  try {
    const lock = JSON.parse(readFileSync(lockFile(dataDir), 'utf8')) as { pid?: unknown; startedAt?: unknown };
    const pid = Number(lock.pid);
    if (!Number.isInteger(pid) || pid <= 0) return null;
    return typeof lock.startedAt === 'number' ? { pid, startedAt: lock.startedAt } : { pid };
  } catch {
    return null;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether the process that took `lock` still runs: a lock from before the machine started is not, whatever now has its pid. */
function held(lock: Lock): boolean {
  const bootedAt = Date.now() - uptime() * 1000;
  return !(lock.startedAt !== undefined && lock.startedAt < bootedAt) && alive(lock.pid);
}

/** The pid of another live process (the app) that has this library open, or null. */
export function libraryHolder(dataDir: string): number | null {
  const lock = readLock(dataDir);
  return lock && lock.pid !== process.pid && held(lock) ? lock.pid : null;
}

/**
 * How the app's last session on this library ended, read before this one takes the lock: no
 * lock ('clean': it quit, or the app never ran), the lock of a live process ('running', the
 * app open elsewhere), or a lock left behind ('crashed': a crash or a power loss, the main
 * cause of a damaged catalogue).
 */
export function lastSession(dataDir: string): 'clean' | 'running' | 'crashed' {
  if (!existsSync(lockFile(dataDir))) return 'clean';
  const lock = readLock(dataDir);
  // An unreadable lock was cut short as it was written; this process's own pid is not its own
  // lock yet (it is taken after the open), so a process that had the same pid left it.
  return lock && lock.pid !== process.pid && held(lock) ? 'running' : 'crashed';
}

/** The app marks the library as open by it (restore refuses meanwhile); returns the release. */
export function holdLibrary(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(lockFile(dataDir), JSON.stringify({ pid: process.pid, startedAt: Date.now() } satisfies Lock));
  return () => {
    if (readLock(dataDir)?.pid === process.pid) rmSync(lockFile(dataDir), { force: true });
  };
}

// ------------------------------------------------------------------------------ restoring

export class RestoreError extends Error {
  override readonly name = 'RestoreError';
}

export interface RestoreResult {
  restored: string;
  /** Where the catalogue that was replaced was kept. */
  kept: string | null;
}

/**
 * Put a backup in place of the catalogue. The library must not be open (the caller closed its
 * own connection; another process holding it is refused). The current catalogue is kept as a
 * backup first: through SQLite when it is readable, as a plain copy of its files when damaged.
 */
export function restoreCatalogue(dataDir: string, source: string, opts: { nativeBinding?: string } = {}): RestoreResult {
  const from = resolve(source);
  if (!existsSync(from)) throw new RestoreError(`There is no backup at ${from}. Run \`tagsmith backups\` to list them.`);
  const check = checkCatalogueFile(from, opts.nativeBinding);
  if (!check.ok) throw new RestoreError(`${from} is not a usable catalogue backup (${check.problem}); nothing was changed.`);
  const holder = libraryHolder(dataDir);
  if (holder !== null) {
    throw new RestoreError(`Tagsmith (process ${holder}) has this library open. Quit the app first, or restore from Settings › Library in the app.`);
  }
  const dbFile = join(dataDir, 'library.sqlite');
  let kept: string | null = null;
  if (existsSync(dbFile)) {
    const current = checkCatalogueFile(dbFile, opts.nativeBinding);
    if (current.ok) {
      kept = newBackupPath(dataDir, 'before-restore');
      const db = new Database(dbFile, { fileMustExist: true, ...(opts.nativeBinding ? { nativeBinding: opts.nativeBinding } : {}) });
      try {
        db.prepare('VACUUM INTO ?').run(kept);
      } finally {
        db.close();
      }
    } else {
      kept = newBackupPath(dataDir, 'damaged');
      copyFileSync(dbFile, kept);
      if (existsSync(`${dbFile}-wal`)) copyFileSync(`${dbFile}-wal`, `${kept}-wal`);
    }
  }
  const staging = `${dbFile}.restoring`;
  copyFileSync(from, staging);
  rmSync(`${dbFile}-wal`, { force: true });
  rmSync(`${dbFile}-shm`, { force: true });
  renameSync(staging, dbFile);
  // The restored backup and the one just made stay; older ones beyond the setting go.
  pruneBackups(dataDir);
  return { restored: from, kept };
}

// ------------------------------------------------------------------------------ restore on restart

const pendingFile = (dataDir: string): string => join(dataDir, 'restore-pending.json');

/** The running app cannot swap its catalogue: it asks for the restore to happen as it starts again. */
export function requestRestore(dataDir: string, backupPath: string): void {
  writeFileSync(pendingFile(dataDir), JSON.stringify({ path: backupPath }));
}

/** At start, before the catalogue is opened: carry out a restore asked for by the last run. */
export function applyPendingRestore(dataDir: string, opts: { nativeBinding?: string } = {}): RestoreResult | null {
  let path: string;
  try {
    path = String((JSON.parse(readFileSync(pendingFile(dataDir), 'utf8')) as { path?: unknown }).path);
  } catch {
    return null;
  }
  // Asked once: a restore that fails is reported, not retried at every start.
  rmSync(pendingFile(dataDir), { force: true });
  return restoreCatalogue(dataDir, path, opts);
}

/** While the app runs: a 'daily' backup when none was made in the last 24 hours (checked hourly). */
export function startDailyBackups(db: Db, dataDir: string, onError: (err: unknown) => void): () => void {
  const tick = (): void => {
    if (dailyBackupDue(dataDir)) backupCatalogue(db, dataDir, 'daily').catch(onError);
  };
  // Not at the very start: the first minutes belong to the rescan and the window.
  const first = setTimeout(tick, 5 * 60_000);
  const every = setInterval(tick, 3600_000);
  first.unref();
  every.unref();
  return () => {
    clearTimeout(first);
    clearInterval(every);
  };
}
