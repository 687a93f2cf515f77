import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { osKeychain } from '../../src-main/credentials';
import { addUser } from '../../src-main/studio/server/accounts';
import { startStudioServer, type StudioServer } from '../../src-main/studio/server/http';
import { loadIdentity } from '../../src-main/studio/server/identity';
import { StudioStore } from '../../src-main/studio/server/store';
import { postgresMissing, startPostgres, type Postgres } from './postgres';

// What the studio tests share: whether they can run here (PostgreSQL, and the OS keychain where
// a member signs in), and `tagsmith serve` started as its own process. Used by vitest and by
// Playwright specs alike, so it does not import helpers/cli.ts (whose __dirname Playwright's
// ES modules lack).

const BIN = fileURLToPath(new URL('../../bin/tagsmith.js', import.meta.url));

async function keychainMissing(): Promise<string | null> {
  const probe = osKeychain(`tagsmith-test-${randomBytes(4).toString('hex')}`, 'probe');
  try {
    await probe.set('x');
    await probe.delete();
    return null;
  } catch (e) {
    return (e as Error).message.split('\n')[0];
  }
}

/**
 * Why the studio tests of `what` cannot run here, or null. Where CI requires them
 * (TAGSMITH_REQUIRE_POSTGRES=1) a missing part is a failure, not a skip.
 */
export async function studioTestsMissing(what: string, opts: { keychain: boolean }): Promise<string | null> {
  const missing = postgresMissing() ?? (opts.keychain ? await keychainMissing() : null);
  if (missing && process.env.TAGSMITH_REQUIRE_POSTGRES === '1') throw new Error(`TAGSMITH_REQUIRE_POSTGRES=1 but the ${what} cannot run: ${missing}`);
  if (missing) console.warn(`${what} skipped: ${missing}`);
  return missing;
}

export interface Served {
  url: string;
  fingerprint: string;
  studio: { id: string; name: string };
}

/** Start `tagsmith serve` and wait for what it prints once it listens. */
export function serveStudio(database: string, opts: { listen?: string; args?: string[] } = {}): Promise<{ child: ChildProcess; served: Served }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--database', database, '--listen', opts.listen ?? '127.0.0.1:0', ...(opts.args ?? []), '--json'], { env: { ...process.env, TAGSMITH_QUIET: '1' } });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      try {
        resolve({ child, served: JSON.parse(out) as Served });
      } catch {
        /* the JSON is not whole yet */
      }
    });
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.once('exit', (code, signal) => reject(new Error(`tagsmith serve ended (${code ?? signal}): ${err}`)));
  });
}

/**
 * A studio server in this process on a throw-away PostgreSQL, named "Studio Nord", with these
 * members (`prepare` may set more up before it starts); stopped and dropped after `use`, even
 * when it throws.
 */
export async function withStudioServer(
  members: readonly { name: string; role: 'admin' | 'editor' | 'viewer'; password: string }[],
  use: (server: StudioServer, store: StudioStore) => Promise<void>,
  prepare?: (store: StudioStore) => Promise<void>,
): Promise<void> {
  const pgc: Postgres = startPostgres();
  let store: StudioStore | null = null;
  let server: StudioServer | null = null;
  try {
    pgc.createDatabase('studio');
    store = await StudioStore.open(pgc.url('studio'));
    await store.renameStudio('Studio Nord');
    for (const m of members) await addUser(store, m.name, m.role, m.password);
    if (prepare) await prepare(store);
    server = await startStudioServer(store, { host: '127.0.0.1', port: 0, tls: await loadIdentity(store, {}) });
    await use(server, store);
  } finally {
    await server?.close();
    await store?.close();
    pgc.stop();
  }
}
