import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeHostKey, startSftpServer } from '../helpers/sftp-server';
import { cli, creds, makeLibrary, makeSource, same, USER, PASSWORD } from '../helpers/upload-cli';
import { until } from '../helpers/until';

// `tagsmith upload` over SFTP against ssh2's real SSH/SFTP server on loopback: the server's host
// key trusted on first use and pinned per agency and host:port (a changed key refused before any
// credentials leave), one connection per agency for all its files (reconnected once when the
// link drops), and a kill -9 in the middle of a file, then the same command again.

const LONG = 900_000;
let source: string;
const library = (name: string, files: string[]) => makeLibrary(source, name, files);

interface Out { uploaded: string[]; failed: { path: string; reason: string }[] }

beforeAll(async () => {
  source = await makeSource();
}, LONG);

describe('SFTP host keys, trusted on first use', { timeout: LONG }, () => {
  it('records the key on first use, accepts it again, refuses another key before sending credentials, and trusts the new one once forgotten', async () => {
    const { root, lib, photo } = await library('hostkey', ['harbour.jpg', 'pier.jpg', 'nets.jpg']);
    const dir = join(root, 'server');
    const first = await startSftpServer({ dir, user: USER, password: PASSWORD, hostKey: makeHostKey() });
    const port = first.port;
    const url = `sftp://127.0.0.1:${port}/in`;
    let second: Awaited<ReturnType<typeof startSftpServer>> | null = null;
    try {
      const r1 = await cli(lib, ['upload', '--agency', 'adobe', photo('harbour.jpg'), '--url', url, '--json'], creds);
      expect(r1.code, r1.stderr).toBe(0);
      expect(r1.json<Out>()).toEqual({ uploaded: [photo('harbour.jpg')], failed: [] });
      expect(r1.stderr).toContain(`Trusted new host key ${first.fingerprint} for 127.0.0.1:${port}`);

      // The same key: accepted, nothing new said.
      const r2 = await cli(lib, ['upload', '--agency', 'adobe', photo('pier.jpg'), '--url', url, '--json'], creds);
      expect(r2.json<Out>()).toEqual({ uploaded: [photo('pier.jpg')], failed: [] });
      expect(r2.stderr).not.toContain('Trusted new host key');

      // The server restarted with another host key on the same address.
      await first.stop();
      second = await startSftpServer({ dir, user: USER, password: PASSWORD, hostKey: makeHostKey(), port });
      expect(second.fingerprint).not.toBe(first.fingerprint);
      const r3 = await cli(lib, ['upload', '--agency', 'adobe', photo('nets.jpg'), '--url', url, '--json'], creds);
      expect(r3.code, r3.stderr).toBe(0);
      const refused = r3.json<Out>();
      expect(refused.uploaded).toEqual([]);
      expect(refused.failed).toHaveLength(1);
      const reason = refused.failed[0].reason;
      expect(reason).toContain(`presented the host key ${second.fingerprint}`);
      expect(reason).toContain(`not the key trusted for Adobe Stock there`);
      expect(reason).toContain(first.fingerprint);
      expect(reason).toMatch(/Nothing was sent: no password, no file\. Verify the new key with Adobe Stock.*Settings › Agencies.*tagsmith agency-login --agency adobe --forget-host-key/);
      expect(r3.stderr).not.toContain('Trusted new host key');
      // The credentials never reached the server: no authentication was ever asked of it.
      expect(second.connections).toBe(1);
      expect(second.authAttempts).toBe(0);
      expect(second.received).toEqual([]);
      expect(existsSync(join(dir, 'in', 'nets.jpg'))).toBe(false);

      // Asked again, still refused: the pin is not replaced by trying.
      const r4 = await cli(lib, ['upload', '--agency', 'adobe', photo('nets.jpg'), '--url', url, '--json'], creds);
      expect(r4.json<Out>().failed[0].reason).toContain('not the key trusted');
      expect(second.authAttempts).toBe(0);

      // The user verified the key with the agency and forgets the old one.
      const forget = await cli(lib, ['agency-login', '--agency', 'adobe', '--forget-host-key', '--json']);
      expect(forget.code, forget.stderr).toBe(0);
      expect(forget.json()).toEqual({ agency: 'adobe', forgotten: [{ host: '127.0.0.1', port, keyType: 'ssh-rsa', fingerprint: first.fingerprint }] });
      const none = await cli(lib, ['agency-login', '--agency', 'adobe', '--forget-host-key']);
      expect(none.stdout).toMatch(/No SFTP host key was trusted for Adobe Stock/);

      const r5 = await cli(lib, ['upload', '--agency', 'adobe', photo('nets.jpg'), '--url', url, '--json'], creds);
      expect(r5.json<Out>()).toEqual({ uploaded: [photo('nets.jpg')], failed: [] });
      expect(r5.stderr).toContain(`Trusted new host key ${second.fingerprint} for 127.0.0.1:${port}`);
      for (const f of ['harbour.jpg', 'pier.jpg', 'nets.jpg']) expect(same(join(dir, 'in', f), photo(f)), f).toBe(true);
    } finally {
      await first.stop();
      await second?.stop();
    }
  });
});

describe('one SFTP connection per agency', { timeout: LONG }, () => {
  it('sends all of the agency’s files over one connection', async () => {
    const files = ['harbour.jpg', 'pier.jpg', 'nets.jpg'];
    const { root, lib, photo } = await library('oneconn', files);
    const server = await startSftpServer({ dir: join(root, 'server'), user: USER, password: PASSWORD });
    try {
      const r = await cli(lib, ['upload', '--agency', 'adobe', ...files.map(photo), '--url', `sftp://127.0.0.1:${server.port}/in`, '--json'], creds);
      expect(r.code, r.stderr).toBe(0);
      expect(r.json<Out>().uploaded.sort()).toEqual(files.map(photo).sort());
      expect(server.connections).toBe(1);
      expect(server.authAttempts).toBeGreaterThan(0);
      for (const f of files) expect(same(join(server.dir, 'in', f), photo(f)), f).toBe(true);
    } finally {
      await server.stop();
    }
  });

  it('connects once more when the server drops the connection between or during files, and every file arrives whole', async () => {
    const files = ['harbour.jpg', 'pier.jpg', 'nets.jpg'];
    const { root, lib, photo } = await library('reconnect', files);
    const throttle = Math.max(200_000, Math.ceil(statSync(join(source, 'pier.jpg')).size / 3));
    const server = await startSftpServer({ dir: join(root, 'server'), user: USER, password: PASSWORD, throttle });
    try {
      const run = cli(lib, ['upload', '--agency', 'adobe', ...files.map(photo), '--url', `sftp://127.0.0.1:${server.port}/in`, '--json'], creds);
      await until(() => server.received.length >= 1, 'the first file received');
      server.dropClients();
      const r = await run;
      expect(r.code, r.stderr).toBe(0);
      expect(r.json<Out>()).toEqual({ uploaded: expect.arrayContaining(files.map(photo)), failed: [] });
      expect(server.connections).toBe(2);
      for (const f of files) expect(same(join(server.dir, 'in', f), photo(f)), f).toBe(true);
    } finally {
      await server.stop();
    }
  });
});

describe('kill -9 in the middle of an SFTP upload', { timeout: LONG }, () => {
  it('the same command again: every file complete and byte-identical on the server, none sent twice', async () => {
    const files = ['harbour.jpg', 'pier.jpg', 'nets.jpg'];
    const { root, lib, photo } = await library('sftpkill', files);
    // Throttled so that one file takes a few seconds: the kill lands while bytes are on their way.
    const throttle = Math.max(200_000, Math.ceil(statSync(join(source, 'pier.jpg')).size / 4));
    const server = await startSftpServer({ dir: join(root, 'server'), user: USER, password: PASSWORD, throttle });
    try {
      const url = `sftp://127.0.0.1:${server.port}/in`;
      const first = cli(lib, ['upload', '--agency', 'adobe', ...files.map(photo), '--url', url, '--json'], creds);
      // Wait until one file is complete and the next one is partly on the server.
      await until(() => {
        if (server.received.length < 1) return false;
        const dir = join(server.dir, 'in');
        return readdirSync(dir).some((f) => {
          const size = statSync(join(dir, f)).size;
          return !server.received.some((r) => r.name === f) && size > 0 && size < statSync(photo(f)).size;
        });
      }, 'a file partly uploaded');
      process.kill(first.pid()!, 'SIGKILL');
      const killed = await first;
      expect(killed.code).toBeNull();
      await until(() => server.incomplete.length >= 1, 'the server to see the transfer cut off');
      const cut = server.incomplete[0];
      expect(cut.size).toBeLessThan(statSync(photo(cut.name)).size);

      const again = await cli(lib, ['upload', '--agency', 'adobe', ...files.map(photo), '--url', url, '--json'], creds);
      expect(again.code, again.stderr).toBe(0);
      expect(again.json<Out>()).toEqual({ uploaded: expect.arrayContaining(files.map(photo)), failed: [] });
      for (const f of files) expect(same(join(server.dir, 'in', f), photo(f)), f).toBe(true);
      // Each file was completed exactly once: the one cut off was resumed (appended), not sent again.
      const complete = server.received.filter((r) => r.size === statSync(photo(r.name)).size).map((r) => r.name);
      expect(complete.sort()).toEqual([...files].sort());
      // And no byte went twice: what the server was sent of each file adds up to its size.
      for (const f of files) expect(server.written.get(f), f).toBe(statSync(photo(f)).size);
      const sent = (await cli(lib, ['search', '--sent-to', 'adobe', '--json'])).json<{ path: string }[]>();
      expect(sent).toHaveLength(3);
    } finally {
      await server.stop();
    }
  });
});
