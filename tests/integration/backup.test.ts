import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, realpathSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import sharp from 'sharp';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { tagsmithSync, type CliRun } from '../helpers/cli';
import { updateAppSettings } from '../../src-main/core/app-settings';
import { createApi } from '../../src-main/api';
import { applyPendingRestore, backupCatalogue, checkCatalogueFile, dailyBackupDue, listBackups } from '../../src-main/library/backup';
import { openLibrary } from '../../src-main/library/context';
import { openDb } from '../../src-main/library/db';
import { migrations } from '../../src-main/library/migrations';
import { openCheckedLibrary } from '../../src-main/library/recover';

// Catalogue backups, the way a user meets them: `tagsmith backup`, `backups` and `restore` as
// real child processes over a real library with real edits; a migration that copies the
// catalogue first; and a damaged catalogue file found on open and replaced by its backup.

const roots: string[] = [];
let root: string;
let library: string;
let photos: string;

const cli = (...args: string[]): CliRun => tagsmithSync(library, args, { timeout: 120_000 });

const keywordsOf = (file: string): string[] => cli('show', file, '--json').json<{ keywords: string[] }>().keywords;

beforeEach(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tagsmith-backup-')));
  roots.push(root);
  library = join(root, 'lib');
  photos = join(root, 'photos');
  mkdirSync(photos);
  await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 90, g: 120, b: 200 } } }).jpeg().toFile(join(photos, 'sea.jpg'));
});

afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

describe('tagsmith backup / backups / restore', () => {
  it('round trip: edits after a backup are undone by restoring it, and the replaced catalogue is kept', () => {
    const sea = join(photos, 'sea.jpg');
    expect(cli('index', photos).code).toBe(0);
    expect(cli('tag', sea, '--add', 'sea,blue').code).toBe(0);

    const made = cli('backup', '--json');
    expect(made.code).toBe(0);
    const backup = made.json<{ path: string; bytes: number }>();
    expect(Object.keys(backup).sort()).toEqual(['bytes', 'path']);
    expect(backup.path.startsWith(join(library, 'backups') + '/')).toBe(true);
    expect(backup.bytes).toBe(statSync(backup.path).size);

    expect(cli('tag', sea, '--add', 'storm', '--remove', 'blue').code).toBe(0);
    expect(keywordsOf(sea).sort()).toEqual(['sea', 'storm']);

    const list = cli('backups', '--json').json<{ path: string; createdAt: string; bytes: number; reason: string }[]>();
    expect(list).toHaveLength(1);
    expect(list[0]).toEqual({ path: backup.path, createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/), bytes: backup.bytes, reason: 'manual' });

    // Not on a terminal and no --yes: refused, nothing changed.
    const asked = cli('restore', backup.path);
    expect(asked.code).toBe(2);
    expect(asked.stderr).toContain('--yes');
    expect(keywordsOf(sea).sort()).toEqual(['sea', 'storm']);

    const restored = cli('restore', backup.path, '--yes', '--json');
    expect(restored.code, restored.stderr).toBe(0);
    const result = restored.json<{ restored: string; kept: string }>();
    expect(result.restored).toBe(backup.path);
    expect(keywordsOf(sea).sort()).toEqual(['blue', 'sea']);

    // The catalogue that was replaced is a backup now, with the later edit in it.
    const after = cli('backups', '--json').json<{ path: string; reason: string }[]>();
    expect(after.map((b) => b.reason)).toEqual(['before-restore', 'manual']);
    expect(after[0].path).toBe(result.kept);
    const kept = new Database(result.kept, { readonly: true });
    try {
      const names = kept.prepare('SELECT k.name FROM asset_keywords ak JOIN keywords k ON k.id = ak.keyword_id ORDER BY k.name').all() as { name: string }[];
      expect(names.map((n) => n.name)).toEqual(['sea', 'storm']);
    } finally {
      kept.close();
    }
  });

  it('restore refuses while another process (the app) has the library open, and a path that is not a backup', () => {
    expect(cli('index', photos).code).toBe(0);
    const backup = cli('backup', '--json').json<{ path: string }>();
    // This test process plays the app: its pid in the library's lock.
    writeFileSync(join(library, 'app.lock'), JSON.stringify({ pid: process.pid }));
    const refused = cli('restore', backup.path, '--yes');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`Tagsmith (process ${process.pid}) has this library open`);
    expect(listBackups(library)).toHaveLength(1);
    rmSync(join(library, 'app.lock'));

    writeFileSync(join(root, 'notes.sqlite'), 'not a database at all, just text that is long enough to have a header');
    const bad = cli('restore', join(root, 'notes.sqlite'), '--yes');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('is not a usable catalogue backup');
    expect(cli('restore', join(root, 'missing.sqlite'), '--yes').stderr).toContain('There is no backup at');
  });

  it('the daily backup is due when none was made in the last 24 hours', async () => {
    const ctx = openLibrary(library);
    try {
      expect(dailyBackupDue(library)).toBe(true);
      const made = await backupCatalogue(ctx.db, library, 'daily');
      const at = Date.parse(listBackups(library)[0].createdAt);
      expect(listBackups(library)[0]).toMatchObject({ path: made.path, reason: 'daily' });
      expect(dailyBackupDue(library, at + 23 * 3600_000)).toBe(false);
      expect(dailyBackupDue(library, at + 24 * 3600_000)).toBe(true);
    } finally {
      ctx.db.close();
    }
  });

  it('keeps only the newest N backups (the setting)', async () => {
    const ctx = openLibrary(library);
    try {
      updateAppSettings(library, { backupKeep: 2 });
      const made = [];
      for (let i = 0; i < 4; i++) made.push((await backupCatalogue(ctx.db, library, 'manual')).path);
      expect(listBackups(library).map((b) => b.path)).toEqual([made[3], made[2]]);
      expect(existsSync(made[0])).toBe(false);
    } finally {
      ctx.db.close();
    }
  });
});

describe('migrations', () => {
  it('copy the catalogue before upgrading it; the copy is the old version with its data', () => {
    mkdirSync(library, { recursive: true });
    const file = join(library, 'library.sqlite');
    const older = migrations.at(-1)!.version - 1;
    const db = openDb(file, { upTo: older });
    db.prepare("INSERT INTO folders (path, added_at) VALUES ('/photos/2019', 1)").run();
    db.close();
    expect(listBackups(library)).toEqual([]);

    const upgraded = openDb(file);
    upgraded.close();
    const backups = listBackups(library);
    expect(backups).toHaveLength(1);
    expect(backups[0].reason).toBe('migration');
    const copy = new Database(backups[0].path, { readonly: true });
    try {
      expect(copy.pragma('user_version', { simple: true })).toBe(older);
      expect(copy.prepare('SELECT path FROM folders').all()).toEqual([{ path: '/photos/2019' }]);
    } finally {
      copy.close();
    }
    // Opening an up-to-date catalogue makes no backup, nor does creating a new one.
    openDb(file).close();
    openDb(join(root, 'fresh.sqlite')).close();
    expect(listBackups(library)).toHaveLength(1);
  });
});

describe('a damaged catalogue', () => {
  it('is found on open (quick_check) and replaced by the newest good backup when the user agrees', async () => {
    expect(cli('index', photos).code).toBe(0);
    expect(cli('tag', join(photos, 'sea.jpg'), '--add', 'lighthouse').code).toBe(0);
    const good = cli('backup', '--json').json<{ path: string }>();

    // Garbage over every page but the first (the header and schema stay, the tables do not).
    const file = join(library, 'library.sqlite');
    const pageSize = 4096;
    const size = statSync(file).size;
    const fd = openSync(file, 'r+');
    for (let at = pageSize; at < size; at += pageSize) writeSync(fd, randomBytes(pageSize), 0, pageSize, at);
    closeSync(fd);
    const check = checkCatalogueFile(file);
    expect(check.ok).toBe(false);

    const asked: { problem: string; backup: string }[] = [];
    const { ctx, restored } = await openCheckedLibrary(library, {
      onDamaged: (problem, backup) => {
        asked.push({ problem, backup: backup.path });
        return true;
      },
    });
    try {
      expect(asked).toHaveLength(1);
      expect(asked[0].backup).toBe(good.path);
      expect(restored?.restored).toBe(good.path);
      const names = ctx.db.prepare('SELECT k.name FROM asset_keywords ak JOIN keywords k ON k.id = ak.keyword_id').all();
      expect(names).toEqual([{ name: 'lighthouse' }]);
      expect(ctx.db.prepare('PRAGMA quick_check').get()).toEqual({ quick_check: 'ok' });
    } finally {
      ctx.db.close();
    }
    // The damaged file was kept, not deleted.
    const damaged = listBackups(library).find((b) => b.reason === 'damaged');
    expect(damaged).toBeDefined();
    expect(checkCatalogueFile(damaged!.path).ok).toBe(false);
  });

  it('is left as it is when the user declines', async () => {
    expect(cli('index', photos).code).toBe(0);
    cli('backup');
    const file = join(library, 'library.sqlite');
    const fd = openSync(file, 'r+');
    for (let at = 4096; at < statSync(file).size; at += 4096) writeSync(fd, randomBytes(4096), 0, 4096, at);
    closeSync(fd);
    const before = statSync(file).mtimeMs;
    await expect(openCheckedLibrary(library, { onDamaged: () => false })).rejects.toThrow(/is damaged .* it was left as it is/);
    expect(statSync(file).mtimeMs).toBe(before);
  });
});

describe('Settings › Library (the Api)', () => {
  it('backs up now, and restores a listed backup as the app starts again', async () => {
    let ctx = openLibrary(library);
    let host = createApi(ctx, { watch: false, startQueue: false });
    try {
      const folder = await host.api.addFolder({ path: photos });
      await host.scanner.waitForIdle();
      const [asset] = (await host.api.search({ query: {}, page: { offset: 0, limit: 10 } })).items;
      await host.api.editKeywords({ ids: [asset.id], add: ['harbour'] });
      const backup = await host.api.backupNow();
      expect(backup.reason).toBe('manual');
      expect(await host.api.listBackups()).toEqual([backup]);
      await host.api.editKeywords({ ids: [asset.id], add: ['night'] });

      // Only a listed backup can be named.
      expect(await host.invoke('restoreBackup', { path: join(root, 'elsewhere.sqlite') })).toMatchObject({ ok: false, error: { kind: 'not_found' } });
      expect(await host.api.restoreBackup({ path: backup.path })).toEqual({ restartRequired: true });
      expect(folder.id).toBeGreaterThan(0);
    } finally {
      await host.dispose();
      ctx.db.close();
    }
    // What the app does as it starts: the restore, then the catalogue.
    expect(applyPendingRestore(library)?.restored).toBe((listBackups(library).find((b) => b.reason === 'manual'))!.path);
    expect(applyPendingRestore(library)).toBeNull();
    ctx = openLibrary(library);
    host = createApi(ctx, { watch: false, startQueue: false });
    try {
      const names = ctx.db.prepare('SELECT k.name FROM asset_keywords ak JOIN keywords k ON k.id = ak.keyword_id').all();
      expect(names).toEqual([{ name: 'harbour' }]);
      await host.api.setSystemSettings({ backupKeep: 1 });
      expect(await host.api.systemSettings()).toMatchObject({ backupKeep: 1 });
      expect(await host.api.listBackups()).toHaveLength(1);
    } finally {
      await host.dispose();
      ctx.db.close();
    }
  });
});
