// Where an upload goes: ftp://, ftps:// (explicit TLS) or sftp://HOST[:PORT]/DIR. A user name
// or password inside the address is refused: they belong in the keychain (or the environment).
import type { UploadProtocol } from '../../src-preload/contract';

export interface Destination {
  protocol: UploadProtocol;
  host: string;
  port: number;
  /** the directory on the server, '/'-separated; '' is the login directory */
  dir: string;
}

export class DestinationError extends Error {
  override readonly name = 'DestinationError';
}

const DEFAULT_PORT: Record<UploadProtocol, number> = { ftp: 21, ftps: 21, sftp: 22 };

export function parseDestination(text: string): Destination {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new DestinationError(`“${text}” is not an upload address; write ftp://HOST/DIR, ftps://HOST/DIR or sftp://HOST[:PORT]/DIR.`);
  }
  const protocol = url.protocol.replace(/:$/, '');
  if (protocol !== 'ftp' && protocol !== 'ftps' && protocol !== 'sftp') {
    throw new DestinationError(`The upload address must start with ftp://, ftps:// or sftp:// (got ${protocol}://).`);
  }
  if (url.username || url.password) {
    throw new DestinationError('Put no user name or password in the upload address: store them for the agency (Settings › Agencies, or `tagsmith agency-login`) or set TAGSMITH_UPLOAD_USER and TAGSMITH_UPLOAD_PASSWORD.');
  }
  if (!url.hostname) throw new DestinationError(`The upload address “${text}” names no server.`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const dir = decodeURIComponent(url.pathname).replace(/^\/+/, '').replace(/\/+$/, '');
  return { protocol, host, port: url.port ? Number(url.port) : DEFAULT_PORT[protocol], dir };
}

/** The address as shown and recorded (never with credentials). */
export function destinationText(d: Destination, name?: string): string {
  const host = d.host.includes(':') ? `[${d.host}]` : d.host;
  const dir = d.dir ? `/${d.dir}` : '';
  return `${d.protocol}://${host}:${d.port}${dir}${name ? `/${name}` : dir ? '' : '/'}`;
}
