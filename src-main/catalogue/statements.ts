import type Database from 'better-sqlite3';

// The one prepared-statement cache, per connection: the catalogue's door and the floors above
// it (library/db.ts hands it on as `prepared`) share it, so one SQL text is prepared once.

export type Db = Database.Database;
export type Stmt = Database.Statement<unknown[], unknown>;
const statements = new WeakMap<Db, Map<string, Stmt>>();

/** A prepared statement cached per connection (the SQL shapes in use are few). */
export function stmt(db: Db, sql: string): Stmt {
  let byDb = statements.get(db);
  if (!byDb) {
    byDb = new Map();
    statements.set(db, byDb);
  }
  let s = byDb.get(sql);
  if (!s) {
    s = db.prepare(sql);
    if (byDb.size > 300) byDb.clear(); // bounded: a pathological mix of filters cannot grow it forever
    byDb.set(sql, s);
  }
  return s;
}
