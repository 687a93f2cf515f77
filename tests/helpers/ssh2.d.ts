// The part of ssh2 1.17's server API the SFTP test server uses (the package ships no types).
declare module 'ssh2' {
  import type { EventEmitter } from 'node:events';

  interface Attrs { mode?: number; uid?: number; gid?: number; size?: number; atime?: number; mtime?: number }
  interface SftpStream {
    on(event: 'OPEN', fn: (reqid: number, filename: string, flags: number, attrs: Attrs) => void): this;
    on(event: 'WRITE', fn: (reqid: number, handle: Buffer, offset: number, data: Buffer) => void): this;
    on(event: 'FSTAT' | 'CLOSE' | 'READDIR', fn: (reqid: number, handle: Buffer) => void): this;
    on(event: 'STAT' | 'LSTAT' | 'REALPATH' | 'OPENDIR', fn: (reqid: number, path: string) => void): this;
    on(event: 'MKDIR', fn: (reqid: number, path: string, attrs: Attrs) => void): this;
    status(reqid: number, code: number, message?: string): boolean;
    handle(reqid: number, handle: Buffer): boolean;
    attrs(reqid: number, attrs: Attrs): boolean;
    name(reqid: number, names: { filename: string; longname: string; attrs: Attrs }[]): boolean;
  }
  interface Session extends EventEmitter {
    on(event: 'sftp', fn: (accept: () => SftpStream) => void): this;
  }
  interface AuthContext { method: string; username: string; password?: string; accept(): void; reject(methods?: string[]): void }
  interface Connection extends EventEmitter {
    end(): void;
    on(event: 'close', fn: () => void): this;
    on(event: 'authentication', fn: (ctx: AuthContext) => void): this;
    on(event: 'ready', fn: () => void): this;
    on(event: 'error', fn: (e: Error) => void): this;
    on(event: 'session', fn: (accept: () => Session) => void): this;
  }
  export class Server extends EventEmitter {
    constructor(config: { hostKeys: (string | Buffer)[] }, onConnection: (client: Connection) => void);
    listen(port: number, host: string, cb: () => void): this;
    address(): unknown;
    close(cb?: () => void): this;
  }
  export const utils: {
    parseKey(key: string | Buffer): { getPublicSSH(): Buffer } | Error;
    sftp: {
      OPEN_MODE: { READ: number; WRITE: number; APPEND: number; CREAT: number; TRUNC: number; EXCL: number };
      STATUS_CODE: { OK: number; EOF: number; NO_SUCH_FILE: number; PERMISSION_DENIED: number; FAILURE: number };
      flagsToString(flags: number): string | null;
    };
  };
}
