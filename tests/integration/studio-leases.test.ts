import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync } from 'node:fs';
import { cp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ExifTool } from 'exiftool-vendored';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, tagsmith, type CliRun } from '../helpers/cli';
import { startPostgres, type Postgres } from '../helpers/postgres';
import { serveStudio, studioTestsMissing, type Served } from '../helpers/studio';
import { until } from '../helpers/until';
import { startSimulator, type Simulator } from '../simulator/index.js';

// Issue 34, points 7 and 8 (third part), with real processes: PostgreSQL, `tagsmith serve`
// (leases lasting 3 s unless renewed), the service simulator and three members, each a library
// of its own driven by the CLI, all indexing the same shared folder.
// - Writing into a file takes the studio's lease on it: a member waits while another writes
//   ("Being written by NAME on DEVICE; will try again"), then re-reads the file and writes, so
//   both members' keywords end in the file; a writer killed holding a lease blocks nobody for
//   longer than the lease.
// - One-at-a-time lanes are one at a time across the machines; billed counts and caps are the
//   studio's.

const missing = await studioTestsMissing('the studio lease tests', { keychain: true });
const HOLDER = resolve(__dirname, '../helpers/lease-holder.ts');

interface Running {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  done: Promise<CliRun>;
}

describe.skipIf(missing !== null)('one writer at a time, one account for the studio', () => {
  const creds = { clientId: 'studio-lease', clientSecret: 'studio-lease-secret' };
  let pgc: Postgres;
  let server: ChildProcess;
  let served: Served;
  let sim: Simulator;
  let exiftool: ExifTool;
  const holders: ChildProcess[] = [];
  const photos = realpathSync(mkdtempSync(join(tmpdir(), 'tagsmith-lease-photos-')));
  const shoot = join(photos, 'shoot');
  const libs = ['a', 'b', 'c'].map((n) => mkdtempSync(join(tmpdir(), `tagsmith-lease-${n}-`)));
  const [libA, libB, libC] = libs;
  const users = ['ana', 'ben', 'cem'];
  const pic = (name: string) => join(shoot, name);
  /** the studio's volume that holds the shared folder (every member has it at the same path) */
  let volumeId = '';
  /** the studio's name of a file (studio/file-lease.ts fileLeaseKey: its volume and the path in it) */
  const leaseKey = (name: string) => `file:vol:${volumeId}/${name}`;
  /** a fourth member, whose computer has the shared disk at another mount point */
  const libD = mkdtempSync(join(tmpdir(), 'tagsmith-lease-d-'));
  const elsewhere = realpathSync(mkdtempSync(join(tmpdir(), 'tagsmith-lease-mount-')));

  const run = async (lib: string, args: string[], input?: string) => {
    const r = await tagsmith(lib, args, { input, serviceUrl: sim.url, creds });
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    return r;
  };

  /** The CLI running while the test watches what it prints. */
  const start = (lib: string, args: string[]): Running => {
    const child = spawn(process.execPath, [BIN, '--library', lib, '--service-url', sim.url, ...args], {
      env: { ...process.env, TAGSMITH_HOME: '', TAGSMITH_QUIET: '1', TAGSMITH_CLIENT_ID: creds.clientId, TAGSMITH_CLIENT_SECRET: creds.clientSecret },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.stdin.end();
    const done = new Promise<CliRun>((res) => child.on('close', (code) => res({ code, stdout: out, stderr: err, json: <T,>() => JSON.parse(out) as T })));
    return { child, out: () => out, err: () => err, done };
  };

  /** Another writer holding a file's lease, as a process of its own (helpers/lease-holder.ts). */
  const holdLease = async (user: string, device: string, key: string): Promise<{ child: ChildProcess; out: () => string }> => {
    const child = spawn(process.execPath, ['--import', 'tsx', HOLDER, served.url, served.fingerprint, user, `${user}-secret-1`, `device-${device}`, device, key]);
    holders.push(child);
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    await until(() => out.includes('held') || child.exitCode !== null, 'the lease holder to take its lease');
    expect(out, err).toContain('held');
    return { child, out: () => out };
  };

  /** Wait for the CLI to print `text`; fails when it ends without printing it. */
  const printed = async (r: Running, text: string): Promise<void> => {
    await until(() => r.err().includes(text) || r.child.exitCode !== null, `“${text}”`);
    expect(r.err(), `the CLI ended without printing “${text}”: ${r.out()}`).toContain(text);
  };

  const keywordsOf = async (file: string): Promise<string[]> => {
    const t = (await exiftool.read(file)) as { Keywords?: unknown; Subject?: unknown };
    const list = (v: unknown) => (Array.isArray(v) ? v.map(String) : v === undefined ? [] : [String(v)]);
    return [...new Set([...list(t.Keywords), ...list(t.Subject)])].sort();
  };

  beforeAll(async () => {
    exiftool = new ExifTool();
    mkdirSync(shoot);
    const colours = ['#c0392b', '#2980b9', '#27ae60', '#8e44ad', '#f39c12', '#16a085'];
    for (const [i, c] of colours.entries()) {
      await sharp({ create: { width: 80 + i, height: 60, channels: 3, background: c } }).jpeg().withMetadata({ orientation: 1 }).toFile(pic(`p${i}.jpg`));
    }
    sim = await startSimulator({ port: 0, accounts: [creds], taskClock: { pendingMs: 50, startedMs: 400 } });
    pgc = startPostgres();
    pgc.createDatabase('studio');
    for (const [i, u] of users.entries()) {
      await run(libA, ['serve', 'user', 'add', u, '--role', i === 0 ? 'admin' : 'editor', '--database', pgc.url('studio'), '--password-stdin'], `${u}-secret-1\n`);
    }
    ({ child: server, served } = await serveStudio(pgc.url('studio'), { args: ['--lease-seconds', '3'] }));
    for (const [i, lib] of libs.entries()) {
      await run(lib, ['index', shoot]);
      await run(lib, ['studio', 'join', served.url, '--user', users[i], '--password-stdin', '--yes'], `${users[i]}-secret-1\n`);
    }
    // Each member learns the studio's volumes (the first one's sync shares the folder as one).
    for (const lib of libs) await run(lib, ['studio', 'sync']);
    const vols = (await run(libA, ['studio', 'status', '--json'])).json<{ volumes: { id: string; mount: string | null }[] }>().volumes;
    volumeId = vols.find((v) => v.mount === shoot)!.id;
  });

  afterAll(async () => {
    for (const h of holders) h.kill('SIGKILL');
    for (const lib of [...libs, libD]) await tagsmith(lib, ['studio', 'leave']);
    server?.kill('SIGKILL');
    pgc?.stop();
    await sim?.close();
    await exiftool?.end();
  });

  it('two members writing the same file: each waits while it is written, and both keywords end in the file', async () => {
    await run(libA, ['tag', pic('p0.jpg'), '--add', 'alpha']);
    await run(libB, ['tag', pic('p0.jpg'), '--add', 'beta']);
    // A third writer (ana's desktop) is writing p0.jpg: both members wait for it, and say why.
    const desk = await holdLease('ana', 'ana-desk', leaseKey('p0.jpg'));
    const a = start(libA, ['export', pic('p0.jpg'), '--write-files', '--json']);
    const b = start(libB, ['export', pic('p0.jpg'), '--write-files', '--json']);
    await printed(a, 'Being written by ana on ana-desk; will try again.');
    await printed(b, 'Being written by ana on ana-desk; will try again.');
    desk.child.stdin!.write('release\n');
    const [ra, rb] = await Promise.all([a.done, b.done]);
    expect(ra.code, ra.stderr).toBe(0);
    expect(rb.code, rb.stderr).toBe(0);
    expect(ra.json()).toMatchObject({ written: 1, failed: 0 });
    expect(rb.json()).toMatchObject({ written: 1, failed: 0 });
    // One wrote, then the other re-read the file and added its own: neither keyword was lost.
    expect(await keywordsOf(pic('p0.jpg'))).toEqual(['alpha', 'beta']);
  });

  it('a writer killed while it holds a file’s lease blocks the file only until the lease expires', async () => {
    await run(libC, ['tag', pic('p1.jpg'), '--add', 'gamma']);
    const dying = await holdLease('ben', 'ben-laptop', leaseKey('p1.jpg'));
    const c = start(libC, ['export', pic('p1.jpg'), '--write-files', '--json']);
    await printed(c, 'Being written by ben on ben-laptop; will try again.');
    // Killed: it never releases the lease nor renews it.
    await new Promise<void>((res) => {
      dying.child.once('exit', () => res());
      dying.child.kill('SIGKILL');
    });
    const rc = await c.done;
    expect(rc.code, rc.stderr).toBe(0);
    expect(rc.json()).toMatchObject({ written: 1, failed: 0 });
    expect(await keywordsOf(pic('p1.jpg'))).toEqual(['gamma']);
  });

  it('the same shared disk at another mount point is the same file: a write there waits for the writer here', async () => {
    // Dan's computer has the disk at another place (a copy of the folder stands for it here).
    await run(libA, ['serve', 'user', 'add', 'dan', '--role', 'editor', '--database', pgc.url('studio'), '--password-stdin'], 'dan-secret-1\n');
    await cp(shoot, elsewhere, { recursive: true });
    await run(libD, ['studio', 'join', served.url, '--user', 'dan', '--password-stdin', '--yes'], 'dan-secret-1\n');
    await run(libD, ['studio', 'sync']);
    await run(libD, ['studio', 'map', volumeId, elsewhere]);
    await run(libD, ['tag', join(elsewhere, 'p5.jpg'), '--add', 'delta']);
    // Ana writes p5.jpg on her volume: Dan's write of the same file, at his mount point, waits for her.
    const desk = await holdLease('ana', 'ana-desk', leaseKey('p5.jpg'));
    const d = start(libD, ['export', join(elsewhere, 'p5.jpg'), '--write-files', '--json']);
    await printed(d, 'Being written by ana on ana-desk; will try again.');
    desk.child.stdin!.write('release\n');
    const rd = await d.done;
    expect(rd.code, rd.stderr).toBe(0);
    expect(rd.json()).toMatchObject({ written: 1, failed: 0 });
    expect(await keywordsOf(join(elsewhere, 'p5.jpg'))).toEqual(['delta']);
  });

  it('one-at-a-time lanes hold across machines: three members speaking at once never run two tasks together', async () => {
    const before = sim.log.length;
    const runs = await Promise.all(libs.map((lib, i) => tagsmith(lib, ['speak', '--voice', 'Ryan', '--text', `Hello from machine ${i + 1}.`, '--json'], { serviceUrl: sim.url, creds })));
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    const tts = sim.tasks().filter((t) => t.kind === 'tts');
    expect(tts).toHaveLength(3);
    // Each machine sent its task only once the one before had finished.
    const spans = tts.map((t) => [t.createdAt, t.finishedAt!] as const).sort((x, y) => x[0] - y[0]);
    for (let i = 1; i < spans.length; i++) expect(spans[i][0]).toBeGreaterThanOrEqual(spans[i - 1][1]);
    expect(sim.log.slice(before).filter((e) => e.status === 502)).toHaveLength(0);
  });

  it('billed counts are the studio’s, and a cap the admin sets holds for every machine', async () => {
    const billedNow = () => Object.values(sim.billed()[creds.clientId] ?? {}).reduce((a, n) => a + n, 0);
    await run(libA, ['keyword', pic('p2.jpg'), '--json']);
    await run(libB, ['keyword', pic('p3.jpg'), '--json']);
    // Member C made none of these keyword calls: it sees what the studio was billed.
    const seen = (await run(libC, ['jobs', '--json'])).json<{ usage: { thisMonth: number } }>();
    expect(seen.usage.thisMonth).toBe(billedNow());

    // An editor cannot set the studio's caps; the admin can.
    const refused = await tagsmith(libB, ['studio', 'caps', '--daily-calls', '100'], { serviceUrl: sim.url, creds });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('cannot set the studio’s caps');
    const today = (await run(libC, ['jobs', '--json'])).json<{ usage: { today: number } }>().usage.today;
    const set = (await run(libA, ['studio', 'caps', '--daily-calls', String(today + 1), '--json'])).json<{ caps: { dailyCalls: number } }>();
    expect(set.caps.dailyCalls).toBe(today + 1);

    // Member C has no cap of its own: the studio's leaves room for one more call today.
    const calls = sim.log.filter((e) => e.path === '/v1/keywords' && e.status === 200).length;
    const c = await tagsmith(libC, ['keyword', pic('p4.jpg'), pic('p5.jpg'), '--json'], { serviceUrl: sim.url, creds });
    expect(c.code).toBe(1);
    expect(c.stderr).toContain(`Paused before crossing the studio’s daily cap of ${today + 1} billed calls`);
    expect(sim.log.filter((e) => e.path === '/v1/keywords' && e.status === 200).length - calls).toBe(1);
    const after = (await run(libA, ['jobs', '--json'])).json<{ usage: { today: number; thisMonth: number } }>();
    expect(after.usage.today).toBe(today + 1);
    expect(after.usage.thisMonth).toBe(billedNow());
    await run(libA, ['studio', 'caps', '--none']);
  });
});
