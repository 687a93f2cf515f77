import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLibrary } from '../../src-main/library/context';
import { folderRemovals, listFolders, removeFolder } from '../../src-main/library/folders';
import { tagsmith } from '../helpers/cli';
import { startPostgres, type Postgres } from '../helpers/postgres';
import { serveStudio, studioTestsMissing } from '../helpers/studio';

// Volumes: one shared disk, mounted at a different path on each of two machines (here two
// folders holding the same files: a file the "disk" gets is written into both). A scan on one
// member reaches the other through `tagsmith studio sync`: the other reads the file itself
// and makes its own thumbnail. A member where the volume is not mapped shows it offline and
// keeps the studio's changes of its photos until `tagsmith studio map VOLUME PATH`.

const missing = await studioTestsMissing('the studio volume tests', { keychain: true });

interface Status {
  server: string;
  user: string;
  connected: boolean;
  pendingChanges: number;
  lastSyncAt: string | null;
  volumes: Array<{ id: string; name: string; mount: string | null; online: boolean; waiting: number }>;
}

interface Shown {
  path: string;
  keywords: string[];
  thumbnail: string | null;
}

describe.skipIf(missing !== null)('studio volumes', () => {
  let pgc: Postgres;
  let server: ChildProcess;
  let served: { url: string };
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'tagsmith-volumes-')));
  // The same disk as machine A and machine B see it.
  const mountA = join(root, 'a-mount', 'Archive');
  const mountB = join(root, 'b-mount', 'Archive');
  const libA = mkdtempSync(join(tmpdir(), 'tagsmith-member-a-'));
  const libB = mkdtempSync(join(tmpdir(), 'tagsmith-member-b-'));

  const ok = async (lib: string, args: string[], input?: string) => {
    const r = await tagsmith(lib, args, { input });
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    return r;
  };
  const status = async (lib: string) => (await ok(lib, ['studio', 'status', '--json'])).json<Status>();
  const show = async (lib: string, path: string) => {
    const r = await tagsmith(lib, ['show', path, '--json']);
    return r.code === 0 ? r.json<Shown>() : null;
  };
  /** A file arriving on the shared disk: both mounts see it. */
  const onDisk = async (rel: string, rgb: { r: number; g: number; b: number }) => {
    for (const m of [mountA, mountB]) {
      mkdirSync(join(m, 'shoot'), { recursive: true });
      await sharp({ create: { width: 64, height: 48, channels: 3, background: rgb } }).jpeg().toFile(join(m, rel));
    }
  };
  const offDisk = (rel: string) => {
    for (const m of [mountA, mountB]) rmSync(join(m, rel));
  };

  beforeAll(async () => {
    await onDisk('shoot/red.jpg', { r: 200, g: 0, b: 0 });
    pgc = startPostgres();
    pgc.createDatabase('studio');
    for (const name of ['ana', 'ben']) await ok(libA, ['serve', 'user', 'add', name, '--role', 'editor', '--database', pgc.url('studio'), '--password-stdin'], `${name}-secret-1\n`);
    ({ child: server, served } = await serveStudio(pgc.url('studio')));
  });

  afterAll(async () => {
    for (const lib of [libA, libB]) await tagsmith(lib, ['studio', 'leave']);
    server?.kill('SIGKILL');
    pgc?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('keeps a volume offline where it is not mapped, with the studio’s changes of its photos', async () => {
    await ok(libA, ['index', mountA]);
    await ok(libA, ['studio', 'join', served.url, '--user', 'ana', '--password-stdin', '--yes'], 'ana-secret-1\n');
    await ok(libA, ['studio', 'sync', '--json']);
    const volumes = (await status(libA)).volumes;
    expect(volumes).toEqual([{ id: expect.any(String), name: 'Archive', mount: mountA, online: true, waiting: 0 }]);

    // Machine B does not have A's mount path: the volume does not map itself there.
    renameSync(join(root, 'a-mount'), join(root, 'a-away'));
    try {
      await ok(libB, ['studio', 'join', served.url, '--user', 'ben', '--password-stdin', '--yes'], 'ben-secret-1\n');
      await ok(libB, ['studio', 'sync', '--json']);
      const s = await status(libB);
      expect(s).toMatchObject({ user: 'ben', connected: true, pendingChanges: 0 });
      expect(s.volumes).toEqual([{ id: volumes[0].id, name: 'Archive', mount: null, online: false, waiting: 0 }]);
      const text = (await ok(libB, ['studio', 'status'])).stdout;
      expect(text).toContain('Volume “Archive”: not mapped on this computer (its photos are offline here)');
    } finally {
      renameSync(join(root, 'a-away'), join(root, 'a-mount'));
    }

    // A keywords a photo on the volume: B keeps the change until the volume is mapped there.
    await ok(libA, ['tag', join(mountA, 'shoot', 'red.jpg'), '--add', 'boat']);
    await ok(libA, ['studio', 'sync', '--json']);
    await ok(libB, ['studio', 'sync', '--json']);
    expect((await status(libB)).volumes[0]).toMatchObject({ mount: null, online: false, waiting: 1 });
    expect(await show(libB, join(mountB, 'shoot', 'red.jpg'))).toBeNull();
  });

  it('maps the volume with studio map: the folder is read here and the changes that waited apply', async () => {
    const mapped = (await ok(libB, ['studio', 'map', 'Archive', mountB, '--json'])).json<{ volume: Status['volumes'][number]; scanned: { added: number }; applied: { applied: number } }>();
    expect(mapped).toMatchObject({ volume: { name: 'Archive', mount: mountB, online: true, waiting: 0 }, scanned: { added: 1 }, applied: { applied: 1 } });
    const red = await show(libB, join(mountB, 'shoot', 'red.jpg'));
    expect(red).toMatchObject({ keywords: ['boat'] });
    expect(red!.thumbnail).not.toBeNull();
    expect(red!.thumbnail!.startsWith(libB)).toBe(true);
  });

  it('brings a scan’s new, changed and gone files to the other member, who reads them itself', async () => {
    await onDisk('shoot/blue.jpg', { r: 0, g: 0, b: 200 });
    await ok(libA, ['index', mountA]);
    await ok(libA, ['tag', join(mountA, 'shoot', 'blue.jpg'), '--add', 'sea']);
    await ok(libA, ['studio', 'sync', '--json']);
    await ok(libB, ['studio', 'sync', '--json']);
    const blue = await show(libB, join(mountB, 'shoot', 'blue.jpg'));
    expect(blue).toMatchObject({ keywords: ['sea'] });
    expect(blue!.thumbnail).not.toBeNull();
    expect(blue!.thumbnail!.startsWith(libB)).toBe(true);
    expect(existsSync(blue!.thumbnail!)).toBe(true);

    // The disk changes: red re-saved as green, blue deleted, a new file.
    const before = (await ok(libB, ['show', join(mountB, 'shoot', 'red.jpg'), '--json'])).json<{ contentHash?: string; size?: number }>();
    await onDisk('shoot/red.jpg', { r: 0, g: 200, b: 0 });
    offDisk('shoot/blue.jpg');
    await onDisk('shoot/sand.jpg', { r: 220, g: 200, b: 120 });
    await ok(libA, ['index', mountA]);
    await ok(libA, ['studio', 'sync', '--json']);
    await ok(libB, ['studio', 'sync', '--json']);
    expect(await show(libB, join(mountB, 'shoot', 'sand.jpg'))).toMatchObject({ thumbnail: expect.stringContaining(libB) });
    expect(await show(libB, join(mountB, 'shoot', 'blue.jpg'))).toBeNull();
    const after = (await ok(libB, ['show', join(mountB, 'shoot', 'red.jpg'), '--json'])).json<{ contentHash?: string; size?: number; keywords: string[] }>();
    expect(after).not.toEqual(before);
    expect(after.keywords).toEqual(['boat']);
  });

  it('removes a folder removed on one member from the other, where it has its own mount', async () => {
    expect(await show(libB, join(mountB, 'shoot', 'sand.jpg'))).not.toBeNull();
    const ctx = openLibrary(libA);
    try {
      await removeFolder(ctx, listFolders(ctx).find((f) => f.path === mountA)!.id);
      await folderRemovals(ctx);
    } finally {
      ctx.db.close();
    }
    await ok(libA, ['studio', 'sync', '--json']);
    await ok(libB, ['studio', 'sync', '--json']);
    expect(await show(libB, join(mountB, 'shoot', 'sand.jpg'))).toBeNull();
    expect(await show(libB, join(mountB, 'shoot', 'red.jpg'))).toBeNull();
  });
});
