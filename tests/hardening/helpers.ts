// Shared by the hardening suites: child drivers that print ack lines and are killed with
// SIGKILL, polling without sleeps in assertions, and small checks on a catalogue file.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Database from 'better-sqlite3';

export const ROOT = new URL('../../', import.meta.url).pathname;

import { until } from '../helpers/until';

export { until };

export const sha = (buf: Buffer): string => createHash('sha256').update(buf).digest('hex');
export const shaFile = (path: string): string => sha(readFileSync(path));

/** A driver script under tests/hardening/fixtures, run as its own process (so SIGKILL is real). */
export interface Driver {
  child: ChildProcess;
  /** Complete lines printed so far. */
  lines: string[];
  /** The end of what it wrote to stderr. */
  stderr(): string;
  exited: Promise<number | null>;
  kill(): Promise<void>;
}

export function startDriver(script: string, env: Record<string, string>): Driver {
  const child = spawn(process.execPath, ['--import', 'tsx', `tests/hardening/fixtures/${script}`], {
    cwd: ROOT,
    env: { ...process.env, ...env, TAGSMITH_QUIET: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so the helpers it starts (exiftool, ffmpeg) die with it.
    detached: true,
  });
  const lines: string[] = [];
  let partial = '';
  child.stdout!.on('data', (d: Buffer) => {
    const parts = (partial + d.toString('utf8')).split('\n');
    partial = parts.pop()!;
    lines.push(...parts);
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => { stderr = (stderr + d.toString()).slice(-4000); });
  // 'close', not 'exit': the last of stderr may arrive after the exit event, and a driver that
  // died by itself must say why.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => {
    if (code) process.stderr.write(`[${script}] exited ${code}: ${stderr}\n`);
    resolve(code);
  }));
  return {
    child, lines, exited,
    stderr: () => stderr,
    async kill() {
      // The whole process group at once, as a power cut takes the app with its helpers.
      // Killing only the driver would orphan its exiftool, which (until its parent watch
      // notices, about a second later) could still finish a write after the restarted app's
      // sweep. Also when the driver ended by itself: its helpers must not outlive the test.
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* the group is gone already */
      }
      await exited;
    },
  };
}

/**
 * Start a driver, wait for its ready line (and, with `after`, for a line saying it has done some
 * work: on a busy machine "a random moment" alone may never reach the work), let it work a
 * random moment, kill -9 it.
 */
export async function runAndKill(script: string, env: Record<string, string>, maxDelayMs: number, after?: RegExp): Promise<Driver> {
  const d = startDriver(script, env);
  await until(() => d.lines.includes('ready') || d.child.exitCode !== null, `${script} ready`);
  if (after) await until(() => d.lines.some((l) => after.test(l)) || d.child.exitCode !== null, `${script}: a line like ${after}`);
  if (d.child.exitCode !== null) {
    const code = await d.exited;
    throw new Error(`${script} exited by itself (${code}) before it was killed: ${d.stderr().trim() || '(nothing on stderr)'}\nlast lines: ${d.lines.slice(-5).join(' | ')}`);
  }
  await new Promise((r) => setTimeout(r, Math.floor(Math.random() * maxDelayMs)));
  await d.kill();
  return d;
}

/** PRAGMA integrity_check of a catalogue a killed process left behind (WAL included). */
export function integrity(dbFile: string): string {
  const db = new Database(dbFile);
  try {
    return (db.pragma('integrity_check') as { integrity_check: string }[]).map((r) => r.integrity_check).join('; ');
  } finally {
    db.close();
  }
}

/** `ack <assetId> <keyword>` lines: the edits a driver reported as committed. */
export function ackedKeywords(lines: readonly string[]): { assetId: number; keyword: string }[] {
  return lines.filter((l) => l.startsWith('ack ')).map((l) => {
    const [, id, kw] = l.split(' ');
    return { assetId: Number(id), keyword: kw };
  });
}

/** Acked keywords missing from the catalogue (read with a fresh connection). */
export function lostEdits(dbFile: string, acks: readonly { assetId: number; keyword: string }[]): string[] {
  const db = new Database(dbFile);
  try {
    const has = db.prepare<[number, string], { x: number }>(
      'SELECT 1 AS x FROM asset_keywords ak JOIN keywords k ON k.id = ak.keyword_id WHERE ak.asset_id = ? AND k.name = ?',
    );
    return acks.filter((a) => !has.get(a.assetId, a.keyword)).map((a) => `${a.assetId}:${a.keyword}`);
  } finally {
    db.close();
  }
}

/**
 * `n` JPEGs, 300 px high and 300+i wide: the service derivative keeps that size, so the
 * simulator's log (imageSize of each upload) tells which picture a billed call was for.
 */
export async function distinctPictures(dir: string, n: number, prefix = 'p'): Promise<string[]> {
  const sharp = (await import('sharp')).default;
  const files = Array.from({ length: n }, (_, i) => `${dir}/${prefix}${i}.jpg`);
  for (let i = 0; i < n; i += 12) {
    await Promise.all(files.slice(i, i + 12).map((f, j) => sharp({ create: { width: 300 + i + j, height: 300, channels: 3, background: { r: (i + j) * 5 % 256, g: 90, b: 160 } } }).jpeg().toFile(f)));
  }
  return files;
}

/**
 * Requests per picture (by derivative width - 300) across one or more simulator logs that the
 * service answered with 200 (billed) or whose connection was dropped (status 0: maybe billed).
 * Retries after a 5xx/502 (never billed) are not counted.
 */
export function billedPerPicture(logs: readonly { path: string; status: number; imageSize: { width: number } | null }[][], path = '/v1/keywords', statuses = [200, 0]): Map<number, number> {
  const m = new Map<number, number>();
  for (const log of logs) {
    for (const e of log) {
      if (e.path !== path || !statuses.includes(e.status) || !e.imageSize) continue;
      m.set(e.imageSize.width - 300, (m.get(e.imageSize.width - 300) ?? 0) + 1);
    }
  }
  return m;
}
