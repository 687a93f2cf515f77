import { request } from 'node:https';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flushLog, setLogFile } from '../../src-main/core/log';
import { StudioClient, StudioError } from '../../src-main/studio/client';
import type { ChangeIn, LoginAnswer, PullAnswer, PushAnswer } from '../../src-main/studio/protocol';
import { addUser } from '../../src-main/studio/server/accounts';
import { startStudioServer, type StudioServer } from '../../src-main/studio/server/http';
import { LoginLimiter } from '../../src-main/studio/server/login-limit';
import { fingerprintOf, loadIdentity } from '../../src-main/studio/server/identity';
import { StudioStore } from '../../src-main/studio/server/store';
import { startPostgres, type Postgres } from '../helpers/postgres';
import { studioTestsMissing } from '../helpers/studio';

// The studio's library server against a real PostgreSQL cluster (a throw-away one, on a Unix
// socket), reached over real HTTPS by the replica's client.

const missing = await studioTestsMissing('the studio server tests', { keychain: false });

const PASSWORDS = { ana: 'ana-secret-1', ben: 'ben-secret-2', vic: 'vic-secret-3' };

describe.skipIf(missing !== null)('the studio library server', () => {
  let pgc: Postgres;
  let store: StudioStore;
  let server: StudioServer;
  const logFile = join(mkdtempSync(join(tmpdir(), 'tagsmith-studio-log-')), 'server.log');

  beforeAll(async () => {
    setLogFile(logFile);
    pgc = startPostgres();
    pgc.createDatabase('studio');
    store = await StudioStore.open(pgc.url('studio'));
    await addUser(store, 'ana', 'admin', PASSWORDS.ana);
    await addUser(store, 'ben', 'editor', PASSWORDS.ben);
    await addUser(store, 'vic', 'viewer', PASSWORDS.vic);
    // The sign-in limiter's clock stands still: a block never runs out while a slow machine runs the test.
    server = await startStudioServer(store, { host: '127.0.0.1', port: 0, tls: await loadIdentity(store, {}), limiter: new LoginLimiter(() => 0) });
  });

  afterAll(async () => {
    await server?.close();
    await store?.close();
    pgc?.stop();
  });

  const signIn = async (user: keyof typeof PASSWORDS, deviceId: string, pin = server.fingerprint): Promise<StudioClient> => {
    const client = new StudioClient(new URL(server.url), pin);
    const a = await client.call<LoginAnswer>('POST', '/v1/login', { user, password: PASSWORDS[user], device: { id: deviceId, name: `${user}'s laptop` } });
    client.setToken(a.token);
    return client;
  };
  const change = (deviceSeq: number, body: unknown = { asset: 'vol:a/1.jpg', field: 'caption', value: `v${deviceSeq}` }): ChangeIn => ({ deviceSeq, hlc: `000001${deviceSeq}`, kind: 'asset.set', body });
  const refusal = async (p: Promise<unknown>): Promise<StudioError> => {
    const err = await p.then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(StudioError);
    return err as StudioError;
  };

  it('keeps its self-signed certificate in the database: a restart shows the same fingerprint', async () => {
    const again = await loadIdentity(store, {});
    expect(again.fingerprint).toBe(server.fingerprint);
    const probe = await StudioClient.probe(new URL(server.url));
    expect(probe.fingerprint).toBe(server.fingerprint);
    expect(probe.hello.studio.name).toBe('Studio');
  });

  it('signs members in and refuses a wrong password with a clear message', async () => {
    const ana = await signIn('ana', 'device-ana-1');
    const me = await ana.call<{ user: { name: string; role: string } }>('GET', '/v1/me');
    expect(me.user).toEqual({ name: 'ana', role: 'admin' });
    const client = new StudioClient(new URL(server.url), server.fingerprint);
    const e = await refusal(client.call('POST', '/v1/login', { user: 'ben', password: 'wrong password', device: { id: 'device-ben-9', name: 'x' } }));
    expect(e.status).toBe(401);
    expect(e.message).toContain('user name or password is wrong');
  });

  it('rate-limits sign-in attempts after five failures, even with the right password then', async () => {
    await addUser(store, 'guessed', 'editor', 'the-right-one');
    const client = new StudioClient(new URL(server.url), server.fingerprint);
    const attempt = (password: string) => client.call('POST', '/v1/login', { user: 'guessed', password, device: { id: 'device-guess-1', name: 'x' } });
    for (let i = 0; i < 5; i++) expect((await refusal(attempt(`guess ${i}`))).status).toBe(401);
    const blocked = await refusal(attempt('the-right-one'));
    expect(blocked.status).toBe(429);
    expect(blocked.message).toBe('Too many failed sign-ins for “guessed”: try again in 30 s.');
  });

  it('numbers pushed changes in commit order, applies a replay once and refuses a changed one', async () => {
    const ben = await signIn('ben', 'device-ben-1');
    const first = await ben.call<PushAnswer>('POST', '/v1/changes', { changes: [change(1), change(2), change(3)] });
    expect(first).toMatchObject({ applied: 3, duplicates: 0 });
    const replay = await ben.call<PushAnswer>('POST', '/v1/changes', { changes: [change(1), change(2), change(3)] });
    expect(replay).toEqual({ applied: 0, duplicates: 3, last: first.last });
    const changed = await refusal(ben.call('POST', '/v1/changes', { changes: [change(2, { asset: 'vol:a/1.jpg', field: 'caption', value: 'other' })] }));
    expect(changed.status).toBe(409);
    expect(changed.message).toContain('already in the studio with other content');
    const page = await ben.call<PullAnswer>('GET', '/v1/changes?after=0');
    const mine = page.changes.filter((c) => c.deviceId === 'device-ben-1');
    expect(mine.map((c) => c.deviceSeq)).toEqual([1, 2, 3]);
    expect(mine.every((c) => c.user === 'ben')).toBe(true);
  });

  it('gives every change a number with no gap when devices push at once', async () => {
    const a = await signIn('ana', 'device-ana-2');
    const b = await signIn('ben', 'device-ben-2');
    const batch = (from: number) => Array.from({ length: 20 }, (_, i) => change(from + i));
    // Each device pushes its batches in turn, as a replica does; the two devices at once.
    const pushAll = async (c: StudioClient) => {
      for (const from of [1, 21, 41]) await c.call('POST', '/v1/changes', { changes: batch(from) });
    };
    await Promise.all([pushAll(a), pushAll(b)]);
    const all = (await a.call<PullAnswer>('GET', '/v1/changes?after=0&limit=5000')).changes;
    expect(all.map((c) => c.seq)).toEqual(all.map((_, i) => i + 1));
    for (const dev of ['device-ana-2', 'device-ben-2']) {
      const seqs = all.filter((c) => c.deviceId === dev).map((c) => c.deviceSeq);
      expect(seqs).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    }
  });

  it('wakes a waiting pull when another member pushes', async () => {
    const ana = await signIn('ana', 'device-ana-3');
    const ben = await signIn('ben', 'device-ben-3');
    const head = (await ana.call<{ head: number }>('GET', '/v1/me')).head;
    const waiting = ana.call<PullAnswer>('GET', `/v1/changes?after=${head}&wait=30`);
    await ben.call('POST', '/v1/changes', { changes: [change(1, { asset: 'vol:a/9.jpg', field: 'rating', value: 4 })] });
    const got = await waiting;
    expect(got.changes.map((c) => c.body)).toEqual([{ asset: 'vol:a/9.jpg', field: 'rating', value: 4 }]);
  });

  it('refuses a viewer’s change and an editor’s user management, saying who may', async () => {
    const vic = await signIn('vic', 'device-vic-1');
    const e = await refusal(vic.call('POST', '/v1/changes', { changes: [change(1)] }));
    expect(e.status).toBe(403);
    expect(e.message).toBe('vic is a viewer in this studio and cannot change the library. An admin can change the role.');
    expect((await vic.call<PullAnswer>('GET', '/v1/changes?after=0&limit=1')).changes).toHaveLength(1);
    const ben = await signIn('ben', 'device-ben-4');
    expect((await refusal(ben.call('POST', '/v1/users', { name: 'eve', role: 'admin', password: 'eve-password' }))).status).toBe(403);
    const ana = await signIn('ana', 'device-ana-4');
    await ana.call('POST', '/v1/users', { name: 'eve', role: 'viewer', password: 'eve-password' });
  });

  it('refuses a token of another studio as such, and a server with another certificate before sending anything', async () => {
    pgc.createDatabase('other');
    const otherStore = await StudioStore.open(pgc.url('other'));
    await addUser(otherStore, 'ana', 'admin', PASSWORDS.ana);
    const other = await startStudioServer(otherStore, { host: '127.0.0.1', port: 0, tls: await loadIdentity(otherStore, {}) });
    try {
      expect(other.fingerprint).not.toBe(server.fingerprint);
      const ana = await signIn('ana', 'device-ana-5');
      const token = (ana as unknown as { token: string }).token;
      const atOther = new StudioClient(new URL(other.url), other.fingerprint, token);
      const e = await refusal(atOther.call('GET', '/v1/me'));
      expect(e.status).toBe(401);
      expect(e.message).toContain('belongs to another studio');
      // The replica pinned the first server; a server at that address with another certificate is refused in the handshake.
      const pinned = new StudioClient(new URL(other.url), server.fingerprint, token);
      const changed = await refusal(pinned.call('POST', '/v1/changes', { changes: [change(1)] }));
      expect(changed.code).toBe('certificate_changed');
      expect(changed.message).toContain('Nothing was sent');
      await flushLog();
      expect(readFileSync(logFile, 'utf8')).not.toContain('studio POST /v1/changes 401');
    } finally {
      await other.close();
      await otherStore.close();
    }
  });

  it('keeps a connection open between requests, and still refuses a server at that address with another certificate', async () => {
    // A server of this studio (same certificate) on a port of its own, so it can be replaced.
    const first = await startStudioServer(store, { host: '127.0.0.1', port: 0, tls: await loadIdentity(store, {}) });
    const handshakes = { first: 0, second: 0 };
    first.server.on('secureConnection', () => handshakes.first++);
    const port = new URL(first.url).port;
    const client = new StudioClient(new URL(first.url), server.fingerprint);
    const a = await client.call<LoginAnswer>('POST', '/v1/login', { user: 'ben', password: PASSWORDS.ben, device: { id: 'device-ben-keep', name: 'x' } });
    client.setToken(a.token);
    for (let i = 0; i < 3; i++) await client.call('GET', '/v1/me');
    expect(handshakes.first).toBe(1);
    await first.close();
    pgc.createDatabase('imposter');
    const otherStore = await StudioStore.open(pgc.url('imposter'));
    const second = await startStudioServer(otherStore, { host: '127.0.0.1', port: Number(port), tls: await loadIdentity(otherStore, {}) });
    second.server.on('request', () => handshakes.second++);
    try {
      expect(second.fingerprint).not.toBe(server.fingerprint);
      const e = await refusal(client.call('POST', '/v1/changes', { changes: [change(1)] }));
      expect(e.code).toBe('certificate_changed');
      expect(e.message).toContain('Nothing was sent');
      expect(handshakes.second).toBe(0);
    } finally {
      await second.close();
      await otherStore.close();
    }
  });

  it('uses a given certificate instead of its own', async () => {
    const made = await generate([{ name: 'commonName', value: 'studio.example' }], { keySize: 2048, algorithm: 'sha256' });
    const dir = mkdtempSync(join(tmpdir(), 'tagsmith-cert-'));
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(dir, 'cert.pem'), made.cert);
    writeFileSync(join(dir, 'key.pem'), made.private);
    const tls = await loadIdentity(store, { cert: join(dir, 'cert.pem'), key: join(dir, 'key.pem') });
    expect(tls.fingerprint).toBe(fingerprintOf(made.cert));
    expect(tls.fingerprint).not.toBe(server.fingerprint);
  });

  it('tells a client of another protocol version what to update, and a non-client what this is', async () => {
    const ask = (headers: Record<string, string>) =>
      new Promise<{ status: number; body: { error: { message: string } } }>((resolve, reject) => {
        const req = request(new URL('/v1/hello', server.url), { rejectUnauthorized: false, headers }, (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as { error: { message: string } } }));
        });
        req.on('error', reject);
        req.end();
      });
    const newer = await ask({ 'tagsmith-protocol': '99' });
    expect(newer.status).toBe(426);
    expect(newer.body.error.message).toContain('ask the studio\'s admin to update the server');
    const none = await ask({});
    expect(none.status).toBe(400);
    expect(none.body.error.message).toContain('connect to it from Tagsmith');
  });

  it('never writes a password or a token into its log', async () => {
    await signIn('ana', 'device-ana-6');
    await flushLog();
    const text = readFileSync(logFile, 'utf8');
    expect(text).toContain('studio POST /v1/login 200 ana');
    for (const pw of Object.values(PASSWORDS)) expect(text).not.toContain(pw);
    expect(text).not.toMatch(/Bearer|[A-Za-z0-9_-]{43}/);
  });
});
