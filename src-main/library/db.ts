import Database from 'better-sqlite3';
import { backupBeforeMigration } from './backup';
import { migrations, type Migration } from './migrations';

export type Db = Database.Database;

/** A prepared statement cached per connection: the catalogue's cache (catalogue/statements.ts), one for the whole app. */
export { stmt as prepared, type Stmt } from '../catalogue/statements';

export interface OpenOptions {
  /** Stop at this migration version (tests of N-1 -> N). */
  upTo?: number;
  /** Path to a native better-sqlite3 build (the Electron-ABI build when packaged). */
  nativeBinding?: string;
}

/** The native build each connection was opened with, for the helper connections below. */
const bindings = new WeakMap<Db, string | undefined>();

/** Open (creating if needed) a catalogue: WAL, foreign keys, migrations applied. */
export function openDb(file: string, opts: OpenOptions = {}): Db {
  const db = new Database(file, opts.nativeBinding ? { nativeBinding: opts.nativeBinding } : {});
  bindings.set(db, opts.nativeBinding);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    db.pragma('temp_store = MEMORY');
    db.pragma('cache_size = -65536');
    // A catalogue with data is copied before it is upgraded (backup.ts); a new one has nothing to lose.
    migrate(db, migrations, opts.upTo, (from) => backupBeforeMigration(db, file, from));
  } catch (err) {
    // Not left open on a file that may be restored over next (recover.ts).
    db.close();
    throw err;
  }
  return db;
}

/** A private in-memory database, through the same native build as `like`. */
export function memoryDb(like: Db): Db {
  const binding = bindings.get(like);
  return new Database(':memory:', binding ? { nativeBinding: binding } : {});
}

/** The native build `db` was opened with (undefined: the default one), for a worker thread's own connection. */
export function nativeBindingOf(db: Db): string | undefined {
  return bindings.get(db);
}

/** A read-only connection to a catalogue file (a worker thread's own; WAL: it reads while the app writes). */
export function openReadOnly(file: string, nativeBinding?: string): Db {
  const db = new Database(file, { readonly: true, ...(nativeBinding ? { nativeBinding } : {}) });
  bindings.set(db, nativeBinding);
  db.pragma('busy_timeout = 5000');
  return db;
}

/**
 * A connection of a worker thread's own that only copies the catalogue's write-ahead log into
 * the file (a checkpoint needs write access): the main connection's automatic checkpoint,
 * milliseconds of page copies and fsyncs inside some commit, can be done here instead.
 */
export function openForCheckpoint(file: string, nativeBinding?: string): Db {
  const db = new Database(file, { fileMustExist: true, ...(nativeBinding ? { nativeBinding } : {}) });
  bindings.set(db, nativeBinding);
  db.pragma('busy_timeout = 5000');
  return db;
}

/** Copy what the write-ahead log holds into the file, without waiting on any reader or writer. */
export function checkpointPassive(db: Db): { log: number; checkpointed: number } {
  const [r] = db.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
  return { log: r.log, checkpointed: r.checkpointed };
}

/** A second, read-only connection to `like`'s catalogue (WAL: it reads while `like` writes). */
export function readerDb(like: Db): Db {
  const binding = bindings.get(like);
  const reader = new Database(like.name, { readonly: true, ...(binding ? { nativeBinding: binding } : {}) });
  reader.pragma('busy_timeout = 5000');
  return reader;
}

export function migrate(db: Db, list: Migration[], upTo = Infinity, beforeUpgrade?: (fromVersion: number) => void): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  const latest = Math.max(0, ...list.map((m) => m.version));
  if (current > latest) {
    throw new Error(
      `This library was made by a newer Tagsmith (catalogue version ${current}, this app knows ${latest}). Update Tagsmith to open it.`,
    );
  }
  const pending = list.some((m) => m.version > current && m.version <= upTo);
  if (pending && current > 0) beforeUpgrade?.(current);
  for (const m of [...list].sort((a, b) => a.version - b.version)) {
    if (m.version <= current || m.version > upTo) continue;
    db.transaction(() => {
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
    })();
  }
}
