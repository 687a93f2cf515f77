import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tagsmith } from '../helpers/cli';
import { startPostgres, type Postgres } from '../helpers/postgres';
import { serveStudio, studioTestsMissing } from '../helpers/studio';

// Issue 34, point 3: a laptop holds chosen folders of the studio. Two replicas as separate
// processes against one server: Ben's laptop holds folder X only. A change to a photo in Y
// never reaches his catalogue, a change in X does; his own changes go to the studio as any
// member's; widening his subset to X and Y brings Y's photos with what was done to them.

const missing = await studioTestsMissing('the studio subset tests', { keychain: true });

describe.skipIf(missing !== null)('a laptop holding part of the studio', () => {
  let pgc: Postgres;
  let server: ChildProcess;
  let url = '';
  const photos = realpathSync(mkdtempSync(join(tmpdir(), 'tagsmith-subset-photos-')));
  const X = join(photos, 'X');
  const Y = join(photos, 'Y');
  const Z = join(photos, 'Z');
  const libA = mkdtempSync(join(tmpdir(), 'tagsmith-subset-a-'));
  const libB = mkdtempSync(join(tmpdir(), 'tagsmith-subset-b-'));
  const libC = mkdtempSync(join(tmpdir(), 'tagsmith-subset-c-'));
  const x0 = join(X, 'x0.jpg');
  const x1 = join(X, 'x1.jpg');
  const y0 = join(Y, 'y0.jpg');
  const y1 = join(Y, 'y1.jpg');
  const z0 = join(Z, 'z0.jpg');

  const ok = async (lib: string | null, args: string[], input?: string) => {
    const r = await tagsmith(lib, args, { input });
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    return r;
  };
  const catalogue = async (lib: string): Promise<Record<string, string[]>> => {
    const found = (await ok(lib, ['search', '--json'])).json<Array<{ path: string; keywords: string[] }>>();
    return Object.fromEntries(found.map((a) => [a.path, [...a.keywords].sort()]));
  };

  beforeAll(async () => {
    mkdirSync(X);
    mkdirSync(Y);
    mkdirSync(Z);
    for (const [i, f] of [x0, x1, y0, y1, z0].entries()) await sharp({ create: { width: 30 + i, height: 20, channels: 3, background: { r: 60 * i, g: 100, b: 50 } } }).jpeg().toFile(f);
    pgc = startPostgres();
    pgc.createDatabase('studio');
    for (const name of ['ana', 'ben', 'cleo']) await ok(null, ['serve', 'user', 'add', name, '--role', 'editor', '--database', pgc.url('studio'), '--password-stdin'], `${name}-secret-1\n`);
    const started = await serveStudio(pgc.url('studio'));
    server = started.child;
    url = started.served.url;
    // Ana's desktop holds the whole archive.
    await ok(libA, ['studio', 'join', url, '--user', 'ana', '--password-stdin', '--yes'], 'ana-secret-1\n');
    await ok(libA, ['index', photos]);
    await ok(libA, ['tag', x0, '--add', 'x-early']);
    await ok(libA, ['tag', y0, '--add', 'y-early']);
    await ok(libA, ['tag', z0, '--add', 'z-early']);
    await ok(libA, ['collection', 'create', 'Selects']);
    await ok(libA, ['collection', 'add', 'Selects', y0]);
    await ok(libA, ['studio', 'sync']);
  });

  afterAll(async () => {
    for (const lib of [libA, libB, libC]) await tagsmith(lib, ['studio', 'leave']);
    server?.kill('SIGKILL');
    pgc?.stop();
  });

  it('joins holding folder X only: X’s photos arrive with their keywords, Y’s never', async () => {
    await ok(libB, ['studio', 'join', url, '--user', 'ben', '--folders', X, '--password-stdin', '--yes'], 'ben-secret-1\n');
    expect(await catalogue(libB)).toEqual({ [x0]: ['x-early'], [x1]: [] });
    // The collections' definitions are library-wide: they arrive, their photos outside X do not.
    expect((await ok(libB, ['collection', 'list', '--json'])).stdout).toContain('Selects');
    const status = (await ok(libB, ['studio', 'status', '--json'])).json<Record<string, unknown>>();
    expect(Object.keys(status)).toEqual(expect.arrayContaining(['server', 'user', 'connected', 'pendingChanges', 'lastSyncAt']));
    expect(status.subset).toEqual({ folders: [X] });
  });

  it('a change to a photo in Y never reaches the laptop, one in X does; the laptop’s own changes reach the studio', async () => {
    await ok(libA, ['tag', x1, '--add', 'x-late']);
    await ok(libA, ['tag', y1, '--add', 'y-late']);
    await ok(libA, ['studio', 'sync']);
    await ok(libB, ['tag', x0, '--add', 'from-ben']);
    await ok(libB, ['studio', 'sync']);
    expect(await catalogue(libB)).toEqual({ [x0]: ['from-ben', 'x-early'], [x1]: ['x-late'] });
    await ok(libA, ['studio', 'sync']);
    expect((await catalogue(libA))[x0]).toEqual(['from-ben', 'x-early']);
  });

  it('widening the subset to X and Y brings Y’s photos with what was done to them', async () => {
    const widened = (await ok(libB, ['studio', 'subset', '--folders', `${X},${Y}`, '--json'])).json<{ subset: { folders: string[] }; copied: { pulled: number } }>();
    expect(widened.subset.folders).toEqual([X, Y]);
    expect(await catalogue(libB)).toEqual({ [x0]: ['from-ben', 'x-early'], [x1]: ['x-late'], [y0]: ['y-early'], [y1]: ['y-late'] });
    // Nothing was applied twice: a sync after it has nothing new.
    expect((await ok(libB, ['studio', 'sync', '--json'])).json<{ applied: { applied: number } }>().applied.applied).toBe(0);
  });

  it('studio subset --all brings every folder of the studio, those the laptop never held too', async () => {
    const all = (await ok(libB, ['studio', 'subset', '--all', '--json'])).json<{ subset: null; copied: { pulled: number } }>();
    expect(all.subset).toBeNull();
    expect(await catalogue(libB)).toEqual({ [x0]: ['from-ben', 'x-early'], [x1]: ['x-late'], [y0]: ['y-early'], [y1]: ['y-late'], [z0]: ['z-early'] });
    expect((await ok(libB, ['studio', 'status', '--json'])).json<{ subset: unknown }>().subset).toBeNull();
    // A change in Z made after it reaches the laptop as any other.
    await ok(libA, ['tag', z0, '--add', 'z-late']);
    await ok(libA, ['studio', 'sync']);
    await ok(libB, ['studio', 'sync']);
    expect((await catalogue(libB))[z0]).toEqual(['z-early', 'z-late']);
  });

  it('joins holding a collection: its photos arrive (with their folder) and with their edits; nothing else', async () => {
    await ok(libC, ['studio', 'join', url, '--user', 'cleo', '--collections', 'Selects', '--password-stdin', '--yes'], 'cleo-secret-1\n');
    // y0 is in Selects: its folder Y comes whole (a folder is held whole, so a rescan never shows a photo without its edits).
    expect(await catalogue(libC)).toEqual({ [y0]: ['y-early'], [y1]: ['y-late'] });
    const status = (await ok(libC, ['studio', 'status', '--json'])).json<{ subset: { folders: string[]; collections: Array<{ name: string }> } }>();
    expect(status.subset.folders).toEqual([]);
    expect(status.subset.collections.map((c) => c.name)).toEqual(['Selects']);
    const members = (await ok(libC, ['search', '--collection', 'Selects', '--json'])).json<Array<{ path: string }>>();
    expect(members.map((m) => m.path)).toEqual([y0]);
  });

  it('a photo put into the collection on another machine arrives with what was done to it before', async () => {
    // x0 was edited long before it was put into Selects (by Ana and by Ben).
    await ok(libA, ['collection', 'add', 'Selects', x0]);
    await ok(libA, ['studio', 'sync']);
    await ok(libC, ['studio', 'sync']);
    const got = await catalogue(libC);
    expect(got[x0]).toEqual(['from-ben', 'x-early']);
    expect(got[z0]).toBeUndefined();
    expect((await ok(libC, ['search', '--collection', 'Selects', '--json'])).json<Array<{ path: string }>>().map((m) => m.path).sort()).toEqual([x0, y0].sort());
    // Nothing applied twice: a sync after it has nothing new.
    expect((await ok(libC, ['studio', 'sync', '--json'])).json<{ applied: { applied: number } }>().applied.applied).toBe(0);
  });

  it('a photo taken out of the collection stays on the laptop, keeps its edit made offline, and stays current', async () => {
    await ok(libC, ['tag', y0, '--add', 'cleo-offline']);
    await ok(libA, ['collection', 'remove', 'Selects', y0]);
    await ok(libA, ['tag', y0, '--add', 'ana-after']);
    await ok(libA, ['studio', 'sync']);
    await ok(libC, ['studio', 'sync']);
    expect((await catalogue(libC))[y0]).toEqual(['ana-after', 'cleo-offline', 'y-early']);
    await ok(libA, ['studio', 'sync']);
    expect((await catalogue(libA))[y0]).toEqual(['ana-after', 'cleo-offline', 'y-early']);
  });

  it('studio subset --collections refuses a collection the studio does not have, naming those it has', async () => {
    const r = await tagsmith(libC, ['studio', 'subset', '--collections', 'Selectz']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('no collection “Selectz”');
    expect(r.stderr).toContain('“Selects”');
  });
});
