import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { generate } from 'selfsigned';
import { LOCK, type StudioStore } from './store';

// The server's TLS identity. Given --tls-cert/--tls-key it uses those; otherwise it makes a
// self-signed certificate on its first start and keeps it in the studio database (the server
// keeps no state outside PostgreSQL, so a pg_dump restores it with its certificate, and the
// replicas that pinned it keep trusting it).

export interface TlsIdentity {
  cert: string;
  key: string;
  /** SHA-256 of the certificate, as replicas pin it: "AB:CD:…" */
  fingerprint: string;
  selfSigned: boolean;
}

export function fingerprintOf(certPem: string): string {
  return new X509Certificate(certPem).fingerprint256;
}

export async function loadIdentity(store: StudioStore, files: { cert?: string; key?: string }): Promise<TlsIdentity> {
  if (files.cert || files.key) {
    if (!files.cert || !files.key) throw new Error('Give both --tls-cert and --tls-key (or neither, for a self-signed certificate kept in the studio database).');
    const cert = readFileSync(files.cert, 'utf8');
    const key = readFileSync(files.key, 'utf8');
    return { cert, key, fingerprint: fingerprintOf(cert), selfSigned: false };
  }
  return store.tx(async (db) => {
    await db.query('SELECT pg_advisory_xact_lock($1)', [LOCK.identity]);
    const had = await db.query<{ cert_pem: string; key_pem: string }>('SELECT cert_pem, key_pem FROM server_identity');
    if (had.rows[0]) return { cert: had.rows[0].cert_pem, key: had.rows[0].key_pem, fingerprint: fingerprintOf(had.rows[0].cert_pem), selfSigned: true };
    const made = await generate([{ name: 'commonName', value: 'Tagsmith studio server' }], {
      keySize: 2048,
      algorithm: 'sha256',
      notAfterDate: new Date(Date.now() + 20 * 365 * 24 * 3600 * 1000),
    });
    await db.query('INSERT INTO server_identity (cert_pem, key_pem) VALUES ($1, $2)', [made.cert, made.private]);
    return { cert: made.cert, key: made.private, fingerprint: fingerprintOf(made.cert), selfSigned: true };
  });
}
