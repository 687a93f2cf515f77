import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, tagsmith } from '../helpers/cli';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy';
import { startPostgres, type Postgres } from '../helpers/postgres';
import { serveStudio, studioTestsMissing } from '../helpers/studio';

// Studio sync over a network that cuts connections at any byte (a proxy on loopback), and a
// member's sync killed with SIGKILL in the middle of a push: every sync that fails says so in
// one line, the next one picks up, and in the end both members hold every change, none twice.

const missing = await studioTestsMissing('the studio fault tests', { keychain: true });

describe.skipIf(missing !== null)('studio sync on a flaky network', () => {
  let pgc: Postgres;
  let server: ChildProcess;
  let proxy: FaultProxy;
  const photos = realpathSync(mkdtempSync(join(tmpdir(), 'tagsmith-shared-')));
  const libA = mkdtempSync(join(tmpdir(), 'tagsmith-member-a-'));
  const libB = mkdtempSync(join(tmpdir(), 'tagsmith-member-b-'));
  const files = Array.from({ length: 3 }, (_, i) => join(photos, 'set', `p${i}.jpg`));

  const ok = async (lib: string | null, args: string[], input?: string) => {
    const r = await tagsmith(lib, args, { input });
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    return r;
  };
  const keywordsOf = async (lib: string) => {
    const found = (await ok(lib, ['search', '--json'])).json<Array<{ path: string; keywords: string[] }>>();
    return Object.fromEntries(found.map((a) => [a.path, [...a.keywords].sort()]));
  };
  /** Sync until it goes through; every failure is one clear line, never a stack trace. */
  const syncThrough = async (lib: string): Promise<number> => {
    for (let tries = 1; tries <= 60; tries++) {
      const r = await tagsmith(lib, ['studio', 'sync', '--json']);
      if (r.code === 0) return tries;
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^tagsmith: (Cannot reach the studio server|The connection to the studio server was cut)[^\n]*\n$/);
    }
    throw new Error('sync never went through');
  };

  beforeAll(async () => {
    mkdirSync(join(photos, 'set'));
    for (const [i, f] of files.entries()) await sharp({ create: { width: 32, height: 24, channels: 3, background: { r: 40 * i, g: 80, b: 160 } } }).jpeg().toFile(f);
    pgc = startPostgres();
    pgc.createDatabase('studio');
    for (const name of ['ana', 'ben']) await ok(null, ['serve', 'user', 'add', name, '--role', 'editor', '--database', pgc.url('studio'), '--password-stdin'], `${name}-secret-1\n`);
    const started = await serveStudio(pgc.url('studio'));
    server = started.child;
    const url = started.served.url;
    const target = new URL(url);
    proxy = await startFaultProxy({ host: target.hostname, port: Number(target.port) });
    for (const [lib, user] of [[libA, 'ana'], [libB, 'ben']]) {
      await ok(lib, ['index', join(photos, 'set')]);
      await ok(lib, ['studio', 'join', `https://${proxy.address}`, '--user', user, '--password-stdin', '--yes'], `${user}-secret-1\n`);
    }
  });

  afterAll(async () => {
    for (const lib of [libA, libB]) await tagsmith(lib, ['studio', 'leave']);
    await proxy?.close();
    server?.kill('SIGKILL');
    pgc?.stop();
  });

  it('gets every change through connections cut at random bytes, none applied twice', async () => {
    for (const [i, f] of files.entries()) await ok(libA, ['tag', f, '--add', `ana-${i},shared`]);
    for (const [i, f] of files.entries()) await ok(libB, ['tag', f, '--add', `ben-${i}`]);
    // Cut the next connections at a spread of byte counts: in the TLS handshake, the request, the answer.
    const cuts = [150, 900, 2600, 3400, 5200, 400, 3000, 6000];
    proxy.cutAfter = () => cuts.shift() ?? null;
    const triesA = await syncThrough(libA);
    const triesB = await syncThrough(libB);
    await syncThrough(libA);
    expect(proxy.stats.cut).toBeGreaterThan(0);
    expect(triesA + triesB).toBeGreaterThan(2);
    const a = await keywordsOf(libA);
    expect(await keywordsOf(libB)).toEqual(a);
    for (const [i, f] of files.entries()) expect(a[f]).toEqual([`ana-${i}`, `ben-${i}`, 'shared'].sort());
  });

  it('a sync killed in the middle of its push leaves nothing lost and nothing doubled', async () => {
    proxy.cutAfter = () => null;
    await ok(libA, ['tag', ...files, '--add', 'late']);
    const child = spawn(process.execPath, [BIN, '--library', libA, 'studio', 'sync'], { env: { ...process.env, TAGSMITH_HOME: '', TAGSMITH_QUIET: '1' } });
    const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    // Past the handshake and into the push's body: kill the member's process there.
    proxy.onUpstream = (bytes) => {
      if (bytes > 1200) child.kill('SIGKILL');
    };
    await gone;
    proxy.onUpstream = () => {};
    await syncThrough(libA);
    await syncThrough(libB);
    const b = await keywordsOf(libB);
    for (const [i, f] of files.entries()) expect(b[f]).toEqual([`ana-${i}`, `ben-${i}`, 'late', 'shared'].sort());
    // The studio's log holds each of Ana's changes once.
    const pulled = await ok(libB, ['studio', 'status', '--json']);
    expect(pulled.json<{ pendingChanges: number }>().pendingChanges).toBe(0);
  });
});
