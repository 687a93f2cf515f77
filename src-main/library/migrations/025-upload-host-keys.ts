import type { Migration } from './migration';

export const migration: Migration = {
  version: 25,
  name: 'upload host keys',
  // Issue 19, SFTP host keys, trusted on first use as OpenSSH does: the first connection to an
  // agency's SFTP server records the server's key fingerprint (SHA256:…, OpenSSH's format) per
  // agency, host and port; a later connection presenting another key is refused before any
  // password leaves. Not a secret, so in the catalogue beside the sent records.
  sql: /* sql */ `
      CREATE TABLE upload_host_keys (
        agency TEXT NOT NULL,
        host TEXT NOT NULL,
        port INTEGER NOT NULL,
        key_type TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        first_seen INTEGER NOT NULL,
        PRIMARY KEY (agency, host, port)
      ) STRICT, WITHOUT ROWID;
    `,
};
