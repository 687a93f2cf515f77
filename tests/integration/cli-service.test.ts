import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tagsmith, type CliRun } from '../helpers/cli';
import { osKeychain } from '../../src-main/credentials';
import { startSimulator, type Simulator } from '../simulator';

// `tagsmith login | logout | jobs` and `--service-url` as a script uses them: a real child
// process, the simulator on loopback, and the real OS keychain (scripts/with-keyring.sh).

const SECRET = 'cli-s3cret-value';
let sim: Simulator;
let library: string;

const cli = (args: string[], opts: { input?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CliRun> =>
  tagsmith(library, args, { input: opts.input, env: { TAGSMITH_CLIENT_ID: '', TAGSMITH_CLIENT_SECRET: '', ...opts.env } });

async function keychainReason(): Promise<string | null> {
  try {
    await osKeychain('tagsmith-cli-probe', 'probe').set('x');
    await osKeychain('tagsmith-cli-probe', 'probe').delete();
    return null;
  } catch (e) {
    return (e as Error).message.split('\n')[0];
  }
}
const noKeychain = await keychainReason();
if (noKeychain && process.env.TAGSMITH_REQUIRE_KEYCHAIN === '1') throw new Error(`no Secret Service reachable: ${noKeychain}`);
if (noKeychain) console.log(`Skipping CLI login tests: no Secret Service reachable (${noKeychain}). Run under scripts/with-keyring.sh.`);

beforeAll(async () => {
  sim = await startSimulator({ accounts: [{ clientId: 'cli-id', clientSecret: SECRET }] });
  library = mkdtempSync(join(tmpdir(), 'tagsmith-cli-svc-'));
});
afterAll(async () => {
  await sim.close();
});

describe.skipIf(!!noKeychain)('tagsmith login / logout / jobs', () => {
  it('refuses credentials the service rejects and stores nothing', async () => {
    const r = await cli(['login', '--client-id', 'cli-id', '--secret-stdin', '--service-url', sim.url, '--json'], { input: 'wrong-secret\n' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/rejected these credentials; nothing was stored/);
    expect(r.stderr).not.toContain('wrong-secret');
  });

  it('stores a working pair in the keychain, checks it, and logs out', async () => {
    const r = await cli(['login', '--client-id', 'cli-id', '--secret-stdin', '--service-url', sim.url, '--json'], { input: SECRET + '\n' });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { stored: string; clientId: string; connection: { ok: boolean } };
    expect(out).toMatchObject({ stored: 'keychain', clientId: 'cli-id', connection: { ok: true } });
    expect(r.stdout).not.toContain(SECRET);
    expect(sim.log.some((e) => e.path === '/v1/auth/check' && e.status === 200 && e.clientId === 'cli-id')).toBe(true);

    // Nothing under the library directory holds the secret (database, WAL, logs).
    const files = (dir: string): string[] =>
      readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? files(join(dir, n)) : [join(dir, n)]));
    for (const f of files(library)) expect(readFileSync(f).includes(SECRET), f).toBe(false);

    const out2 = await cli(['logout', '--json']);
    expect(out2.code).toBe(0);
    expect(JSON.parse(out2.stdout)).toMatchObject({ removed: true, credentials: { configured: false } });
  });

  it('never waits for input off a terminal: login without --secret-stdin says which flag to use', async () => {
    const r = await cli(['login', '--client-id', 'cli-id']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--secret-stdin/);
  });

  it('lists the queue as JSON', async () => {
    const r = await cli(['jobs', '--json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(out).toMatchObject({ hold: null, batches: [], jobs: [], usage: { today: 0, thisMonth: 0 } });
    expect((await cli(['jobs', '--state', 'nonsense'])).code).toBe(2);
  });
});
