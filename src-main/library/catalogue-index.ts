import type { SearchQuery } from '../../src-preload/contract';
import { prepared, type Db } from './db';
import { catalogueStamp } from './search-sets';
import { TextIndexBuilder, Tokenizer, type TextIndex } from './text-index';

// An in-memory column index of the catalogue, so that a new search over a million assets
// is answered in milliseconds: SQLite needs ~40 ms just to count the live rows of a
// million-asset table, and every filter, fold and sort costs more on top.
//
// What it holds, by asset id (typed arrays, a few bytes per asset):
// - the filter columns (live, kind, folder, rating, flag, has_error, keyword_count, camera
//   make/model as codes) and "has an exact duplicate",
// - each keyword's postings (sorted asset ids),
// - for each RAW file, the members of its stack that may fold it (RAW+JPEG),
// - each sort's order as a permutation of ids, read from the sort's own covering index, and
//   each dated asset's position on the timeline (a date range is a range of positions),
// - the tokens of the FTS5 index with their assets (text-index.ts).
//
// It is kept current incrementally: TEMP triggers on this connection record which assets,
// keyword links, stack groups and content hashes a write touched, and the next search re-reads
// only those rows and moves changed assets within the orders. A commit by another connection
// (PRAGMA data_version moves), or a mass of changes, rebuilds it. Queries it cannot answer
// (analysis filters and sorts, searches inside an open transaction) go to SQL.

export type SortPerm = 'taken' | 'undated' | 'name' | 'added' | 'size';

/** Each order's keys before the id (as in search.ts orderBy), for an alias. */
const ORDER_KEYS: Record<SortPerm, ((x: string) => string)[]> = {
  taken: [(x) => `${x}.taken_at`, (x) => `${x}.name`],
  undated: [(x) => `${x}.name`],
  name: [(x) => `${x}.name COLLATE NOCASE`],
  added: [(x) => `${x}.added_at`],
  size: [(x) => `${x}.size`],
};
/** More sort-key changes than this at once: read the orders again instead of patching them. */
const PATCH_MAX = 2000;

export const KIND_CODE: Record<string, number> = { image: 1, video: 2, audio: 3 };
export const FLAG_CODE: Record<string, number> = { pick: 1, reject: 2 };

/**
 * syncBuildMax: up to this many assets the index is built on the spot (~0.25 s); above it, a
 * step at a time in the background while SQL answers. rebuildDirty: more changed assets than
 * this (and than a quarter of the catalogue) at once, and it is built again rather than
 * patched. Tests lower them to exercise those paths.
 */
export const indexOptions = { syncBuildMax: 20_000, rebuildDirty: 50_000 };
const CHUNK = 25_000;

const TRIGGERS = /* sql */ `
  CREATE TEMP TABLE IF NOT EXISTS idx_dirty (id INTEGER PRIMARY KEY, sort INTEGER NOT NULL, text INTEGER NOT NULL);
  CREATE TEMP TABLE IF NOT EXISTS idx_dirty_kw (keyword_id INTEGER NOT NULL, asset_id INTEGER NOT NULL, PRIMARY KEY (keyword_id, asset_id)) WITHOUT ROWID;
  CREATE TEMP TABLE IF NOT EXISTS idx_dirty_stacks (folder_id INTEGER NOT NULL, stack_key TEXT NOT NULL, PRIMARY KEY (folder_id, stack_key)) WITHOUT ROWID;
  CREATE TEMP TABLE IF NOT EXISTS idx_dirty_hashes (hash TEXT PRIMARY KEY) WITHOUT ROWID;

  CREATE TEMP TRIGGER IF NOT EXISTS idx_assets_ai AFTER INSERT ON main.assets BEGIN
    INSERT INTO idx_dirty (id, sort, text) VALUES (new.id, 1, 1) ON CONFLICT (id) DO UPDATE SET sort = 1, text = 1;
    INSERT OR IGNORE INTO idx_dirty_stacks (folder_id, stack_key) VALUES (new.folder_id, new.stack_key);
    INSERT OR IGNORE INTO idx_dirty_hashes (hash) SELECT new.content_hash WHERE new.content_hash IS NOT NULL;
  END;
  CREATE TEMP TRIGGER IF NOT EXISTS idx_assets_ad AFTER DELETE ON main.assets BEGIN
    INSERT INTO idx_dirty (id, sort, text) VALUES (old.id, 1, 1) ON CONFLICT (id) DO UPDATE SET sort = 1, text = 1;
    INSERT OR IGNORE INTO idx_dirty_stacks (folder_id, stack_key) VALUES (old.folder_id, old.stack_key);
    INSERT OR IGNORE INTO idx_dirty_hashes (hash) SELECT old.content_hash WHERE old.content_hash IS NOT NULL;
  END;
  CREATE TEMP TRIGGER IF NOT EXISTS idx_assets_au AFTER UPDATE ON main.assets WHEN
    old.removed_at IS NOT new.removed_at OR old.kind IS NOT new.kind OR old.folder_id IS NOT new.folder_id
    OR old.rating IS NOT new.rating OR old.flag IS NOT new.flag OR old.has_error IS NOT new.has_error
    OR old.keyword_count IS NOT new.keyword_count OR old.camera_make IS NOT new.camera_make
    OR old.camera_model IS NOT new.camera_model OR old.is_raw IS NOT new.is_raw OR old.stack_key IS NOT new.stack_key
    OR old.content_hash IS NOT new.content_hash OR old.name IS NOT new.name OR old.taken_at IS NOT new.taken_at
    OR old.added_at IS NOT new.added_at OR old.size IS NOT new.size
    OR old.keywords_text IS NOT new.keywords_text OR old.caption IS NOT new.caption OR old.title IS NOT new.title
  BEGIN
    INSERT INTO idx_dirty (id, sort, text) VALUES (new.id, (old.removed_at IS NOT new.removed_at OR old.name IS NOT new.name
      OR old.taken_at IS NOT new.taken_at OR old.added_at IS NOT new.added_at OR old.size IS NOT new.size),
      (old.name IS NOT new.name OR old.keywords_text IS NOT new.keywords_text OR old.caption IS NOT new.caption OR old.title IS NOT new.title))
      ON CONFLICT (id) DO UPDATE SET sort = max(sort, excluded.sort), text = max(text, excluded.text);
    INSERT OR IGNORE INTO idx_dirty_stacks (folder_id, stack_key)
      SELECT old.folder_id, old.stack_key WHERE old.folder_id IS NOT new.folder_id OR old.stack_key IS NOT new.stack_key OR old.is_raw IS NOT new.is_raw
      UNION ALL
      SELECT new.folder_id, new.stack_key WHERE old.folder_id IS NOT new.folder_id OR old.stack_key IS NOT new.stack_key OR old.is_raw IS NOT new.is_raw;
    INSERT OR IGNORE INTO idx_dirty_hashes (hash)
      SELECT old.content_hash WHERE old.content_hash IS NOT NULL AND (old.content_hash IS NOT new.content_hash OR old.removed_at IS NOT new.removed_at)
      UNION ALL
      SELECT new.content_hash WHERE new.content_hash IS NOT NULL AND (old.content_hash IS NOT new.content_hash OR old.removed_at IS NOT new.removed_at);
  END;
  CREATE TEMP TRIGGER IF NOT EXISTS idx_kw_ai AFTER INSERT ON main.asset_keywords BEGIN
    INSERT OR IGNORE INTO idx_dirty_kw (keyword_id, asset_id) VALUES (new.keyword_id, new.asset_id);
  END;
  CREATE TEMP TRIGGER IF NOT EXISTS idx_kw_ad AFTER DELETE ON main.asset_keywords BEGIN
    INSERT OR IGNORE INTO idx_dirty_kw (keyword_id, asset_id) VALUES (old.keyword_id, old.asset_id);
  END;
  CREATE TEMP TRIGGER IF NOT EXISTS idx_kw_au AFTER UPDATE OF keyword_id, asset_id ON main.asset_keywords BEGIN
    INSERT OR IGNORE INTO idx_dirty_kw (keyword_id, asset_id) VALUES (old.keyword_id, old.asset_id);
    INSERT OR IGNORE INTO idx_dirty_kw (keyword_id, asset_id) VALUES (new.keyword_id, new.asset_id);
  END;
`;

const ROW_COLUMNS = `id, removed_at IS NULL AS live, kind, folder_id, rating, flag, has_error, keyword_count, camera_make, camera_model,
  content_hash IS NOT NULL AS hashed`;
type Row = [number, number, string, number, number, string | null, number, number, string | null, string | null, number];

/**
 * Packed per-asset attributes: every yes/no filter and the rating in one 16-bit word, so one
 * mask test per asset answers most of a query.
 */
export const A_LIVE = 1;
export const A_KIND_SHIFT = 1; // one-hot: image 2, video 4, audio 8
export const A_ERROR = 16;
export const A_NO_KEYWORDS = 32;
export const A_DUP = 64;
export const A_FLAG_SHIFT = 7; // 2 bits: 0 none, 1 pick, 2 reject, 3 other
export const A_FLAG_MASK = 3 << A_FLAG_SHIFT;
export const A_RATING_SHIFT = 9; // 3 bits

export interface StackArrays {
  raws: Int32Array;
  start: Int32Array;
  siblings: Int32Array;
}

class Columns {
  cap = 0;
  attrs = new Uint16Array(0);
  folder = new Int32Array(0);
  make = new Int32Array(0);
  model = new Int32Array(0);
  /** Position on the timeline (the 'taken' permutation), -1 when undated or not placed. */
  takenPos = new Int32Array(0);
  /** Query scratch, cleared per query. */
  mark = new Uint8Array(0);
  counts = new Uint8Array(0);
  /** Kept all zero between uses (TextIndex.withPrefix). */
  scratch = new Uint8Array(0);
  /** Query scratch: the ids that matched, in the order they were tested. */
  hits = new Int32Array(0);
  without = new Uint8Array(0);

  grow(maxId: number): void {
    if (maxId < this.cap) return;
    const cap = Math.max(1024, Math.ceil((maxId + 1) * 1.25));
    const grown = <T extends Uint8Array | Uint16Array | Int32Array>(a: T, make: (n: number) => T, fill = 0): T => {
      const b = make(cap);
      if (fill) b.fill(fill);
      b.set(a);
      return b;
    };
    this.attrs = grown(this.attrs, (n) => new Uint16Array(n));
    this.folder = grown(this.folder, (n) => new Int32Array(n));
    this.make = grown(this.make, (n) => new Int32Array(n));
    this.model = grown(this.model, (n) => new Int32Array(n));
    this.takenPos = grown(this.takenPos, (n) => new Int32Array(n), -1);
    this.mark = new Uint8Array(cap);
    this.counts = new Uint8Array(cap);
    this.scratch = new Uint8Array(cap);
    this.hits = new Int32Array(cap);
    this.without = new Uint8Array(cap);
    this.cap = cap;
  }

  setDup(id: number, dup: boolean): void {
    this.attrs[id] = dup ? this.attrs[id] | A_DUP : this.attrs[id] & ~A_DUP;
  }
}

export class CatalogueIndex {
  readonly cols = new Columns();
  maxId = 0;
  private strings = new Map<string, number>();
  /** Keyword id -> ascending asset ids linked to it. */
  postings = new Map<number, Int32Array>();
  /** RAW asset id -> the members of its stack that would fold it when they match too. */
  rawSiblings = new Map<number, Int32Array>();
  private stackArrays: StackArrays | null = null;
  private perms = new Map<SortPerm, Int32Array>();
  private ranks = new Map<SortPerm, Int32Array>();
  /** The full-text part; null while it is built or rebuilt (FTS5 answers text meanwhile). */
  text: TextIndex | null = null;
  private tok: Tokenizer | null = null;
  private textBuild: TextIndexBuilder | null = null;
  /** Assets whose text changed while the full-text part was being rebuilt. */
  private textPending = new Set<number>();
  /** Stamp of the catalogue the index reflects: data_version and total_changes. */
  version = -1;
  changes = -1;

  constructor(private readonly db: Db) {}

  /** What the index holds in memory, in bytes (typed arrays exactly; the tokens' strings estimated at 24 bytes + 2 a character). */
  memoryBytes(): number {
    const c = this.cols;
    let n = [c.attrs, c.folder, c.make, c.model, c.takenPos, c.mark, c.counts, c.without, c.scratch, c.hits].reduce((t, a) => t + a.byteLength, 0);
    for (const a of [...this.perms.values(), ...this.ranks.values(), ...this.postings.values(), ...this.rawSiblings.values()]) n += a.byteLength;
    if (this.text) {
      n += this.text.postings.byteLength + this.text.start.byteLength;
      for (const t of this.text.terms) n += 24 + 2 * t.length;
    }
    return n;
  }

  tokenizer(): Tokenizer {
    this.tok ??= new Tokenizer(this.db);
    return this.tok;
  }

  /** Read the full-text part now (small catalogues) or a step at a time in the background. */
  buildText(background: boolean): void {
    this.text = null;
    this.textBuild?.abandon();
    const builder = new TextIndexBuilder(this.db);
    this.textBuild = builder;
    this.textPending.clear();
    const done = (): void => {
      if (this.textBuild !== builder) return;
      const text = builder.finish(this.tokenizer());
      this.textBuild = null;
      if (this.textPending.size) this.updateText(text, [...this.textPending]);
      this.textPending.clear();
      this.text = text;
    };
    if (!background) return done();
    const step = (): void => {
      if (this.textBuild !== builder) return;
      if (!this.db.open) return builder.abandon();
      builder.step();
      if (builder.done) done();
      else setImmediate(step);
    };
    setImmediate(step);
  }

  /** The index is being thrown away: stop a background build of the full-text part, close the tokenizer. */
  dispose(): void {
    this.textBuild?.abandon();
    this.textBuild = null;
    this.tok?.close();
    this.tok = null;
  }

  private updateText(text: TextIndex, ids: number[]): void {
    const rows = prepared(this.db, 'SELECT id, name, keywords_text, caption, title FROM assets WHERE id IN (SELECT value FROM json_each(?))')
      .raw(true)
      .all(JSON.stringify(ids)) as [number, string, string, string | null, string | null][];
    text.update(ids, rows);
  }

  code(s: string | null): number {
    if (s === null) return 0;
    let c = this.strings.get(s);
    if (c === undefined) {
      c = this.strings.size + 1;
      this.strings.set(s, c);
    }
    return c;
  }

  codeOf(s: string): number {
    return this.strings.get(s) ?? -1;
  }

  setRow(r: Row): void {
    const c = this.cols;
    const id = r[0];
    if (id > this.maxId) this.maxId = id;
    c.grow(id);
    const flag = r[5] === null ? 0 : (FLAG_CODE[r[5]] ?? 3);
    c.attrs[id] =
      (r[1] ? A_LIVE : 0) |
      (KIND_CODE[r[2]] ? 1 << (KIND_CODE[r[2]] - 1 + A_KIND_SHIFT) : 0) |
      (r[6] === 1 ? A_ERROR : 0) |
      (r[7] === 0 ? A_NO_KEYWORDS : 0) |
      (r[10] ? c.attrs[id] & A_DUP : 0) |
      (flag << A_FLAG_SHIFT) |
      ((Math.min(Math.max(r[4], 0), 7) & 7) << A_RATING_SHIFT);
    c.folder[id] = r[3];
    c.make[id] = this.code(r[8]);
    c.model[id] = this.code(r[9]);
  }

  /** Read the asset columns of ids (lo, hi]; returns the last id read, or -1 when done. */
  loadRows(after: number, limit: number): number {
    const rows = prepared(this.db, `SELECT ${ROW_COLUMNS} FROM assets WHERE id > ? ORDER BY id LIMIT ?`).raw(true).all(after, limit) as Row[];
    for (const r of rows) this.setRow(r);
    return rows.length < limit ? -1 : rows[rows.length - 1][0];
  }

  loadDuplicates(): void {
    const c = this.cols;
    for (let id = 0; id < c.cap; id++) c.attrs[id] &= ~A_DUP;
    const ids = rawPluck(
      this.db,
      `SELECT id FROM assets WHERE removed_at IS NULL AND content_hash IN (
         SELECT content_hash FROM assets WHERE removed_at IS NULL AND content_hash IS NOT NULL GROUP BY content_hash HAVING count(*) > 1)`,
    );
    for (const id of ids) c.setDup(id, true);
  }

  loadKeywords(): void {
    this.postings.clear();
    for (const k of this.keywordIds()) this.loadPostings(k);
  }

  keywordIds(): number[] {
    return rawPluck(this.db, 'SELECT id FROM keywords');
  }

  loadPostings(keywordId: number): void {
    const ids = Int32Array.from(rawPluck(this.db, 'SELECT asset_id FROM asset_keywords WHERE keyword_id = ? ORDER BY asset_id', keywordId));
    if (ids.length) this.postings.set(keywordId, ids);
    else this.postings.delete(keywordId);
  }

  /** rawSiblings as flat arrays (the RAW ids, where each one's siblings start, the siblings). */
  stacks(): StackArrays {
    if (!this.stackArrays) {
      const raws = new Int32Array(this.rawSiblings.size);
      const start = new Int32Array(this.rawSiblings.size + 1);
      let total = 0;
      for (const s of this.rawSiblings.values()) total += s.length;
      const siblings = new Int32Array(total);
      let i = 0;
      let at = 0;
      for (const [raw, s] of this.rawSiblings) {
        raws[i] = raw;
        start[i] = at;
        siblings.set(s, at);
        at += s.length;
        i++;
      }
      start[i] = at;
      this.stackArrays = { raws, start, siblings };
    }
    return this.stackArrays;
  }

  loadStacks(): void {
    this.stackArrays = null;
    this.rawSiblings.clear();
    const rows = prepared(
      this.db,
      `SELECT r.id, b.id FROM assets r JOIN assets b ON b.folder_id = r.folder_id AND b.stack_key = r.stack_key AND b.id <> r.id
         AND (b.is_raw = 0 OR b.id < r.id)
       WHERE r.is_raw = 1 ORDER BY r.id`,
    )
      .raw(true)
      .all() as [number, number][];
    let i = 0;
    while (i < rows.length) {
      let j = i;
      while (j < rows.length && rows[j][0] === rows[i][0]) j++;
      this.rawSiblings.set(rows[i][0], Int32Array.from(rows.slice(i, j), (r) => r[1]));
      i = j;
    }
  }

  /** A sort order, read from its covering index when missing or stale. */
  perm(which: SortPerm): Int32Array {
    let p = this.perms.get(which);
    if (p) return p;
    if (which === 'taken' || which === 'undated') {
      const taken = Int32Array.from(
        rawPluck(this.db, 'SELECT id FROM assets INDEXED BY assets_live_taken WHERE removed_at IS NULL AND taken_at IS NOT NULL ORDER BY taken_at, name, id'),
      );
      const pos = this.cols.takenPos;
      pos.fill(-1);
      for (let i = 0; i < taken.length; i++) pos[taken[i]] = i;
      // Undated: by name (binary) then id, as the timeline lists them after the dated ones.
      const byName = rawPluck(this.db, 'SELECT id FROM assets INDEXED BY assets_live_name WHERE removed_at IS NULL ORDER BY name, id');
      const undated = Int32Array.from(byName.filter((id) => pos[id] < 0));
      this.perms.set('taken', taken);
      this.perms.set('undated', undated);
      return which === 'taken' ? taken : undated;
    }
    const sql = {
      name: 'SELECT id FROM assets INDEXED BY assets_live_name_nocase WHERE removed_at IS NULL ORDER BY name COLLATE NOCASE, id',
      added: 'SELECT id FROM assets INDEXED BY assets_live_added WHERE removed_at IS NULL ORDER BY added_at, id',
      size: 'SELECT id FROM assets INDEXED BY assets_live_size WHERE removed_at IS NULL ORDER BY size, id',
    }[which];
    p = Int32Array.from(rawPluck(this.db, sql));
    this.perms.set(which, p);
    return p;
  }

  /** Each id's place in a sort order (for the timeline's dated part, see cols.takenPos). */
  rank(which: Exclude<SortPerm, 'taken'>): Int32Array {
    let r = this.ranks.get(which);
    if (!r) {
      const perm = this.perm(which);
      r = new Int32Array(this.cols.cap);
      for (let i = 0; i < perm.length; i++) r[perm[i]] = i;
      this.ranks.set(which, r);
    }
    return r;
  }

  /**
   * Put assets whose sort keys (or presence) changed in their new places in each order built
   * so far: out of the order, then back in where SQLite's own comparison of the keys puts
   * them (a binary search). Many changes at once: the orders are read again when next used.
   */
  private patchPerms(ids: number[]): void {
    if (ids.length > PATCH_MAX) return this.dropPerms();
    const json = JSON.stringify(ids);
    const present = new Map(
      prepared(this.db, 'SELECT id, taken_at IS NOT NULL FROM assets WHERE removed_at IS NULL AND id IN (SELECT value FROM json_each(?))')
        .raw(true)
        .all(json) as [number, number][],
    );
    const out = this.cols.scratch;
    for (const id of ids) out[id] = 1;
    for (const [which, perm] of this.perms) {
      const keys = ORDER_KEYS[which];
      const kept = new Int32Array(perm.length);
      let k = 0;
      for (let i = 0; i < perm.length; i++) {
        kept[k] = perm[i];
        k += 1 - out[perm[i]];
      }
      const wanted = ids.filter((id) => present.has(id) && (which === 'taken' ? present.get(id) === 1 : which === 'undated' ? present.get(id) === 0 : true));
      if (!wanted.length && k === perm.length) continue;
      const sorted = prepared(this.db, `SELECT a.id FROM assets a WHERE a.id IN (SELECT value FROM json_each(?)) ORDER BY ${keys.map((f) => f('a')).join(', ')}, a.id`)
        .pluck(true)
        .all(JSON.stringify(wanted)) as number[];
      const places = this.placesIn(kept.subarray(0, k), sorted, keys);
      const merged = new Int32Array(k + sorted.length);
      let from = 0;
      let n = 0;
      sorted.forEach((id, i) => {
        merged.set(kept.subarray(from, places[i]), n);
        n += places[i] - from;
        merged[n++] = id;
        from = places[i];
      });
      merged.set(kept.subarray(from, k), n);
      this.perms.set(which, merged);
    }
    for (const id of ids) out[id] = 0;
    this.ranks.clear();
    const taken = this.perms.get('taken');
    if (taken) {
      const pos = this.cols.takenPos;
      pos.fill(-1);
      for (let i = 0; i < taken.length; i++) pos[taken[i]] = i;
    }
  }

  /**
   * For each of `ids`, the first place in `order` whose asset sorts after it: binary searches
   * run side by side, each round one SQL statement comparing every pending pair (SQLite's own
   * comparison, collations included).
   */
  private placesIn(order: Int32Array, ids: number[], keys: ((x: string) => string)[]): Int32Array {
    const lo = new Int32Array(ids.length);
    const hi = new Int32Array(ids.length).fill(order.length);
    const compare = prepared(
      this.db,
      `SELECT (${keys.map((f) => f('a')).join(', ')}, a.id) < (${keys.map((f) => f('b')).join(', ')}, b.id)
       FROM json_each(?) j JOIN assets a ON a.id = j.value ->> 0 JOIN assets b ON b.id = j.value ->> 1 ORDER BY j.key`,
    ).pluck(true);
    for (;;) {
      const pending: number[] = [];
      for (let i = 0; i < ids.length; i++) if (lo[i] < hi[i]) pending.push(i);
      if (!pending.length) return lo;
      const before = compare.all(JSON.stringify(pending.map((i) => [ids[i], order[(lo[i] + hi[i]) >>> 1]]))) as number[];
      if (before.length !== pending.length) throw new Error('catalogue index out of step: an asset to place is gone');
      pending.forEach((i, j) => {
        const mid = (lo[i] + hi[i]) >>> 1;
        if (before[j] === 1) hi[i] = mid;
        else lo[i] = mid + 1;
      });
    }
  }

  private dropPerms(): void {
    this.perms.clear();
    this.ranks.clear();
    this.cols.takenPos.fill(-1);
  }

  /** Apply what this connection's writes recorded since the last call. */
  applyDirty(): void {
    const db = this.db;
    const dirty = prepared(db, 'SELECT id, sort, text FROM temp.idx_dirty').raw(true).all() as [number, number, number][];
    const kw = prepared(db, 'SELECT DISTINCT keyword_id FROM temp.idx_dirty_kw').raw(true).all() as [number][];
    const stacks = prepared(db, 'SELECT folder_id, stack_key FROM temp.idx_dirty_stacks').raw(true).all() as [number, string][];
    const hashes = prepared(db, 'SELECT hash FROM temp.idx_dirty_hashes').raw(true).all() as [string][];
    if (!dirty.length && !kw.length && !stacks.length && !hashes.length) return;
    const c = this.cols;
    this.stackArrays = null;
    if (dirty.length) {
      const ids = JSON.stringify(dirty.map((d) => d[0]));
      const rows = prepared(db, `SELECT ${ROW_COLUMNS} FROM assets WHERE id IN (SELECT value FROM json_each(?))`).raw(true).all(ids) as Row[];
      const seen = new Set<number>();
      for (const r of rows) {
        this.setRow(r);
        seen.add(r[0]);
      }
      for (const [id] of dirty) {
        if (seen.has(id) || id >= c.cap) continue;
        // Deleted: matches nothing, and is in no stack any more.
        c.attrs[id] = 0;
        this.rawSiblings.delete(id);
      }
      const moved = dirty.filter(([, sort]) => sort === 1).map(([id]) => id);
      if (moved.length) this.patchPerms(moved);
    }
    const textIds = dirty.filter((d) => d[2] === 1).map((d) => d[0]);
    if (textIds.length) {
      if (this.textBuild) for (const id of textIds) this.textPending.add(id);
      if (this.text) {
        this.updateText(this.text, textIds);
        if (this.text.worthRebuilding) this.buildText(this.maxId > indexOptions.syncBuildMax);
      }
    }
    for (const [keywordId] of kw) this.patchPostings(keywordId);
    for (const [folderId, stackKey] of stacks) {
      const members = prepared(db, 'SELECT id, is_raw FROM assets WHERE folder_id = ? AND stack_key = ? ORDER BY id').raw(true).all(folderId, stackKey) as [number, number][];
      for (const [id, raw] of members) {
        const better = members.filter(([b, bRaw]) => b !== id && (bRaw === 0 || b < id)).map(([b]) => b);
        if (raw === 1 && better.length) this.rawSiblings.set(id, Int32Array.from(better));
        else this.rawSiblings.delete(id);
      }
    }
    for (const [hash] of hashes) {
      const ids = rawPluck(db, 'SELECT id FROM assets WHERE content_hash = ? AND removed_at IS NULL', hash);
      for (const id of ids) c.setDup(id, ids.length > 1);
    }
    clearDirty(db);
  }

  private patchPostings(keywordId: number): void {
    const old = this.postings.get(keywordId) ?? new Int32Array(0);
    const touched = rawPluck(this.db, 'SELECT asset_id FROM temp.idx_dirty_kw WHERE keyword_id = ? ORDER BY asset_id', keywordId);
    const present = new Set(
      rawPluck(
        this.db,
        'SELECT asset_id FROM asset_keywords WHERE keyword_id = ? AND asset_id IN (SELECT asset_id FROM temp.idx_dirty_kw WHERE keyword_id = ?)',
        keywordId,
        keywordId,
      ),
    );
    const touchedSet = new Set(touched);
    const out: number[] = [];
    let i = 0;
    let j = 0;
    // Merge: the old postings minus every touched id, plus the touched ids still linked.
    while (i < old.length || j < touched.length) {
      const a = i < old.length ? old[i] : Infinity;
      const b = j < touched.length ? touched[j] : Infinity;
      if (a < b) {
        if (!touchedSet.has(a)) out.push(a);
        i++;
      } else {
        if (present.has(b)) out.push(b);
        if (a === b) i++;
        j++;
      }
    }
    if (out.length) this.postings.set(keywordId, Int32Array.from(out));
    else this.postings.delete(keywordId);
  }
}

function rawPluck(db: Db, sql: string, ...params: unknown[]): number[] {
  return prepared(db, sql).pluck(true).all(...params) as number[];
}

function clearDirty(db: Db): void {
  for (const t of ['idx_dirty', 'idx_dirty_kw', 'idx_dirty_stacks', 'idx_dirty_hashes']) prepared(db, `DELETE FROM temp.${t}`).run();
}

// ---------------------------------------------------------------------------------------
// Lifetime: one index per connection, kept by a long-lived process (the app) that asked for
// it; a one-shot process (a CLI command) searches once or twice and is served by SQL.

interface Holder {
  index: CatalogueIndex | null;
  building: Promise<void> | null;
  disabled: boolean;
  /** Whether this process keeps an index (startCatalogueIndex). */
  started: boolean;
}
const holders = new WeakMap<Db, Holder>();

function holder(db: Db): Holder {
  let h = holders.get(db);
  if (!h) {
    h = { index: null, building: null, disabled: false, started: false };
    holders.set(db, h);
  }
  return h;
}

/** Set up the change triggers and an empty index; the caller fills it. */
function fresh(db: Db): CatalogueIndex {
  db.exec(TRIGGERS);
  clearDirty(db);
  const ix = new CatalogueIndex(db);
  ix.version = catalogueStamp(db).version;
  return ix;
}

function finish(ix: CatalogueIndex): void {
  ix.loadDuplicates();
  ix.loadKeywords();
  ix.loadStacks();
  ix.buildText(false);
}

function buildNow(db: Db): CatalogueIndex {
  const ix = fresh(db);
  let after = 0;
  while (after >= 0) after = ix.loadRows(after, CHUNK * 4);
  finish(ix);
  ix.changes = -1; // applyDirty on first use settles the stamp
  return ix;
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

async function buildInBackground(db: Db, h: Holder): Promise<void> {
  for (;;) {
    const ix = fresh(db);
    let after = 0;
    while (after >= 0) {
      await tick();
      if (!db.open) return;
      after = ix.loadRows(after, CHUNK);
    }
    const steps = [() => ix.loadDuplicates(), ...ix.keywordIds().map((k) => () => ix.loadPostings(k)), () => ix.loadStacks(), () => ix.perm('taken')];
    for (const step of steps) {
      await tick();
      if (!db.open) return;
      step();
    }
    // The full-text part is read the same way; text searches use FTS5 until it is there.
    ix.buildText(true);
    // Another connection committed meanwhile: what was read may be torn; read it again.
    if (catalogueStamp(db).version !== ix.version) {
      ix.dispose();
      continue;
    }
    ix.changes = -1;
    h.index = ix;
    return;
  }
}

function assetCount(db: Db): number {
  return (prepared(db, 'SELECT coalesce(max(id), 0) AS n FROM assets').get() as { n: number }).n;
}

/**
 * The index, current with the catalogue, or null when this process keeps none, it is not
 * ready yet (a large catalogue is indexed in the background) or it cannot be trusted right
 * now (inside a transaction).
 */
export function currentIndex(db: Db): CatalogueIndex | null {
  const h = holder(db);
  if (db.inTransaction || h.disabled) return null;
  if (!h.index) {
    if (h.building || !h.started) return null;
    if (assetCount(db) > indexOptions.syncBuildMax) {
      h.building = buildInBackground(db, h).finally(() => {
        h.building = null;
      });
      return null;
    }
    h.index = buildNow(db);
  }
  const ix = h.index;
  const { version, changes } = catalogueStamp(db);
  if (version !== ix.version) {
    // Another connection wrote: this one's triggers saw none of it.
    dropIndex(db);
    return currentIndex(db);
  }
  if (changes !== ix.changes) {
    // After a mass of changes (a first scan with nobody searching) reading it all again is cheaper.
    const dirty = (prepared(db, 'SELECT count(*) AS n FROM temp.idx_dirty').get() as { n: number }).n;
    if (dirty > Math.max(indexOptions.rebuildDirty, ix.maxId / 4)) {
      dropIndex(db);
      return currentIndex(db);
    }
    try {
      ix.applyDirty();
    } catch (e) {
      // A bug, not a user error: SQL answers, and the index is built again.
      console.error('[search] catalogue index dropped:', (e as Error).message);
      dropIndex(db);
      return null;
    }
    ix.changes = catalogueStamp(db).changes;
  }
  return ix;
}

/** Answer every search of this connection from SQL (false) or the index (true, the default). For tests that compare the two. */
export function useCatalogueIndex(db: Db, enabled: boolean): void {
  holder(db).disabled = !enabled;
}

/** Throw the index away (it will be built again on next use): for an index found out of step. */
export function dropIndex(db: Db): void {
  const h = holder(db);
  h.index?.dispose();
  h.index = null;
}

/**
 * Index this connection's catalogue for the life of the process: now when it is small, else
 * in the background (SQL answers until it is ready). The app does this when it opens a library.
 */
export function startCatalogueIndex(db: Db): void {
  holder(db).started = true;
  currentIndex(db);
}

/** Resolves once the index is built (starting the build if needed). For benchmarks and tests. */
export async function indexReady(db: Db): Promise<void> {
  startCatalogueIndex(db);
  const h = holder(db);
  if (h.building) await h.building;
  while (h.index && !h.index.text) await tick();
  currentIndex(db);
}

/** Whether the index can answer this query (the analysis filters and sorts live in other tables). */
export function indexable(query: SearchQuery): boolean {
  if (query.sort === 'quality' || query.sort === 'ugcQuality' || query.sort === 'colorMatch') return false;
  return (
    query.minQuality === undefined &&
    query.maxQuality === undefined &&
    !(query.ugcClasses && query.ugcClasses.length) &&
    query.hasFaces === undefined &&
    query.minFaces === undefined &&
    query.maxFaces === undefined &&
    !query.child &&
    query.ageMin === undefined &&
    query.ageMax === undefined &&
    query.releaseNeeded === undefined &&
    !query.color
  );
}
