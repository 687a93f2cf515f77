import { createHash, generateKeyPairSync } from 'node:crypto';
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readdirSync, statSync, writeSync } from 'node:fs';
import { join, normalize } from 'node:path';
import { createRequire } from 'node:module';
import type * as Ssh2 from 'ssh2';

// ssh2 is CommonJS: required, so that named exports work under ESM loaders too (Playwright's).
const { Server, utils } = createRequire(import.meta.url)('ssh2') as typeof Ssh2;

// A real SFTP server on loopback for the upload tests: ssh2's own SSH server with its SFTP
// protocol implementation, whose file operations land in the test's own directory, on a port
// from 0. Never a mock of Tagsmith's client. (FTP and FTPS: ftp-server.ts.)

// ---- SFTP ---------------------------------------------------------------------------------------

export interface SftpServer {
  port: number;
  dir: string;
  /** completed writes: one entry per file handle closed after writing, with the file's size then */
  received: { name: string; size: number }[];
  /** files whose writing stopped with the client's connection, never closed: the size they had then */
  incomplete: { name: string; size: number }[];
  /** bytes written per file name, over every connection (a file sent twice shows twice its size) */
  written: Map<string, number>;
  loginFailures: number;
  /** every authentication attempt the server was asked (any method): 0 means no credentials were sent */
  authAttempts: number;
  /** SSH connections accepted */
  connections: number;
  /** the host key's fingerprint as OpenSSH shows it (SHA256:…) */
  fingerprint: string;
  hostKey: string;
  /** close every client's connection now (as a server restart or an idle timeout would) */
  dropClients(): void;
  stop(): Promise<void>;
}

/** An RSA host key in PEM from node:crypto (ssh2's own ed25519 generator now and then writes a key its parser refuses). */
export function makeHostKey(): string {
  return generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'pkcs1', format: 'pem' }, privateKeyEncoding: { type: 'pkcs1', format: 'pem' } }).privateKey;
}

export async function startSftpServer(opts: {
  dir: string; user: string; password: string; refuse?: string[];
  /** a host key of the test's own (to restart "the same server"); default a new one */
  hostKey?: string;
  /** listen on this port (a restart); default one from 0 */
  port?: number;
  /** bytes per second the server accepts (its answers to writes are held back to match) */
  throttle?: number;
}): Promise<SftpServer> {
  mkdirSync(opts.dir, { recursive: true });
  const { OPEN_MODE, STATUS_CODE } = utils.sftp;
  const hostKey = opts.hostKey ?? makeHostKey();
  const parsed = utils.parseKey(hostKey);
  if (parsed instanceof Error) throw parsed;
  const fingerprint = `SHA256:${createHash('sha256').update(parsed.getPublicSSH()).digest('base64').replace(/=+$/, '')}`;
  const received: { name: string; size: number }[] = [];
  const incomplete: { name: string; size: number }[] = [];
  const written = new Map<string, number>();
  let loginFailures = 0;
  let authAttempts = 0;
  let connections = 0;
  const clients = new Set<{ end(): void }>();
  // Throttle: each write is answered when the bytes so far fit the rate (the client waits for answers).
  let nextAt = 0;
  // Paths are inside the served directory: '/x' and 'x' both mean <dir>/x.
  const local = (p: string): string | null => {
    const rel = normalize('/' + p).replace(/^\/+/, '');
    if (rel.startsWith('..')) return null;
    return join(opts.dir, rel);
  };
  const attrsOf = (st: { mode: number; uid: number; gid: number; size: number; atimeMs: number; mtimeMs: number }) => ({
    mode: st.mode, uid: st.uid, gid: st.gid, size: st.size, atime: Math.floor(st.atimeMs / 1000), mtime: Math.floor(st.mtimeMs / 1000),
  });
  const server = new Server({ hostKeys: [hostKey] }, (client) => {
    connections++;
    clients.add(client);
    const open: { fd: number; name: string; wrote: boolean }[] = [];
    client.on('error', () => undefined);
    client.on('close', () => {
      clients.delete(client);
      for (const h of open.splice(0)) {
        if (h.fd < 0) continue;
        incomplete.push({ name: h.name, size: fstatSync(h.fd).size });
        closeSync(h.fd);
      }
    });
    client.on('authentication', (ctx) => {
      authAttempts++;
      if (ctx.method === 'password' && ctx.username === opts.user && ctx.password === opts.password) return ctx.accept();
      if (ctx.method === 'password') loginFailures++;
      ctx.reject(['password']);
    });
    client.on('ready', () => {
      client.on('session', (acceptSession) => {
        const session = acceptSession();
        session.on('sftp', (acceptSftp) => {
          const sftp = acceptSftp();
          const handles = new Map<number, { fd: number; name: string; wrote: boolean; dir?: string[] | null }>();
          let next = 1;
          const handleOf = (buf: Buffer) => (buf.length === 4 ? handles.get(buf.readUInt32BE(0)) : undefined);
          const newHandle = (h: { fd: number; name: string; wrote: boolean; dir?: string[] | null }) => {
            const id = next++;
            handles.set(id, h);
            if (h.fd >= 0) open.push(h);
            const b = Buffer.alloc(4);
            b.writeUInt32BE(id, 0);
            return { id, b };
          };
          sftp.on('OPEN', (reqid, filename, flags) => {
            const path = local(filename);
            const name = filename.split('/').pop()!;
            if (!path) return sftp.status(reqid, STATUS_CODE.PERMISSION_DENIED);
            if ((flags & OPEN_MODE.WRITE) && (opts.refuse ?? []).includes(name)) return sftp.status(reqid, STATUS_CODE.PERMISSION_DENIED, 'Permission denied (quota exceeded)');
            try {
              const fd = openSync(path, utils.sftp.flagsToString(flags) ?? 'r');
              sftp.handle(reqid, newHandle({ fd, name, wrote: false }).b);
            } catch {
              sftp.status(reqid, STATUS_CODE.NO_SUCH_FILE);
            }
          });
          sftp.on('WRITE', (reqid, handle, offset, data) => {
            const h = handleOf(handle);
            if (!h) return sftp.status(reqid, STATUS_CODE.FAILURE);
            writeSync(h.fd, data, 0, data.length, offset);
            h.wrote = true;
            written.set(h.name, (written.get(h.name) ?? 0) + data.length);
            if (!opts.throttle) return sftp.status(reqid, STATUS_CODE.OK);
            const now = Date.now();
            nextAt = Math.max(nextAt, now) + (data.length / opts.throttle) * 1000;
            setTimeout(() => sftp.status(reqid, STATUS_CODE.OK), nextAt - now);
          });
          sftp.on('FSTAT', (reqid, handle) => {
            const h = handleOf(handle);
            if (!h) return sftp.status(reqid, STATUS_CODE.FAILURE);
            sftp.attrs(reqid, attrsOf(fstatSync(h.fd)));
          });
          sftp.on('CLOSE', (reqid, handle) => {
            const h = handleOf(handle);
            if (!h) return sftp.status(reqid, STATUS_CODE.FAILURE);
            handles.delete(handle.readUInt32BE(0));
            if (open.includes(h)) open.splice(open.indexOf(h), 1);
            if (h.fd >= 0) {
              if (h.wrote) received.push({ name: h.name, size: fstatSync(h.fd).size });
              closeSync(h.fd);
            }
            sftp.status(reqid, STATUS_CODE.OK);
          });
          const statFile = (reqid: number, path: string) => {
            const p = local(path);
            if (!p || !existsSync(p)) return sftp.status(reqid, STATUS_CODE.NO_SUCH_FILE);
            sftp.attrs(reqid, attrsOf(statSync(p)));
          };
          sftp.on('STAT', statFile);
          sftp.on('LSTAT', statFile);
          sftp.on('REALPATH', (reqid, path) => {
            const rel = normalize('/' + path);
            sftp.name(reqid, [{ filename: rel, longname: rel, attrs: {} as never }]);
          });
          sftp.on('MKDIR', (reqid, path) => {
            const p = local(path);
            if (!p) return sftp.status(reqid, STATUS_CODE.PERMISSION_DENIED);
            try {
              mkdirSync(p);
              sftp.status(reqid, STATUS_CODE.OK);
            } catch {
              sftp.status(reqid, STATUS_CODE.FAILURE);
            }
          });
          sftp.on('OPENDIR', (reqid, path) => {
            const p = local(path);
            if (!p || !existsSync(p)) return sftp.status(reqid, STATUS_CODE.NO_SUCH_FILE);
            sftp.handle(reqid, newHandle({ fd: -1, name: path, wrote: false, dir: readdirSync(p) }).b);
          });
          sftp.on('READDIR', (reqid, handle) => {
            const h = handleOf(handle);
            if (!h?.dir) return sftp.status(reqid, STATUS_CODE.EOF);
            const names = h.dir;
            h.dir = null;
            if (!names.length) return sftp.status(reqid, STATUS_CODE.EOF);
            sftp.name(reqid, names.map((n) => ({ filename: n, longname: n, attrs: attrsOf(statSync(join(local(h.name)!, n))) })));
          });
        });
      });
    });
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
  });
  const dropClients = () => {
    for (const c of clients) c.end();
  };
  return {
    port,
    dir: opts.dir,
    received,
    incomplete,
    written,
    fingerprint,
    hostKey,
    get loginFailures() {
      return loginFailures;
    },
    get authAttempts() {
      return authAttempts;
    },
    get connections() {
      return connections;
    },
    dropClients,
    stop: () =>
      new Promise<void>((resolve) => {
        dropClients();
        server.close(() => resolve());
      }),
  };
}
