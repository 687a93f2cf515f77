import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSecret, studioKeychain, type Membership } from '../../src-main/studio/membership';
import { tagsmith } from '../helpers/cli';
import { startPostgres, type Postgres } from '../helpers/postgres';
import { serveStudio, studioTestsMissing, type Served } from '../helpers/studio';

// `tagsmith serve` and `tagsmith studio join|leave` as a studio's admin and a member run them:
// the server a real process on a real PostgreSQL, the member's CLI another, the password in the
// real OS keychain (run under scripts/with-keyring.sh).

const missing = await studioTestsMissing('the studio CLI tests', { keychain: true });

describe.skipIf(missing !== null)('tagsmith serve and tagsmith studio', () => {
  let pgc: Postgres;
  let server: { child: ChildProcess; served: Served };
  const library = mkdtempSync(join(tmpdir(), 'tagsmith-member-'));

  beforeAll(async () => {
    pgc = startPostgres();
    pgc.createDatabase('studio');
  });

  afterAll(() => {
    server?.child.kill('SIGKILL');
    pgc?.stop();
  });

  it('adds users from the command line, refusing a role that does not exist', async () => {
    const added = await tagsmith(null, ['serve', 'user', 'add', 'ana', '--role', 'admin', '--database', pgc.url('studio'), '--password-stdin', '--json'], { input: 'ana-secret-1\n' });
    expect(added.code).toBe(0);
    expect(added.json()).toEqual({ user: { name: 'ana', role: 'admin' } });
    const bad = await tagsmith(null, ['serve', 'user', 'add', 'bo', '--role', 'boss', '--database', pgc.url('studio'), '--password-stdin'], { input: 'bo-secret-12\n' });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('“boss” is not a role: use admin, editor or viewer.');
    const list = await tagsmith(null, ['serve', 'user', 'list', '--database', pgc.url('studio'), '--json']);
    expect(list.json<{ users: Array<{ name: string }> }>().users.map((u) => u.name)).toEqual(['ana']);
  });

  it('serves, and a member joins after the certificate is confirmed; the password goes to the keychain only', async () => {
    server = await serveStudio(pgc.url('studio'), { args: ['--name', 'Studio Nord'] });
    expect(server.served.studio.name).toBe('Studio Nord');
    expect(server.served.fingerprint).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);

    const unconfirmed = await tagsmith(library, ['studio', 'join', server.served.url, '--user', 'ana', '--password-stdin'], { input: 'ana-secret-1\n' });
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toContain(`the studio's certificate is SHA-256 ${server.served.fingerprint}`);
    expect(existsSync(join(library, 'studio.json'))).toBe(false);

    const wrong = await tagsmith(library, ['studio', 'join', server.served.url, '--user', 'ana', '--password-stdin', '--yes'], { input: 'not-her-password\n' });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('The user name or password is wrong for studio “Studio Nord”.');

    const joined = await tagsmith(library, ['studio', 'join', server.served.url, '--user', 'ana', '--password-stdin', '--yes', '--json'], { input: 'ana-secret-1\n' });
    expect(joined.code).toBe(0);
    expect(joined.json()).toMatchObject({ studio: server.served.studio, user: 'ana', role: 'admin', fingerprint: server.served.fingerprint });
    const file = readFileSync(join(library, 'studio.json'), 'utf8');
    expect(file).not.toContain('ana-secret-1');
    const secret = await readSecret(studioKeychain(JSON.parse(readFileSync(join(library, 'studio.json'), 'utf8')) as Membership));
    expect(secret?.password).toBe('ana-secret-1');
    expect(file).not.toContain(secret!.token);

    const again = await tagsmith(library, ['studio', 'join', server.served.url, '--user', 'ana', '--password-stdin', '--yes'], { input: 'ana-secret-1\n' });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already a member of studio “Studio Nord”');
  });

  it('leaves the studio: the keychain entry and the membership are gone, the library stays', async () => {
    const membership = JSON.parse(readFileSync(join(library, 'studio.json'), 'utf8')) as Membership;
    const left = await tagsmith(library, ['studio', 'leave', '--json']);
    expect(left.code).toBe(0);
    expect(existsSync(join(library, 'studio.json'))).toBe(false);
    expect(await readSecret(studioKeychain(membership))).toBeNull();
  });

  it('stops cleanly on SIGTERM', async () => {
    const exited = new Promise<number | null>((resolve) => server.child.once('exit', resolve));
    server.child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
