import type { PoolClient } from 'pg';

// The studio database's schema, as numbered migrations (like the catalogue's): a migration is
// never edited once released; a new one is appended. Each runs in its own transaction, under
// an advisory lock so two servers started at once on one database do not race.

export interface StudioMigration {
  version: number;
  name: string;
  up(db: PoolClient): Promise<void>;
}

export const STUDIO_MIGRATIONS: readonly StudioMigration[] = [
  {
    version: 1,
    name: 'studio, accounts, sessions, change log',
    async up(db) {
      await db.query(`
        CREATE TABLE studio (
          id text PRIMARY KEY,
          name text NOT NULL,
          created_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE TABLE server_identity (
          only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
          cert_pem text NOT NULL,
          key_pem text NOT NULL,
          created_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE TABLE users (
          id bigserial PRIMARY KEY,
          name text NOT NULL,
          role text NOT NULL CHECK (role IN ('admin', 'editor', 'viewer')),
          password_hash text NOT NULL,
          created_at timestamptz NOT NULL DEFAULT now(),
          disabled_at timestamptz
        );
        CREATE UNIQUE INDEX users_name ON users (lower(name));
        CREATE TABLE devices (
          id text PRIMARY KEY,
          user_id bigint NOT NULL REFERENCES users (id),
          name text NOT NULL,
          created_at timestamptz NOT NULL DEFAULT now(),
          last_seen_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE TABLE sessions (
          token_hash bytea PRIMARY KEY,
          user_id bigint NOT NULL REFERENCES users (id),
          device_id text NOT NULL REFERENCES devices (id),
          created_at timestamptz NOT NULL DEFAULT now(),
          last_used_at timestamptz NOT NULL DEFAULT now(),
          revoked_at timestamptz
        );
        CREATE TABLE changes (
          seq bigint PRIMARY KEY,
          device_id text NOT NULL REFERENCES devices (id),
          device_seq bigint NOT NULL CHECK (device_seq > 0),
          hlc text NOT NULL,
          user_id bigint NOT NULL REFERENCES users (id),
          kind text NOT NULL,
          body jsonb NOT NULL,
          received_at timestamptz NOT NULL DEFAULT now(),
          UNIQUE (device_id, device_seq)
        );
      `);
    },
  },
  {
    version: 2,
    name: 'the studio\'s result cache',
    async up(db) {
      await db.query(`
        CREATE TABLE results (
          cache_key text PRIMARY KEY,
          endpoint text NOT NULL,
          content_hash text NOT NULL,
          params jsonb NOT NULL,
          result jsonb NOT NULL,
          user_id bigint NOT NULL REFERENCES users (id),
          device_id text NOT NULL REFERENCES devices (id),
          created_at timestamptz NOT NULL DEFAULT now()
        );
      `);
    },
  },
  {
    version: 3,
    name: 'billed counts and caps for the whole studio',
    async up(db) {
      await db.query(`
        CREATE TABLE usage (
          device_id text NOT NULL REFERENCES devices (id),
          billing_key text NOT NULL,
          day text NOT NULL,
          calls bigint NOT NULL CHECK (calls >= 0),
          user_id bigint NOT NULL REFERENCES users (id),
          PRIMARY KEY (device_id, billing_key, day)
        );
        CREATE INDEX usage_day ON usage (day);
        CREATE TABLE settings (
          key text PRIMARY KEY,
          value jsonb NOT NULL
        );
      `);
    },
  },
  {
    version: 4,
    name: 'the studio\'s volumes (shared disks)',
    async up(db) {
      await db.query(`
        CREATE TABLE volumes (
          id text PRIMARY KEY,
          name text NOT NULL,
          origin_path text NOT NULL UNIQUE,
          user_id bigint NOT NULL REFERENCES users (id),
          device_id text NOT NULL REFERENCES devices (id),
          created_at timestamptz NOT NULL DEFAULT now()
        );
      `);
    },
  },
];
