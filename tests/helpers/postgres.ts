import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

// A throw-away PostgreSQL cluster for one test file: initdb in a temp folder, listening on a
// Unix socket in that folder only (no TCP port to collide with), trust auth, fsync off. Run as
// the `postgres` system user when the tests run as root (PostgreSQL refuses to run as root).
// Debian's `postgresql` package provides the binaries (.ci/run installs it).

export interface Postgres {
  /** a connection URL for database `name` (created by `createDatabase`) */
  url(name: string): string;
  createDatabase(name: string): void;
  stop(): void;
}

function binDir(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a));
  return versions.length ? join(root, versions[0], 'bin') : null;
}

/** Why PostgreSQL cannot be started here, or null when it can. */
export function postgresMissing(): string | null {
  if (!binDir()) return 'PostgreSQL is not installed (Debian: apt-get install postgresql)';
  if (userInfo().uid === 0) {
    try {
      execFileSync('id', ['postgres'], { stdio: 'ignore' });
    } catch {
      return 'running as root and there is no postgres user to run PostgreSQL as';
    }
  }
  return null;
}

export function startPostgres(): Postgres {
  const bin = binDir()!;
  const asRoot = userInfo().uid === 0;
  const dir = mkdtempSync(join(tmpdir(), 'tagsmith-pg-'));
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
  }
  const run = (tool: string, args: string[]) => {
    const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]] : [join(bin, tool), args];
    execFileSync(cmd, argv, { stdio: ['ignore', 'ignore', 'pipe'], cwd: dir });
  };
  const data = join(dir, 'data');
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
  run('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-w', '-o', `-c listen_addresses='' -c unix_socket_directories='${dir}' -c fsync=off -c full_page_writes=off`, 'start']);
  const url = (name: string) => `postgresql://postgres@localhost/${name}?host=${encodeURIComponent(dir)}`;
  return {
    url,
    createDatabase(name) {
      run('createdb', ['-h', dir, '-U', 'postgres', name]);
    },
    stop() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
