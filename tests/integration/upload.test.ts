import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { osKeychain } from '../../src-main/credentials';
import { until } from '../helpers/until';
import { makeCertificate, startFtpServer } from '../helpers/ftp-server';
import { startSftpServer } from '../helpers/sftp-server';
import { cli, creds, makeLibrary, makeSource, PASSWORD, same, USER } from '../helpers/upload-cli';
import { tagsmithSync } from '../helpers/cli';

// `tagsmith upload` (issue 19's contract) against real servers on loopback: pyftpdlib for FTP
// and explicit FTPS, ssh2's SFTP server. The CLI runs as a child process on a real library of
// real JPEGs; what lands on the servers is compared byte for byte with the library files.

// Each test runs the CLI a dozen times on a machine that may be very busy: the safety net is wide.
const LONG = 900_000;
let source: string;
const library = (name: string, files: string[]) => makeLibrary(source, name, files);

function subjects(file: string): string[] {
  const r = spawnSync('exiftool', ['-j', '-XMP-dc:Subject', file], { encoding: 'utf8' });
  const v = (JSON.parse(r.stdout) as { Subject?: string | string[] }[])[0].Subject;
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

beforeAll(async () => {
  source = await makeSource();
}, LONG);

describe('tagsmith upload over FTP', { timeout: LONG }, () => {
  it('sends the library files after their metadata write, holds back what fails the check, and records them as sent', async () => {
    const { root, lib, photo } = await library('ftp', ['harbour.jpg', 'pier.jpg', 'small.jpg']);
    const server = await startFtpServer({ dir: join(root, 'server'), user: USER, password: PASSWORD, log: join(root, 'ftp.log') });
    try {
      const r = await cli(lib, ['upload', '--agency', 'adobe', photo('harbour.jpg'), photo('pier.jpg'), photo('small.jpg'), '--url', `ftp://127.0.0.1:${server.port}/incoming`, '--json'], creds);
      expect(r.code, r.stderr).toBe(0);
      const out = r.json<{ uploaded: string[]; failed: { path: string; reason: string }[] }>();
      expect(Object.keys(out).sort()).toEqual(['failed', 'uploaded']);
      expect(out.uploaded.sort()).toEqual([photo('harbour.jpg'), photo('pier.jpg')]);
      expect(out.failed).toEqual([{ path: photo('small.jpg'), reason: expect.stringMatching(/Held back: it fails Adobe Stock's rules .*4 MP/) }]);
      for (const f of ['harbour.jpg', 'pier.jpg']) {
        const remote = join(server.dir, 'incoming', f);
        // The library file itself, under its own name, its keywords written in first.
        expect(same(remote, photo(f))).toBe(true);
        expect(subjects(remote)).toEqual(expect.arrayContaining(['boat', 'harbour', 'dawn']));
      }
      expect(existsSync(join(server.dir, 'incoming', 'small.jpg'))).toBe(false);

      const sent = await cli(lib, ['search', '--sent-to', 'adobe', '--json']);
      expect(sent.code, sent.stderr).toBe(0);
      expect(sent.json<{ path: string }[]>().map((a) => a.path).sort()).toEqual([photo('harbour.jpg'), photo('pier.jpg')]);
      const notSent = await cli(lib, ['search', '--not-sent-to', 'adobe', '--json']);
      expect(notSent.json<{ path: string }[]>().map((a) => a.path)).toEqual([photo('small.jpg')]);
      expect((await cli(lib, ['search', '--sent-to', 'shutterstock', '--json'])).json()).toEqual([]);
      expect((await cli(lib, ['search', '--sent-to', 'nope'])).code).toBe(2);

      // Asked again, photos already there unchanged are reported as sent, not sent twice.
      const again = await cli(lib, ['upload', '--agency', 'adobe', photo('harbour.jpg'), photo('pier.jpg'), '--url', `ftp://127.0.0.1:${server.port}/incoming`, '--json'], creds);
      expect(again.json<{ uploaded: string[] }>().uploaded.sort()).toEqual([photo('harbour.jpg'), photo('pier.jpg')]);
      // --force sends the photo that fails the check.
      const forced = await cli(lib, ['upload', '--agency', 'adobe', photo('small.jpg'), '--url', `ftp://127.0.0.1:${server.port}/incoming`, '--force', '--json'], creds);
      expect(forced.code, forced.stderr).toBe(0);
      expect(forced.json()).toEqual({ uploaded: [photo('small.jpg')], failed: [] });
      expect(same(join(server.dir, 'incoming', 'small.jpg'), photo('small.jpg'))).toBe(true);
      const received = server.log().filter((l) => l.startsWith('RECEIVED'));
      expect(received.map((l) => l.split(' ')[1]).sort()).toEqual(['harbour.jpg', 'pier.jpg', 'small.jpg']);
    } finally {
      await server.stop();
    }
  });

  it('without credentials or an address it says what to do and sends nothing', async () => {
    const { lib, photo } = await library('nocreds', ['harbour.jpg']);
    const noCreds = await cli(lib, ['upload', '--agency', 'adobe', photo('harbour.jpg'), '--url', 'ftp://127.0.0.1:9/x']);
    expect(noCreds.code).toBe(1);
    expect(noCreds.stderr).toMatch(/No upload account for Adobe Stock: run `tagsmith agency-login --agency adobe` or set TAGSMITH_UPLOAD_USER/);
    const noUrl = await cli(lib, ['upload', '--agency', 'adobe', photo('harbour.jpg')], creds);
    expect(noUrl.code).toBe(1);
    expect(noUrl.stderr).toMatch(/own upload server.*--url/);
    const withUser = await cli(lib, ['upload', '--agency', 'adobe', photo('harbour.jpg'), '--url', 'ftp://me:pw@127.0.0.1/x'], creds);
    expect(withUser.code).toBe(1);
    expect(withUser.stderr).toMatch(/no user name or password in the upload address/i);
    expect(withUser.stderr).not.toContain('pw@');
  });

  it('a wrong password stops that agency’s queue with a clear message and nothing more is sent', async () => {
    const { root, lib, photo } = await library('badpass', ['harbour.jpg', 'pier.jpg', 'nets.jpg']);
    const server = await startFtpServer({ dir: join(root, 'server'), user: USER, password: PASSWORD, log: join(root, 'ftp.log') });
    try {
      const files = ['harbour.jpg', 'pier.jpg', 'nets.jpg'].map(photo);
      const r = await cli(lib, ['upload', '--agency', 'adobe', ...files, '--url', `ftp://127.0.0.1:${server.port}/`, '--json'], { TAGSMITH_UPLOAD_USER: USER, TAGSMITH_UPLOAD_PASSWORD: 'wrong' });
      expect(r.code, r.stderr).toBe(0);
      const out = r.json<{ uploaded: string[]; failed: { path: string; reason: string }[] }>();
      expect(out.uploaded).toEqual([]);
      expect(out.failed).toHaveLength(3);
      expect(out.failed[0].reason).toMatch(/refused the user name or password .*Uploads to Adobe Stock are paused/);
      for (const f of out.failed.slice(1)) expect(f.reason).toMatch(/Not sent: uploads to Adobe Stock stopped/);
      expect(r.stdout).not.toContain('wrong');
      // One login tried, nothing stored on the server.
      expect(server.log()).toEqual([`LOGIN_FAILED ${USER}`]);
      expect(readdirSync(server.dir)).toEqual([]);
      // With the right password the same command sends them all.
      const again = await cli(lib, ['upload', '--agency', 'adobe', ...files, '--url', `ftp://127.0.0.1:${server.port}/`, '--json'], creds);
      expect(again.json<{ uploaded: string[] }>().uploaded.sort()).toEqual([...files].sort());
    } finally {
      await server.stop();
    }
  });

  it('a file the server refuses (quota) is reported for that file and the rest go on', async () => {
    const { root, lib, photo } = await library('refuse', ['harbour.jpg', 'pier.jpg', 'nets.jpg']);
    const server = await startFtpServer({ dir: join(root, 'server'), user: USER, password: PASSWORD, log: join(root, 'ftp.log'), refuse: ['pier.jpg'] });
    try {
      const r = await cli(lib, ['upload', '--agency', 'adobe', photo('harbour.jpg'), photo('pier.jpg'), photo('nets.jpg'), '--url', `ftp://127.0.0.1:${server.port}/`, '--json'], creds);
      expect(r.code, r.stderr).toBe(0);
      const out = r.json<{ uploaded: string[]; failed: { path: string; reason: string }[] }>();
      expect(out.uploaded.sort()).toEqual([photo('harbour.jpg'), photo('nets.jpg')]);
      expect(out.failed).toEqual([{ path: photo('pier.jpg'), reason: expect.stringMatching(/refused the file \(552 Exceeded storage allocation/) }]);
      expect(same(join(server.dir, 'nets.jpg'), photo('nets.jpg'))).toBe(true);
      const sent = (await cli(lib, ['search', '--sent-to', 'adobe', '--json'])).json<{ path: string }[]>();
      expect(sent.map((a) => a.path).sort()).toEqual([photo('harbour.jpg'), photo('nets.jpg')]);
    } finally {
      await server.stop();
    }
  });

  it('kill -9 in the middle of an upload, then the same command again: every file complete and byte-identical, none sent twice', async () => {
    const files = ['harbour.jpg', 'pier.jpg', 'nets.jpg'];
    const { root, lib, photo } = await library('kill', files);
    // Throttled so that one file takes a few seconds: the kill lands while bytes are on their way.
    const throttle = Math.max(200_000, Math.ceil(statSync(join(source, 'pier.jpg')).size / 4));
    const server = await startFtpServer({ dir: join(root, 'server'), user: USER, password: PASSWORD, log: join(root, 'ftp.log'), throttle });
    try {
      const url = `ftp://127.0.0.1:${server.port}/in`;
      const first = cli(lib, ['upload', '--agency', 'adobe', ...files.map(photo), '--url', url, '--json'], creds);
      // Wait until one file is complete and the next one is partly on the server.
      await until(() => {
        const log = server.log().filter((l) => l.startsWith('RECEIVED'));
        if (log.length < 1) return false;
        const dir = join(server.dir, 'in');
        return readdirSync(dir).some((f) => {
          const size = statSync(join(dir, f)).size;
          return !log.some((l) => l.split(' ')[1] === f) && size > 0 && size < statSync(photo(f)).size;
        });
      }, 'a file partly uploaded');
      process.kill(first.pid()!, 'SIGKILL');
      const killed = await first;
      expect(killed.code).toBeNull();
      // The server sees the cut-off connection end: as INCOMPLETE, or (a dead client's socket
      // closes normally) as a file received short of its size.
      const short = (l: string) => {
        const [what, name, size] = l.split(' ');
        return what === 'INCOMPLETE' || (what === 'RECEIVED' && Number(size) < statSync(photo(name)).size);
      };
      await until(() => server.log().some(short), 'the server to see the transfer cut off');

      const again = await cli(lib, ['upload', '--agency', 'adobe', ...files.map(photo), '--url', url, '--json'], creds);
      expect(again.code, again.stderr).toBe(0);
      expect(again.json<{ uploaded: string[]; failed: unknown[] }>()).toEqual({ uploaded: expect.arrayContaining(files.map(photo)), failed: [] });
      for (const f of files) expect(same(join(server.dir, 'in', f), photo(f)), f).toBe(true);
      // Each file finished exactly once on the server: the one cut off was resumed (APPE), not sent again.
      const complete = server.log().filter((l) => l.startsWith('RECEIVED') && !short(l)).map((l) => l.split(' ')[1]);
      expect(complete.sort()).toEqual([...files].sort());
      const sent = (await cli(lib, ['search', '--sent-to', 'adobe', '--json'])).json<{ path: string }[]>();
      expect(sent).toHaveLength(3);
    } finally {
      await server.stop();
    }
  });
});

describe('tagsmith upload over FTPS (explicit TLS)', { timeout: LONG }, () => {
  it('refuses a server whose certificate it cannot trust, and says so', async () => {
    const { root, lib, photo } = await library('ftps', ['harbour.jpg']);
    const tls = makeCertificate(root);
    const server = await startFtpServer({ dir: join(root, 'server'), user: USER, password: PASSWORD, log: join(root, 'ftp.log'), tls });
    try {
      const url = `ftps://127.0.0.1:${server.port}/up`;
      const untrusted = await cli(lib, ['upload', '--agency', 'shutterstock', photo('harbour.jpg'), '--url', url, '--force', '--json'], creds);
      expect(untrusted.code, untrusted.stderr).toBe(0);
      expect(untrusted.json<{ failed: { reason: string }[] }>().failed[0].reason).toMatch(/secure connection to 127\.0\.0\.1.*certificate/i);
      expect(existsSync(join(server.dir, 'up', 'harbour.jpg'))).toBe(false);

      // A full transfer with the certificate trusted: upload-ftps.test.ts.
    } finally {
      await server.stop();
    }
  });
});

describe('tagsmith upload over SFTP', { timeout: LONG }, () => {
  it('sends to an SSH server, reports a refused file and goes on, and stops at a wrong password', async () => {
    const { root, lib, photo } = await library('sftp', ['harbour.jpg', 'pier.jpg', 'nets.jpg']);
    const server = await startSftpServer({ dir: join(root, 'server'), user: USER, password: PASSWORD, refuse: ['pier.jpg'] });
    try {
      const url = `sftp://127.0.0.1:${server.port}/adobe/batch1`;
      const files = ['harbour.jpg', 'pier.jpg', 'nets.jpg'].map(photo);
      const bad = await cli(lib, ['upload', '--agency', 'adobe', ...files, '--url', url, '--json'], { TAGSMITH_UPLOAD_USER: USER, TAGSMITH_UPLOAD_PASSWORD: 'nope' });
      expect(bad.code, bad.stderr).toBe(0);
      const badOut = bad.json<{ uploaded: string[]; failed: { reason: string }[] }>();
      expect(badOut.uploaded).toEqual([]);
      expect(badOut.failed[0].reason).toMatch(/SFTP server 127\.0\.0\.1 refused the user name or password/);
      expect(server.loginFailures).toBeGreaterThan(0);
      expect(server.received).toEqual([]);

      const r = await cli(lib, ['upload', '--agency', 'adobe', ...files, '--url', url, '--json'], creds);
      expect(r.code, r.stderr).toBe(0);
      const out = r.json<{ uploaded: string[]; failed: { path: string; reason: string }[] }>();
      expect(out.uploaded.sort()).toEqual([photo('harbour.jpg'), photo('nets.jpg')]);
      expect(out.failed).toEqual([{ path: photo('pier.jpg'), reason: expect.stringMatching(/SFTP server 127\.0\.0\.1 refused the file/) }]);
      for (const f of ['harbour.jpg', 'nets.jpg']) expect(same(join(server.dir, 'adobe', 'batch1', f), photo(f))).toBe(true);
    } finally {
      await server.stop();
    }
  });
});

// The account stored in the real OS keychain (run under scripts/with-keyring.sh).
async function keychainReason(): Promise<string | null> {
  const probe = osKeychain('tagsmith-upload-test', 'probe');
  try {
    await probe.set('x');
    const v = await probe.get();
    await probe.delete();
    return v === 'x' ? null : 'the keychain did not read back what was stored';
  } catch (e) {
    return (e as Error).message.split('\n')[0];
  }
}
const unreachable = await keychainReason();
if (unreachable && process.env.TAGSMITH_REQUIRE_KEYCHAIN === '1') throw new Error(`TAGSMITH_REQUIRE_KEYCHAIN=1 but no Secret Service is reachable: ${unreachable}`);
if (unreachable) console.log(`Skipping the keychain upload test: no Secret Service reachable (${unreachable}). Run under scripts/with-keyring.sh.`);

describe.skipIf(!!unreachable)('an agency account in the OS keychain', { timeout: LONG }, () => {
  it('agency-login stores address, user and password; upload uses them; nothing lands in the catalogue', async () => {
    const { root, lib, photo } = await library('keychain', ['nets.jpg']);
    const server = await startSftpServer({ dir: join(root, 'server'), user: USER, password: PASSWORD });
    try {
      // The password on stdin, as a script gives it.
      const login = tagsmithSync(lib, ['agency-login', '--agency', 'pond5', '--url', `sftp://127.0.0.1:${server.port}/drop`, '--user', USER, '--password-stdin', '--json'], { input: PASSWORD + '\n' });
      expect(login.code, login.stderr).toBe(0);
      expect(login.json()).toEqual({ agency: 'pond5', url: `sftp://127.0.0.1:${server.port}/drop`, user: USER, stored: 'keychain' });
      const r = await cli(lib, ['upload', '--agency', 'pond5', photo('nets.jpg'), '--force', '--json']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.json()).toEqual({ uploaded: [photo('nets.jpg')], failed: [] });
      expect(same(join(server.dir, 'drop', 'nets.jpg'), photo('nets.jpg'))).toBe(true);
      // The secret is in the keychain only: not in the catalogue or anything beside it.
      for (const f of readdirSync(lib)) {
        const p = join(lib, f);
        if (statSync(p).isFile()) expect(readFileSync(p).includes(Buffer.from(PASSWORD)), f).toBe(false);
      }
      const removed = tagsmithSync(lib, ['agency-login', '--agency', 'pond5', '--remove']);
      expect(removed.code, removed.stderr).toBe(0);
      const after = await cli(lib, ['upload', '--agency', 'pond5', photo('nets.jpg'), '--force', '--url', `sftp://127.0.0.1:${server.port}/drop`]);
      expect(after.code).toBe(1);
      expect(after.stderr).toMatch(/No upload account for Pond5/);
    } finally {
      await server.stop();
    }
  });
});
