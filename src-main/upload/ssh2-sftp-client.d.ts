// The part of ssh2-sftp-client 12 (no bundled types) that the upload uses.
declare module 'ssh2-sftp-client' {
  import type { Readable } from 'node:stream';

  interface ConnectOptions {
    host: string;
    port?: number;
    username?: string;
    password?: string;
    readyTimeout?: number;
    retries?: number;
    /** ssh2's: the server's raw host key blob; false refuses it before authentication */
    hostVerifier?: (key: Buffer) => boolean;
  }

  export default class SftpClient {
    constructor(name?: string, callbacks?: { error?: (e: Error) => void; end?: () => void; close?: () => void });
    connect(options: ConnectOptions): Promise<unknown>;
    stat(path: string): Promise<{ size: number; isDirectory: boolean }>;
    exists(path: string): Promise<false | 'd' | '-' | 'l'>;
    mkdir(path: string, recursive?: boolean): Promise<string>;
    put(src: Readable | Buffer | string, path: string, options?: { writeStreamOptions?: { flags?: string; start?: number } }): Promise<string>;
    append(src: Readable | Buffer, path: string, options?: Record<string, unknown>): Promise<string>;
    end(): Promise<boolean>;
  }
}
