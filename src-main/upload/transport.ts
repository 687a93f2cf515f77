// The agencies' upload servers behind one door: FTP, FTPS (explicit TLS, certificate checked)
// with basic-ftp, SFTP with ssh2-sftp-client (the server's host key checked against the one
// trusted for it, before any password leaves). A transport connects once, answers the size of
// a remote file, and sends local files from an offset (a resumed partial file appends); it stays
// open across files until closed or the link drops (`dropped`).
// What goes wrong is sorted into what the queue acts on: the login refused (stop this agency),
// the host key not the trusted one (stop this agency), this file refused (report it, go on with
// the next), or the server unreachable / the link lost.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { Transform, type Readable } from 'node:stream';
import { Client as FtpClient, FTPError } from 'basic-ftp';
import SftpClient from 'ssh2-sftp-client';
import type { Destination } from './destination';

export type UploadFailureKind = 'login' | 'hostkey' | 'refused' | 'connection';

/** An SSH server's host key as OpenSSH shows it: its type and SHA256:<base64 without padding>. */
export interface HostKey {
  keyType: string;
  fingerprint: string;
}

export class UploadFailure extends Error {
  override readonly name = 'UploadFailure';
  constructor(readonly kind: UploadFailureKind, message: string, readonly presented?: HostKey) {
    super(message);
  }
}

/** The fingerprint of a raw SSH public key blob (string type, then the key), as `ssh-keygen -lf` prints it. */
export function hostKeyOf(blob: Buffer): HostKey {
  const len = blob.length >= 4 ? blob.readUInt32BE(0) : 0;
  const keyType = len > 0 && len < 64 && blob.length >= 4 + len ? blob.subarray(4, 4 + len).toString('latin1') : 'unknown';
  return { keyType, fingerprint: `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}` };
}

/** How an SFTP connection treats the server's host key: the one trusted, or none yet (trusted now, and told). */
export interface HostKeyCheck {
  trusted: string | null;
  onFirstUse(key: HostKey): void;
}

export interface SendOptions {
  /** bytes of the local file already on the server: send from there on, appending */
  offset: number;
  onProgress(sentBytes: number): void;
}

export interface Transport {
  /** The size of a file in the destination directory, or null when there is none. */
  remoteSize(name: string): Promise<number | null>;
  send(localPath: string, name: string, opts: SendOptions): Promise<void>;
  /** The link was closed or lost: this transport can do nothing more. */
  readonly dropped: boolean;
  close(): Promise<void>;
}

const firstLine = (e: unknown): string => (e instanceof Error ? e.message : String(e)).split('\n')[0].slice(0, 300);

function counting(source: Readable, start: number, onProgress: (n: number) => void): Readable {
  let sent = start;
  const t = new Transform({
    transform(chunk: Buffer, _enc, done) {
      sent += chunk.length;
      onProgress(sent);
      done(null, chunk);
    },
  });
  source.on('error', (e) => t.destroy(e));
  return source.pipe(t);
}

// ---- FTP / FTPS ---------------------------------------------------------------------------

function ftpFailure(e: unknown, stage: 'connect' | 'file', dest: Destination): UploadFailure {
  if (e instanceof UploadFailure) return e;
  const code = e instanceof FTPError ? e.code : undefined;
  const server = `${dest.protocol.toUpperCase()} server ${dest.host}`;
  if (code === 530) return new UploadFailure('login', `The ${server} refused the user name or password (${firstLine(e)}).`);
  if (stage === 'file' && code !== undefined && code >= 400) {
    return new UploadFailure('refused', `The ${server} refused the file (${firstLine(e)}).`);
  }
  if (stage === 'connect' && code !== undefined && code >= 500) {
    return new UploadFailure(code === 550 ? 'refused' : 'login', `The ${server} refused the connection (${firstLine(e)}).`);
  }
  const tls = /certificate|self[- ]signed|altnames|TLS|SSL/i.test(firstLine(e));
  if (tls) return new UploadFailure('login', `Could not make a secure connection to ${dest.host}: ${firstLine(e)}. Check the address (ftps:// needs a server with a valid certificate).`);
  return new UploadFailure('connection', `Lost or could not make the connection to the ${server}: ${firstLine(e)}.`);
}

async function ftpTransport(dest: Destination, user: string, password: string, signal: AbortSignal): Promise<Transport> {
  const client = new FtpClient(60_000);
  const onAbort = () => client.close();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    await client.access({ host: dest.host, port: dest.port, user, password, secure: dest.protocol === 'ftps' });
    // The directory is taken from the login directory, as in an ftp:// address.
    if (dest.dir) await client.ensureDir(dest.dir);
  } catch (e) {
    client.close();
    throw ftpFailure(e, 'connect', dest);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  return {
    get dropped() {
      return client.closed;
    },
    async remoteSize(name) {
      try {
        return await client.size(name);
      } catch (e) {
        if (e instanceof FTPError && e.code >= 500) return null; // 550: no such file
        throw ftpFailure(e, 'file', dest);
      }
    },
    async send(localPath, name, opts) {
      const source = counting(createReadStream(localPath, { start: opts.offset }), opts.offset, opts.onProgress);
      try {
        if (opts.offset > 0) await client.appendFrom(source, name);
        else await client.uploadFrom(source, name);
      } catch (e) {
        throw ftpFailure(e, 'file', dest);
      } finally {
        source.destroy();
      }
    },
    async close() {
      client.close();
    },
  };
}

// ---- SFTP -------------------------------------------------------------------------------------

function sftpFailure(e: unknown, stage: 'connect' | 'file', dest: Destination): UploadFailure {
  if (e instanceof UploadFailure) return e;
  const m = firstLine(e);
  if (/authentication methods failed|authentication failed/i.test(m)) return new UploadFailure('login', `The SFTP server ${dest.host} refused the user name or password.`);
  if (stage === 'file' && /permission denied|no space|quota|failure|write stream error/i.test(m) && !/ECONNRESET|not connected|no sftp connection/i.test(m)) {
    return new UploadFailure('refused', `The SFTP server ${dest.host} refused the file (${m.replace(/^[\w>-]+: /, '')}).`);
  }
  return new UploadFailure('connection', `Lost or could not make the connection to the SFTP server ${dest.host}: ${m}.`);
}

async function sftpTransport(dest: Destination, user: string, password: string, signal: AbortSignal, hostKey: HostKeyCheck | undefined): Promise<Transport> {
  let dropped = false;
  const lost = () => {
    dropped = true;
  };
  const client = new SftpClient('tagsmith-upload', { end: lost, close: lost, error: lost });
  const onAbort = () => {
    dropped = true;
    void client.end().catch(() => undefined);
  };
  signal.addEventListener('abort', onAbort, { once: true });
  const dir = dest.dir.replace(/\/+$/, '') || '';
  const pathOf = (name: string) => (dir ? `${dir}/${name}` : name);
  let mismatch: HostKey | null = null;
  // Called during the key exchange, before any authentication: a refused key means the user
  // name and password are never sent.
  const hostVerifier = (blob: Buffer): boolean => {
    const presented = hostKeyOf(blob);
    if (!hostKey) return true;
    if (hostKey.trusted === null) {
      hostKey.onFirstUse(presented);
      return true;
    }
    if (hostKey.trusted === presented.fingerprint) return true;
    mismatch = presented;
    return false;
  };
  try {
    await client.connect({ host: dest.host, port: dest.port, username: user, password, readyTimeout: 60_000, retries: 0, hostVerifier });
    if (dir && (await client.exists(dir)) !== 'd') await client.mkdir(dir, true);
  } catch (e) {
    dropped = true;
    await client.end().catch(() => undefined);
    if (mismatch) {
      throw new UploadFailure('hostkey', `The SFTP server ${dest.host}:${dest.port} presented the host key ${(mismatch as HostKey).fingerprint}, not the one trusted for it (${hostKey?.trusted}).`, mismatch);
    }
    throw sftpFailure(e, 'connect', dest);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  return {
    get dropped() {
      return dropped;
    },
    async remoteSize(name) {
      try {
        const kind = await client.exists(pathOf(name));
        if (kind !== '-') return null;
        return (await client.stat(pathOf(name))).size;
      } catch (e) {
        throw sftpFailure(e, 'file', dest);
      }
    },
    async send(localPath, name, opts) {
      const source = counting(createReadStream(localPath, { start: opts.offset }), opts.offset, opts.onProgress);
      try {
        if (opts.offset > 0) await client.append(source, pathOf(name));
        else await client.put(source, pathOf(name));
      } catch (e) {
        throw sftpFailure(e, 'file', dest);
      } finally {
        source.destroy();
      }
    },
    async close() {
      dropped = true;
      await client.end().catch(() => undefined);
    },
  };
}

/** Connect and log in; `signal` aborts the attempt. `hostKey` applies to SFTP only. */
export function connect(dest: Destination, user: string, password: string, signal: AbortSignal, opts: { hostKey?: HostKeyCheck } = {}): Promise<Transport> {
  return dest.protocol === 'sftp' ? sftpTransport(dest, user, password, signal, opts.hostKey) : ftpTransport(dest, user, password, signal);
}
