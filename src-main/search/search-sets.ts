import { prepared, type Db } from '../library/db';

// Derived sets the search reads, kept in connection-local TEMP tables so that a query can
// test membership with one lookup instead of re-deriving them per row:
// - stack_folded: live RAW assets with a better live member in their stack (RAW+JPEG),
// - duplicate_hashes: content hashes shared by two or more live assets,
// - text_hits: the ids matching the current full-text query,
// - folded_hits: the RAW files folded into their stack under the current query,
// - collection_hits: the ids of the collection the current query is limited to.
// All of them, and the remembered search results, depend only on the catalogue (and the
// query), so they are rebuilt lazily and only after it changed: PRAGMA data_version moves
// when another connection commits, total_changes() when this one writes. Our own temp-table
// writes must not count as changes (see tempWrite).

interface CacheState {
  stamp: string;
  built: Set<string>;
  /** What each per-search temp table holds now (its content key), while the catalogue is unchanged. */
  loaded: Map<string, string>;
  /** Search results by query (counts, ordered id lists), while the catalogue is unchanged. */
  results: Map<string, unknown>;
}
const states = new WeakMap<Db, CacheState>();

/** PRAGMA data_version (moves when another connection commits) and total_changes() (when this one writes). */
export function catalogueStamp(db: Db): { version: number; changes: number } {
  return {
    version: db.pragma('data_version', { simple: true }) as number,
    changes: (prepared(db, 'SELECT total_changes() AS n').get() as { n: number }).n,
  };
}

let inTransactionStamps = 0;

/**
 * The stamp the caches are kept under. Inside a transaction every stamp is a new one: a
 * rollback takes writes back but not total_changes(), so nothing read or built there may
 * outlive the call that did it.
 */
function changeStamp(db: Db): string {
  if (db.inTransaction) return `in transaction ${++inTransactionStamps}`;
  const { version, changes } = catalogueStamp(db);
  return `${version}:${changes}`;
}

function state(db: Db): CacheState {
  let s = states.get(db);
  if (!s) {
    s = { stamp: '', built: new Set(), loaded: new Map(), results: new Map() };
    states.set(db, s);
  }
  const now = changeStamp(db);
  if (s.stamp !== now) {
    s.stamp = now;
    s.built.clear();
    s.loaded.clear();
    s.results.clear();
  }
  return s;
}

/** Write to our temp tables in one transaction without making the cached sets look stale. */
function tempWrite(db: Db, write: () => void): void {
  const s = state(db);
  db.transaction(write)();
  s.stamp = changeStamp(db);
}

function ensure(db: Db, name: string, ddl: string, fill: string): void {
  const s = state(db);
  if (s.built.has(name)) return;
  db.exec(ddl);
  tempWrite(db, () => {
    prepared(db, `DELETE FROM temp.${name}`).run();
    prepared(db, fill).run();
  });
  s.built.add(name);
}

export function ensureStackFolded(db: Db): void {
  ensure(
    db,
    'stack_folded',
    'CREATE TEMP TABLE IF NOT EXISTS stack_folded (id INTEGER PRIMARY KEY, folder_id INTEGER NOT NULL, stack_key TEXT NOT NULL)',
    `INSERT INTO temp.stack_folded (id, folder_id, stack_key)
     SELECT r.id, r.folder_id, r.stack_key FROM assets r WHERE r.is_raw = 1 AND r.removed_at IS NULL AND EXISTS (
       SELECT 1 FROM assets b WHERE b.folder_id = r.folder_id AND b.stack_key = r.stack_key AND b.id <> r.id
         AND b.removed_at IS NULL AND (b.is_raw = 0 OR b.id < r.id))`,
  );
}

export function ensureDuplicateHashes(db: Db): void {
  ensure(
    db,
    'duplicate_hashes',
    'CREATE TEMP TABLE IF NOT EXISTS duplicate_hashes (hash TEXT PRIMARY KEY) WITHOUT ROWID',
    `INSERT INTO temp.duplicate_hashes (hash) SELECT content_hash FROM assets
     WHERE removed_at IS NULL AND content_hash IS NOT NULL GROUP BY content_hash HAVING count(*) > 1`,
  );
}

/**
 * Run a full-text query once into temp.text_hits for the statements of one search (an FTS5
 * MATCH inside a per-row check would re-run the whole full-text query for every row).
 * Searches are synchronous, so no other search overwrites it in between.
 */
export function loadTextHits(db: Db, ftsQuery: string): void {
  fillOnce(db, 'text_hits', ftsQuery, () => prepared(db, 'INSERT INTO temp.text_hits (id) SELECT rowid FROM assets_fts WHERE assets_fts MATCH ?').run(ftsQuery));
}

/** Replace temp.folded_hits with the ids `select` returns (for the current search). */
export function fillFoldedHits(db: Db, select: string, params: unknown[]): void {
  // Which RAWs fold depends on the text hits too (the select reads temp.text_hits, whose
  // query is not among the params), so they are part of the key.
  // (and the collection's hits likewise).
  const loaded = state(db).loaded;
  const key = JSON.stringify([select, params, loaded.get('text_hits') ?? null, loaded.get('collection_hits') ?? null]);
  fillOnce(db, 'folded_hits', key, () => prepared(db, `INSERT INTO temp.folded_hits (id) ${select}`).run(...params));
}

/** Replace temp.group_folded_hits with the ids `select` returns (similar groups folded, for the current search). */
export function fillGroupFoldedHits(db: Db, select: string, params: unknown[]): void {
  const loaded = state(db).loaded;
  const key = JSON.stringify([select, params, loaded.get('text_hits') ?? null, loaded.get('collection_hits') ?? null, loaded.get('folded_hits') ?? null]);
  fillOnce(db, 'group_folded_hits', key, () => prepared(db, `INSERT OR IGNORE INTO temp.group_folded_hits (id) ${select}`).run(...params));
}

/**
 * Fill a per-search id table, unless it already holds `key`'s rows and the catalogue has not
 * changed since: paging through one query (the grid does nothing else while scrolling) then
 * costs no full-text query and no stack check per page.
 */
function fillOnce(db: Db, table: 'text_hits' | 'folded_hits' | 'collection_hits' | 'group_folded_hits', key: string, fill: () => void): void {
  const s = state(db);
  if (s.loaded.get(table) === key) return;
  db.exec(`CREATE TEMP TABLE IF NOT EXISTS ${table} (id INTEGER PRIMARY KEY)`);
  tempWrite(db, () => {
    prepared(db, `DELETE FROM temp.${table}`).run();
    fill();
  });
  s.loaded.set(table, key);
}

/** At most this many results are kept, holding at most this many bytes (ordered id lists
 * are the big ones: 4 bytes an asset, so a whole million-asset library is 4 MB). */
const MAX_RESULTS = 32;
const MAX_RESULT_BYTES = 32 * 1024 * 1024;
const bytesOf = (value: unknown): number => (ArrayBuffer.isView(value) ? value.byteLength : 64);

/**
 * A search result remembered while the catalogue is unchanged (any commit, by this
 * connection or another, forgets them all): the count of a query and its ordered ids.
 */
export function remembered<T>(db: Db, key: string, compute: () => T): T {
  const s = state(db);
  if (s.results.has(key)) return s.results.get(key) as T;
  const value = compute();
  // compute() may have filled temp tables, which re-stamped; the catalogue itself is as it was.
  // The oldest go first (a Map keeps insertion order).
  let bytes = bytesOf(value);
  for (const v of s.results.values()) bytes += bytesOf(v);
  for (const [oldKey, old] of s.results) {
    if (s.results.size < MAX_RESULTS && bytes <= MAX_RESULT_BYTES) break;
    s.results.delete(oldKey);
    bytes -= bytesOf(old);
  }
  s.results.set(key, value);
  return value;
}

/**
 * Forget the remembered results and per-search tables as if the catalogue had changed (the
 * catalogue-wide sets are kept: they only change with it). For measuring a new query's cost.
 */
export function forgetResults(db: Db): void {
  const s = state(db);
  s.loaded.clear();
  s.results.clear();
}

/** A remembered result, or undefined (nothing is computed). */
export function recalled<T>(db: Db, key: string): T | undefined {
  return state(db).results.get(key) as T | undefined;
}

/**
 * Put the ids of a collection (`key` names it) into temp.collection_hits for the statements of
 * one search. `ids` runs outside the temp-table write, because a smart collection's ids come
 * from a search of their own (which may fill this table for a collection it refers to).
 */
export function loadCollectionHits(db: Db, key: string, ids: () => number[]): void {
  if (state(db).loaded.get('collection_hits') === key) return;
  const list = ids();
  fillOnce(db, 'collection_hits', key, () => prepared(db, 'INSERT OR IGNORE INTO temp.collection_hits (id) SELECT value FROM json_each(?)').run(JSON.stringify(list)));
}
