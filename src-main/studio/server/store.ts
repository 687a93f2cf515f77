import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { STUDIO_MIGRATIONS } from './migrations';

// The studio's PostgreSQL: one pool, the migrations, and the few queries every part shares.
// Only `tagsmith serve` opens it.

/** A fixed key for PostgreSQL's advisory locks: migrations, identity and the change log's numbering. */
export const LOCK = { migrate: 7_301_001, identity: 7_301_002, changes: 7_301_003 } as const;

export class StudioStore {
  constructor(readonly pool: pg.Pool) {}

  static async open(url: string): Promise<StudioStore> {
    const pool = new pg.Pool({ connectionString: url, max: 10 });
    // An idle client that loses its server must not crash the process: the next query reports it.
    pool.on('error', () => {});
    const store = new StudioStore(pool);
    try {
      await store.migrate();
    } catch (err) {
      await pool.end();
      throw err;
    }
    return store;
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  /** Run `fn` in one transaction; a throw rolls it back. */
  async tx<T>(fn: (db: pg.PoolClient) => Promise<T>): Promise<T> {
    const db = await this.pool.connect();
    try {
      await db.query('BEGIN');
      const out = await fn(db);
      await db.query('COMMIT');
      return out;
    } catch (err) {
      await db.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      db.release();
    }
  }

  private async migrate(): Promise<void> {
    const db = await this.pool.connect();
    try {
      await db.query('SELECT pg_advisory_lock($1)', [LOCK.migrate]);
      await db.query('CREATE TABLE IF NOT EXISTS schema_migrations (version int PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())');
      const done = new Set((await db.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version));
      const newest = Math.max(0, ...done);
      const known = Math.max(...STUDIO_MIGRATIONS.map((m) => m.version));
      if (newest > known) {
        throw new Error(`This studio database was upgraded by a newer Tagsmith server (schema ${newest}; this one knows up to ${known}). Start the newer server, or restore the database from before the upgrade.`);
      }
      for (const m of STUDIO_MIGRATIONS) {
        if (done.has(m.version)) continue;
        await db.query('BEGIN');
        try {
          await m.up(db);
          if (m.version === 1) await db.query('INSERT INTO studio (id, name) VALUES ($1, $2)', [randomUUID(), 'Studio']);
          await db.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
          await db.query('COMMIT');
        } catch (err) {
          await db.query('ROLLBACK').catch(() => {});
          throw err;
        }
      }
    } finally {
      await db.query('SELECT pg_advisory_unlock($1)', [LOCK.migrate]).catch(() => {});
      db.release();
    }
  }

  async studio(): Promise<{ id: string; name: string }> {
    const r = await this.pool.query<{ id: string; name: string }>('SELECT id, name FROM studio LIMIT 1');
    return r.rows[0];
  }

  async renameStudio(name: string): Promise<void> {
    await this.pool.query('UPDATE studio SET name = $1', [name]);
  }
}
