import type Database from 'better-sqlite3';

// The catalogue room's own statement cache (library/db.ts has the same for the floors above;
// the catalogue sits below them and cannot import it).

export type Db = Database.Database;
type Stmt = Database.Statement<unknown[], unknown>;
const statements = new WeakMap<Db, Map<string, Stmt>>();

/** A prepared statement cached per connection. */
export function stmt(db: Db, sql: string): Stmt {
  let byDb = statements.get(db);
  if (!byDb) {
    byDb = new Map();
    statements.set(db, byDb);
  }
  let s = byDb.get(sql);
  if (!s) {
    s = db.prepare(sql);
    byDb.set(sql, s);
  }
  return s;
}
