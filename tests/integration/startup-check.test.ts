import { spawnSync } from 'node:child_process';
import { closeSync, copyFileSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir, uptime } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyPendingRestore, backupCatalogue, checkCatalogueFile, lastSession, requestRestore } from '../../src-main/library/backup';
import { openLibrary } from '../../src-main/library/context';
import { openCheckedLibrary } from '../../src-main/library/recover';
import { seedAssets, seedFolder } from '../helpers/seed';
import { watchTurns } from '../helpers/turns';

// The catalogue check as the app starts (SQLite's quick_check, 4-6 s at a million photos):
// after a clean quit the library opens at once and the check runs meanwhile in a worker thread;
// after a session that left its lock behind (a crash, a power loss) the check comes first, in
// the worker too, and a damaged catalogue offers the newest good backup. Real catalogue files,
// damaged by overwriting their pages.

const BIG = 200_000;
const roots: string[] = [];
let big: string;
/** How long the same check holds the thread it runs on (measured on this one, on the big catalogue). */
let checkOnMain: number;

function newRoot(): string {
  const root = mkdtempSync(join(tmpdir(), 'tagsmith-startup-'));
  roots.push(root);
  return root;
}

function makeLibrary(dataDir: string, photos: number): void {
  const ctx = openLibrary(dataDir);
  const folder = seedFolder(ctx.db, '/photos');
  seedAssets(ctx.db, Array.from({ length: photos }, (_, i) => ({ folderId: folder, relPath: `p${i}.jpg`, keywords: ['sky', `own ${i}`], caption: `caption ${i}` })));
  ctx.db.pragma('wal_checkpoint(TRUNCATE)');
  ctx.db.close();
}

/** A library whose catalogue is a copy of the big one. */
function copyOfBig(): string {
  const dataDir = join(newRoot(), 'lib');
  mkdirSync(dataDir);
  copyFileSync(join(big, 'library.sqlite'), join(dataDir, 'library.sqlite'));
  return dataDir;
}

/** A small library with a good backup, then garbage over pages in the middle of its catalogue (b-tree pages of the assets and their indexes). */
async function damagedWithBackup(): Promise<{ dataDir: string; backup: string }> {
  const dataDir = join(newRoot(), 'lib');
  makeLibrary(dataDir, 3000);
  const ctx = openLibrary(dataDir);
  const { path: backup } = await backupCatalogue(ctx.db, dataDir, 'manual');
  const pageSize = ctx.db.pragma('page_size', { simple: true }) as number;
  ctx.db.close();
  const file = join(dataDir, 'library.sqlite');
  const fd = openSync(file, 'r+');
  const pages = Math.floor(statSync(file).size / pageSize);
  for (let p = Math.floor(pages / 3); p < Math.floor(pages / 3) + 8; p++) writeSync(fd, Buffer.alloc(pageSize, 0x5a), 0, pageSize, p * pageSize);
  closeSync(fd);
  return { dataDir, backup };
}

/** The lock a crashed app leaves: the pid of a process that has ended. */
function staleLock(dataDir: string): void {
  const { pid } = spawnSync(process.execPath, ['-e', '']);
  writeFileSync(join(dataDir, 'app.lock'), JSON.stringify({ pid, startedAt: Date.now() }));
}

/** The longest time this thread's event loop did not turn while `work` ran, its start and end included. */
async function longestStall<T>(work: () => Promise<T>): Promise<{ result: T; stall: number }> {
  const start = performance.now();
  const { result, seen } = await watchTurns(work, () => performance.now());
  const times = [start, ...seen, performance.now()];
  let stall = 0;
  for (let i = 1; i < times.length; i++) stall = Math.max(stall, times[i] - times[i - 1]);
  return { result, stall };
}

const refuse = (): never => {
  throw new Error('asked about damage before the open, where the check was to come after it');
};

beforeAll(() => {
  big = join(newRoot(), 'big');
  makeLibrary(big, BIG);
  const file = join(big, 'library.sqlite');
  checkCatalogueFile(file); // the file in the page cache, as for the checks below
  const t0 = performance.now();
  expect(checkCatalogueFile(file).ok).toBe(true);
  checkOnMain = performance.now() - t0;
});

afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

describe('the catalogue check at start', () => {
  it('after a clean quit: the library opens before the check answers, and the check says ok without holding the main thread', async () => {
    const dataDir = copyOfBig();
    expect(lastSession(dataDir)).toBe('clean');
    const opened = await openCheckedLibrary(dataDir, { onDamaged: refuse });
    try {
      expect(opened.restored).toBeNull();
      expect(opened.background).not.toBeNull();
      // Usable now, while the check has not answered.
      expect(await Promise.race([opened.background, 'not answered yet'])).toBe('not answered yet');
      expect(opened.ctx.db.prepare('SELECT count(*) AS n FROM assets').get()).toEqual({ n: BIG });
      const { result, stall } = await longestStall(() => opened.background!);
      expect(result).toEqual({ check: { ok: true, version: expect.any(Number) }, backup: null });
      // The check held its thread about checkOnMain (hundreds of ms); this one kept turning. Half
      // of it leaves room for a busy machine and still fails any check on this thread.
      expect(stall).toBeLessThan(checkOnMain / 2);
    } finally {
      opened.ctx.db.close();
    }
  });

  it('after a session that left its lock behind: the check comes before the open, off the main thread', async () => {
    const dataDir = copyOfBig();
    staleLock(dataDir);
    expect(lastSession(dataDir)).toBe('crashed');
    const { result: opened, stall } = await longestStall(() => openCheckedLibrary(dataDir, { onDamaged: refuse }));
    try {
      // Checked already: nothing left to run after the open.
      expect(opened.background).toBeNull();
      expect(opened.restored).toBeNull();
      expect(stall).toBeLessThan(checkOnMain / 2);
      expect(opened.ctx.db.prepare('SELECT count(*) AS n FROM assets').get()).toEqual({ n: BIG });
    } finally {
      opened.ctx.db.close();
    }
  });

  it('after a session that left its lock behind: a damaged catalogue offers the newest good backup before it is opened', async () => {
    const { dataDir, backup } = await damagedWithBackup();
    staleLock(dataDir);
    const asked: { problem: string; backup: string }[] = [];
    const opened = await openCheckedLibrary(dataDir, {
      onDamaged: (problem, offered) => {
        asked.push({ problem, backup: offered.path });
        return true;
      },
    });
    try {
      expect(asked).toEqual([{ problem: expect.stringMatching(/page|tree|row|index|malformed/i), backup }]);
      expect(opened.restored?.restored).toBe(backup);
      expect(opened.background).toBeNull();
      expect(opened.ctx.db.prepare('PRAGMA quick_check').get()).toEqual({ quick_check: 'ok' });
      expect(opened.ctx.db.prepare('SELECT count(*) AS n FROM assets').get()).toEqual({ n: 3000 });
    } finally {
      opened.ctx.db.close();
    }
  });

  it('after a clean quit: damage found by the check meanwhile comes with the newest good backup, restored as the app starts again', async () => {
    const { dataDir, backup } = await damagedWithBackup();
    const opened = await openCheckedLibrary(dataDir, { onDamaged: refuse });
    const found = await opened.background!;
    opened.ctx.db.close();
    expect(found.check.ok).toBe(false);
    // quick_check's own words (a page, a tree, a row), not a failure to run it.
    expect(!found.check.ok && found.check.problem).toMatch(/page|tree|row|index|malformed/i);
    expect(found.backup?.path).toBe(backup);

    // What the app does when the user agrees: the restore the next start carries out.
    requestRestore(dataDir, found.backup!.path);
    expect(applyPendingRestore(dataDir)?.restored).toBe(backup);
    const next = await openCheckedLibrary(dataDir, { onDamaged: refuse });
    try {
      expect(await next.background).toEqual({ check: { ok: true, version: expect.any(Number) }, backup: null });
    } finally {
      next.ctx.db.close();
    }
  });

  it('the lock of a live process (the app open elsewhere) is not a crash, and is left as it is; one older than the machine is', async () => {
    const dataDir = copyOfBig();
    const lock = join(dataDir, 'app.lock');
    // The process that runs this test file's process stands for the other app.
    writeFileSync(lock, JSON.stringify({ pid: process.ppid, startedAt: Date.now() }));
    expect(lastSession(dataDir)).toBe('running');
    const opened = await openCheckedLibrary(dataDir, { onDamaged: refuse });
    try {
      expect(await opened.background).toMatchObject({ check: { ok: true } });
      expect(JSON.parse(readFileSync(lock, 'utf8'))).toMatchObject({ pid: process.ppid });
    } finally {
      opened.ctx.db.close();
    }
    // Taken before the machine last started: whatever has that pid now, that app is gone.
    writeFileSync(lock, JSON.stringify({ pid: process.ppid, startedAt: Date.now() - (uptime() + 60) * 1000 }));
    expect(lastSession(dataDir)).toBe('crashed');
  });
});
