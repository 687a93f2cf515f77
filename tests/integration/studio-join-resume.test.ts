import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, tagsmith } from '../helpers/cli';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy';
import { startPostgres, type Postgres } from '../helpers/postgres';
import { serveStudio, studioTestsMissing } from '../helpers/studio';

// Issue 34, point 3: joining copies the studio's catalogue into the library a page at a time
// and resumes after a cut. A member's join is cut off by a dropped connection (a proxy on
// loopback), another's by kill -9 of the joining CLI, each after the copy kept its first page;
// the same `studio join` again goes on from there, and in the end each holds every photo once
// with every keyword of the studio.

const missing = await studioTestsMissing('the studio join-resume tests', { keychain: true });

/** Three changes a page, so the copy of this small studio takes many pages. */
const PAGED = { TAGSMITH_STUDIO_PAGE: '3' };

describe.skipIf(missing !== null)('joining a studio copies its catalogue in pages and resumes after a cut', () => {
  let pgc: Postgres;
  let server: ChildProcess;
  let proxy: FaultProxy;
  const photos = realpathSync(mkdtempSync(join(tmpdir(), 'tagsmith-join-photos-')));
  const set = join(photos, 'set');
  const libA = mkdtempSync(join(tmpdir(), 'tagsmith-join-a-'));
  const libB = mkdtempSync(join(tmpdir(), 'tagsmith-join-b-'));
  const libC = mkdtempSync(join(tmpdir(), 'tagsmith-join-c-'));
  const files = Array.from({ length: 4 }, (_, i) => join(set, `p${i}.jpg`));
  const expected = Object.fromEntries(files.map((f, i) => [f, ['a', 'b', 'c', 'd', 'e'].map((k) => `${k}-${i}`).sort()]));

  const ok = async (lib: string | null, args: string[], input?: string, env?: NodeJS.ProcessEnv) => {
    const r = await tagsmith(lib, args, { input, env });
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    return r;
  };
  const catalogue = async (lib: string) => {
    const found = (await ok(lib, ['search', '--json'])).json<Array<{ path: string; keywords: string[] }>>();
    return { count: found.length, keywords: Object.fromEntries(found.map((a) => [a.path, [...a.keywords].sort()])) };
  };
  /** How far the library's copy of the studio got, as its studio.json keeps it. */
  const membership = (lib: string): { pulledSeq?: number; copying?: boolean } | null =>
    existsSync(join(lib, 'studio.json')) ? (JSON.parse(readFileSync(join(lib, 'studio.json'), 'utf8')) as { pulledSeq?: number; copying?: boolean }) : null;
  const pulled = (lib: string) => membership(lib)?.pulledSeq ?? 0;
  const joinArgs = (user: string) => ['studio', 'join', `https://${proxy.address}`, '--user', user, '--password-stdin', '--yes', '--json'];

  beforeAll(async () => {
    mkdirSync(set);
    for (const [i, f] of files.entries()) await sharp({ create: { width: 32 + i, height: 24, channels: 3, background: { r: 50 * i, g: 90, b: 140 } } }).jpeg().toFile(f);
    pgc = startPostgres();
    pgc.createDatabase('studio');
    for (const name of ['ana', 'ben', 'cem']) await ok(null, ['serve', 'user', 'add', name, '--role', 'editor', '--database', pgc.url('studio'), '--password-stdin'], `${name}-secret-1\n`);
    const started = await serveStudio(pgc.url('studio'));
    server = started.child;
    const target = new URL(started.served.url);
    proxy = await startFaultProxy({ host: target.hostname, port: Number(target.port) });
    // Ana's library is the studio's catalogue: four photos, five keywords each.
    await ok(libA, ['index', set]);
    await ok(libA, joinArgs('ana'), 'ana-secret-1\n');
    for (const f of files) await ok(libA, ['tag', f, '--add', expected[f].join(',')]);
    await ok(libA, ['studio', 'sync']);
    expect((await catalogue(libA)).keywords).toEqual(expected);
    // Ben's and Cem's computers have the same disk, indexed, with no keywords yet.
    await ok(libB, ['index', set]);
    await ok(libC, ['index', set]);
  });

  afterAll(async () => {
    for (const lib of [libA, libB, libC]) await tagsmith(lib, ['studio', 'leave']);
    await proxy?.close();
    server?.kill('SIGKILL');
    pgc?.stop();
  });

  it('a join cut off by a dropped connection goes on from its last page when run again', async () => {
    // Once the copy has kept its first page, the network drops: the connection kept open is cut
    // within 300 bytes, and so is every new one, in its handshake.
    const drop = (): number | null => (pulled(libB) > 0 ? 300 : null);
    proxy.cutAfter = drop;
    proxy.cutLive = drop;
    const cut = await tagsmith(libB, joinArgs('ben'), { input: 'ben-secret-1\n', env: PAGED });
    proxy.cutAfter = () => null;
    proxy.cutLive = () => null;
    expect(cut.code).toBe(1);
    expect(cut.stderr).toContain("Joined, but the copy of the studio's catalogue stopped: run the same tagsmith studio join again to go on from where it stopped.");
    const kept = pulled(libB);
    expect(kept).toBeGreaterThan(0);
    expect(membership(libB)?.copying).toBe(true);

    const again = (await ok(libB, joinArgs('ben'), 'ben-secret-1\n', PAGED)).json<{ user: string; copied: { pulled: number } }>();
    expect(again.user).toBe('ben');
    // It went on: the changes kept before the cut were not fetched again.
    const head = pulled(libA);
    expect(again.copied.pulled).toBeLessThanOrEqual(head - kept);
    expect(membership(libB)?.copying).toBe(false);
    expect(await catalogue(libB)).toEqual({ count: files.length, keywords: expected });
    // Joined in full: joining again is refused as before.
    const third = await tagsmith(libB, joinArgs('ben'), { input: 'ben-secret-1\n' });
    expect(third.code).toBe(1);
    expect(third.stderr).toContain('already a member of studio');
  });

  it('a joining CLI killed with SIGKILL in the middle of the copy: the same join again completes it, no photo lost or doubled', async () => {
    const child = spawn(process.execPath, [BIN, '--library', libC, ...joinArgs('cem')], { env: { ...process.env, TAGSMITH_HOME: '', TAGSMITH_QUIET: '1', ...PAGED } });
    child.stdin.end('cem-secret-1\n');
    const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    // The copy kept a page and asks for the next one: killed there.
    proxy.onUpstream = () => {
      if (pulled(libC) > 0) child.kill('SIGKILL');
    };
    await gone;
    proxy.onUpstream = () => {};
    expect(child.signalCode).toBe('SIGKILL');
    const kept = pulled(libC);
    expect(kept).toBeGreaterThan(0);
    expect(membership(libC)?.copying).toBe(true);

    const again = (await ok(libC, joinArgs('cem'), 'cem-secret-1\n', PAGED)).json<{ copied: { pulled: number } }>();
    expect(again.copied.pulled).toBeLessThanOrEqual(pulled(libA) - kept);
    expect(await catalogue(libC)).toEqual({ count: files.length, keywords: expected });
    // Nothing of the copy is left to fetch, and the member sends and receives as any other.
    await ok(libC, ['studio', 'sync']);
    expect(await catalogue(libC)).toEqual({ count: files.length, keywords: expected });
  });
});
