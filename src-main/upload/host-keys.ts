import type { Db } from '../library/db';
import { prepared } from '../library/db';

// Issue 19: the SFTP host keys trusted for each agency's server, per host and port (trust on
// first use, as OpenSSH's known_hosts). Fingerprints in OpenSSH's form, SHA256:<base64, no padding>.

export interface TrustedHostKey {
  agency: string;
  host: string;
  port: number;
  /** e.g. ssh-ed25519, ssh-rsa */
  keyType: string;
  fingerprint: string;
  /** epoch ms of the first connection that recorded it */
  firstSeen: number;
}

interface Row { agency: string; host: string; port: number; key_type: string; fingerprint: string; first_seen: number }
const view = (r: Row): TrustedHostKey => ({ agency: r.agency, host: r.host, port: r.port, keyType: r.key_type, fingerprint: r.fingerprint, firstSeen: r.first_seen });

export function trustedHostKey(db: Db, agency: string, host: string, port: number): TrustedHostKey | null {
  const r = prepared(db, 'SELECT * FROM upload_host_keys WHERE agency = ? AND host = ? AND port = ?').get(agency, host, port) as Row | undefined;
  return r ? view(r) : null;
}

/** Every key trusted for the agency, oldest first. */
export function trustedHostKeys(db: Db, agency: string): TrustedHostKey[] {
  return (prepared(db, 'SELECT * FROM upload_host_keys WHERE agency = ? ORDER BY first_seen, host, port').all(agency) as Row[]).map(view);
}

/** Record a key on first use; an existing pin is never replaced here (forget it first). Returns whether it was recorded. */
export function trustHostKey(db: Db, k: Omit<TrustedHostKey, 'firstSeen'> & { firstSeen?: number }): boolean {
  const r = prepared(db, 'INSERT INTO upload_host_keys (agency, host, port, key_type, fingerprint, first_seen) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING').run(
    k.agency, k.host, k.port, k.keyType, k.fingerprint, k.firstSeen ?? Date.now(),
  );
  return r.changes > 0;
}

/** Forget the agency's trusted keys: of one host and port, or all of them. Returns what was forgotten. */
export function forgetHostKeys(db: Db, agency: string, where?: { host: string; port: number }): TrustedHostKey[] {
  const gone = trustedHostKeys(db, agency).filter((k) => !where || (k.host === where.host && k.port === where.port));
  for (const k of gone) prepared(db, 'DELETE FROM upload_host_keys WHERE agency = ? AND host = ? AND port = ?').run(k.agency, k.host, k.port);
  return gone;
}
