import { spawn, spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

// The `tagsmith` CLI as the tests run it: the package's bin under this Node, one library, no
// home folder of the user's (TAGSMITH_HOME empty), no progress lines (TAGSMITH_QUIET), and a
// stdin that is not a terminal and holds nothing unless given (the CLI must never wait on it).

export const BIN = resolve(__dirname, '../../bin/tagsmith.js');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout read as JSON (for `--json`) */
  json: <T = Record<string, unknown>>() => T;
}

export interface CliOptions {
  /** added to (and overriding) the environment; a variable set to undefined is taken out of it */
  env?: NodeJS.ProcessEnv;
  /** what the CLI finds on stdin */
  input?: string;
  /** `--service-url`: the simulator */
  serviceUrl?: string;
  /** the service account, as TAGSMITH_CLIENT_ID / TAGSMITH_CLIENT_SECRET */
  creds?: { clientId: string; clientSecret: string };
  /** tagsmithSync only: kill the CLI after this long (a hung CLI would otherwise block the test process for good) */
  timeout?: number;
}

function envOf(opts: CliOptions): NodeJS.ProcessEnv {
  const creds = opts.creds ? { TAGSMITH_CLIENT_ID: opts.creds.clientId, TAGSMITH_CLIENT_SECRET: opts.creds.clientSecret } : {};
  return { ...process.env, TAGSMITH_HOME: '', TAGSMITH_QUIET: '1', ...creds, ...opts.env };
}

// `library` null: no --library (for --help, or a test that writes its own).
const argsOf = (library: string | null, args: readonly string[], opts: CliOptions): string[] =>
  [BIN, ...(library !== null ? ['--library', library] : []), ...(opts.serviceUrl ? ['--service-url', opts.serviceUrl] : []), ...args];

const runOf = (code: number | null, stdout: string, stderr: string): CliRun => ({ code, stdout, stderr, json: <T,>() => JSON.parse(stdout) as T });

/** Run the CLI and wait for it, blocking this process: for commands that need nothing of it meanwhile. */
export function tagsmithSync(library: string | null, args: readonly string[], opts: CliOptions = {}): CliRun {
  const r = spawnSync(process.execPath, argsOf(library, args, opts), { encoding: 'utf8', input: opts.input ?? '', timeout: opts.timeout, env: envOf(opts) });
  return runOf(r.status, r.stdout, r.stderr);
}

/** Run the CLI while this process goes on (a simulator or server of the test must answer it). */
export function tagsmith(library: string | null, args: readonly string[], opts: CliOptions = {}): Promise<CliRun> {
  return new Promise((done) => {
    const child = spawn(process.execPath, argsOf(library, args, opts), { env: envOf(opts) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdin.end(opts.input ?? '');
    child.on('close', (code) => done(runOf(code, stdout, stderr)));
  });
}
