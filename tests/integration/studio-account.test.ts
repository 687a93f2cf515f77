import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tagsmith } from '../helpers/cli';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy';
import { startPostgres, type Postgres } from '../helpers/postgres';
import { serveStudio, studioTestsMissing } from '../helpers/studio';
import { startSimulator, type Simulator } from '../simulator/index.js';

// One service account for the whole studio (issue 34, point 8), with real processes: a
// PostgreSQL cluster, `tagsmith serve`, the service simulator on loopback and three members,
// each a library of its own driven by the CLI. A picture keyworded on one machine is never
// billed again on another, also when two machines ask at the same moment; the account's rate
// limit holds for all machines together (the simulator answers 502 above it).

const missing = await studioTestsMissing('the studio account tests', { keychain: true });

interface KeywordJson {
  billable: number;
  cached: number;
  assets: { path: string; suggestions: { keyword: string; score: number }[] }[];
}

describe.skipIf(missing !== null)('the studio shares one service account', () => {
  const creds = { clientId: 'studio-acct', clientSecret: 'studio-acct-secret' };
  let pgc: Postgres;
  let server: ChildProcess;
  let sim: Simulator;
  /** member C reaches the studio through this proxy, which can cut it off */
  let proxy: FaultProxy;
  const photos = realpathSync(mkdtempSync(join(tmpdir(), 'tagsmith-acct-photos-')));
  const libs = ['a', 'b', 'c'].map((n) => mkdtempSync(join(tmpdir(), `tagsmith-acct-${n}-`)));
  const [libA, libB, libC] = libs;
  const users = ['ana', 'ben', 'cem'];
  const pic = (name: string) => join(photos, 'shoot', name);

  const run = async (lib: string, args: string[], input?: string) => {
    const r = await tagsmith(lib, args, { input, serviceUrl: sim.url, creds });
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    return r;
  };
  const calls = (path: string) => sim.log.filter((e) => e.path === path && e.status === 200).length;

  beforeAll(async () => {
    mkdirSync(join(photos, 'shoot'));
    const colours = ['#c0392b', '#2980b9', '#27ae60', '#8e44ad', '#f39c12', '#16a085', '#d35400', '#2c3e50', '#7f8c8d'];
    for (const [i, c] of colours.entries()) {
      await sharp({ create: { width: 96 + i, height: 64, channels: 3, background: c } }).jpeg().withMetadata({ orientation: 1 }).toFile(pic(`p${i}.jpg`));
    }
    sim = await startSimulator({ port: 0, accounts: [creds] });
    pgc = startPostgres();
    pgc.createDatabase('studio');
    for (const u of users) await run(libA, ['serve', 'user', 'add', u, '--role', 'editor', '--database', pgc.url('studio'), '--password-stdin'], `${u}-secret-1\n`);
    let served: { url: string };
    ({ child: server, served } = await serveStudio(pgc.url('studio')));
    const url = new URL(served.url);
    proxy = await startFaultProxy({ host: url.hostname, port: Number(url.port) });
    for (const [i, lib] of libs.entries()) {
      await run(lib, ['index', join(photos, 'shoot')]);
      const address = lib === libC ? `https://${proxy.address}` : served.url;
      await run(lib, ['studio', 'join', address, '--user', users[i], '--password-stdin', '--yes'], `${users[i]}-secret-1\n`);
    }
  });

  afterAll(async () => {
    for (const lib of libs) await tagsmith(lib, ['studio', 'leave']);
    await proxy?.close();
    server?.kill('SIGKILL');
    pgc?.stop();
    await sim?.close();
  });

  it('a picture keyworded on one machine is not billed again on another: the result comes from the studio', async () => {
    const before = calls('/v1/keywords');
    const a = (await run(libA, ['keyword', pic('p0.jpg'), '--json'])).json<KeywordJson>();
    expect(a).toMatchObject({ billable: 1, cached: 0 });
    expect(calls('/v1/keywords') - before).toBe(1);

    // Another member, its own library and result cache: the studio knows the answer already.
    const b = (await run(libB, ['keyword', pic('p0.jpg'), '--json'])).json<KeywordJson>();
    expect(b).toMatchObject({ billable: 0, cached: 1 });
    expect(b.assets[0].suggestions).toEqual(a.assets[0].suggestions);
    expect(calls('/v1/keywords') - before).toBe(1);
  });

  it('two machines keywording the same pictures at the same moment pay for each picture once', async () => {
    const names = ['p1.jpg', 'p2.jpg', 'p3.jpg', 'p4.jpg'].map(pic);
    const before = calls('/v1/keywords');
    const [a, b] = await Promise.all([run(libA, ['keyword', ...names, '--json']), run(libB, ['keyword', ...names, '--json'])]);
    expect(calls('/v1/keywords') - before).toBe(names.length);
    // Both got every picture's answer, and the same one.
    const byPath = (r: KeywordJson) => Object.fromEntries(r.assets.map((x) => [x.path, x.suggestions]));
    expect(byPath(b.json<KeywordJson>())).toEqual(byPath(a.json<KeywordJson>()));
    expect(Object.keys(byPath(a.json<KeywordJson>())).sort()).toEqual([...names].sort());
  });

  it('results paid for while the studio could not be reached reach it with the next sync', async () => {
    // Member C is cut off from the studio: its keywording goes on alone (never waits on the
    // network); once the studio is back, its next sync hands the paid answer over and member A
    // finds it there.
    const before = calls('/v1/keywords');
    proxy.cutAfter = () => 0;
    const c = (await run(libC, ['keyword', pic('p8.jpg'), '--json'])).json<KeywordJson>();
    expect(c.billable).toBe(1);
    expect(c.assets[0].suggestions.length).toBeGreaterThan(0);
    proxy.cutAfter = () => null;
    await run(libC, ['studio', 'sync', '--json']);
    const a = (await run(libA, ['keyword', pic('p8.jpg'), '--json'])).json<KeywordJson>();
    expect(a).toMatchObject({ billable: 0, cached: 1 });
    expect(calls('/v1/keywords') - before).toBe(1);
  });

  it('the account’s rate limit holds for three machines captioning at once: no 502', async () => {
    // Captions are limited to one per second per account; each machine alone keeps to it, three
    // at once would not without the studio's shared pace.
    const before = sim.log.length;
    await Promise.all([
      run(libA, ['caption', pic('p5.jpg'), pic('p6.jpg'), '--json']),
      run(libB, ['caption', pic('p7.jpg'), pic('p1.jpg'), '--json']),
      run(libC, ['caption', pic('p2.jpg'), pic('p3.jpg'), '--json']),
    ]);
    const captions = sim.log.slice(before).filter((e) => e.path === '/v1/image_captioning');
    expect(captions.filter((e) => e.status === 200)).toHaveLength(6);
    expect(captions.filter((e) => e.status === 502)).toHaveLength(0);
  });
});
