import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

// A real FTP/FTPS server on loopback for the upload tests: pyftpdlib (ftp-server.py) in the
// test's own directory, on a port from 0, with explicit TLS on a self-signed certificate made
// here with openssl. Never a mock of Tagsmith's client.

export const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

export interface FtpServer {
  port: number;
  dir: string;
  /** lines the server logged: RECEIVED name bytes | INCOMPLETE name | LOGIN_FAILED user | REFUSED name | APPEND name */
  log(): string[];
  stop(): Promise<void>;
}

export async function startFtpServer(opts: { dir: string; user: string; password: string; log: string; tls?: { cert: string; key: string }; throttle?: number; refuse?: string[] }): Promise<FtpServer> {
  mkdirSync(opts.dir, { recursive: true });
  const args = [fileURLToPath(new URL('./ftp-server.py', import.meta.url)), '--dir', opts.dir, '--user', opts.user, '--password', opts.password, '--log', opts.log];
  if (opts.tls) args.push('--cert', opts.tls.cert, '--key', opts.tls.key);
  if (opts.throttle) args.push('--throttle', String(opts.throttle));
  for (const r of opts.refuse ?? []) args.push('--refuse', r);
  const child = spawn(PYTHON, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  // A test that times out never reaches its `finally`: the server ends with the test process.
  const onExit = () => child.kill('SIGKILL');
  process.once('exit', onExit);
  child.once('exit', () => process.removeListener('exit', onExit));
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout! });
    rl.on('line', (line) => {
      const m = /^PORT (\d+)$/.exec(line);
      if (m) resolve(Number(m[1]));
    });
    child.on('exit', (code) => reject(new Error(`the FTP server ended (${code}): ${stderr}`)));
  });
  return {
    port,
    dir: opts.dir,
    log: () => (existsSync(opts.log) ? readFileSync(opts.log, 'utf8').split('\n').filter(Boolean) : []),
    stop: () => stopChild(child),
  };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** A self-signed certificate for 127.0.0.1 (CN and IP SAN), made by openssl. */
export function makeCertificate(dir: string): { cert: string; key: string } {
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  return { cert, key };
}
