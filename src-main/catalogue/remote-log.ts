import { format, parse, receive } from './hlc';
import { stmt, type Db } from './statements';

// Changes made on other machines of a studio, as this catalogue records them: under their own
// device, sequence and clock time (so a change pulled twice is recognised, and "the latest edit
// wins" compares the same times on every replica), on no edit of this library's undo stack.

/** A change another device made, as the studio's log hands it over. */
export interface RemoteChange {
  device: string;
  seq: number;
  hlc: string;
  op: string;
  assetId: number | null;
  field: string | null;
  value: unknown;
  undo: boolean;
  /** the studio user who made it (the server attributes every change) */
  author?: string | null;
  /** the asset as the member's machine named it (kept when this catalogue no longer holds it, e.g. removed) */
  identity?: { folder: string | null; path: string | null; hash: string | null } | null;
}

/** Whether this catalogue already holds the change (device + sequence). */
export function hasChange(db: Db, device: string, seq: number): boolean {
  return stmt(db, 'SELECT 1 FROM change_log WHERE device = ? AND seq = ?').get(device, seq) !== undefined;
}

/**
 * The newest time the studio knows for an asset's field, as this catalogue has it (for keywords,
 * of one keyword: its adds and removes; a change of the list's order alone does not decide
 * whether it is there), or null when it knows none. Only changes after `after` count: what
 * this library did before it joined never reached the studio, so it cannot decide there either.
 */
export function newestTime(db: Db, after: number, assetId: number, field: string, keyword?: string): string | null {
  if (keyword === undefined) return stmt(db, 'SELECT max(hlc) FROM change_log WHERE asset_id = ? AND field = ? AND position > ?').pluck().get(assetId, field, after) as string | null;
  return stmt(db, "SELECT max(hlc) FROM change_log WHERE asset_id = ? AND field = ? AND op IN ('add', 'remove') AND value = ? AND position > ?").pluck().get(assetId, field, JSON.stringify(keyword), after) as string | null;
}

/** One field value of the catalogue as it stands, for seeding a studio. */
export interface SeedEntry {
  /** null: a change of the library itself (a collection made) */
  assetId: number | null;
  op: 'set' | 'add' | 'collection.create';
  field: string | null;
  value: unknown;
}

/**
 * Record what a library holds as changes of its own device, for the studio it joins: stamped
 * with clock times before any real edit (1970, in order), so every edit anyone makes in the
 * studio is later than them and wins, while a field nobody edited gets the library's value
 * (where two joining libraries disagree, one of them, the same on every replica). The clock's
 * own time is not moved back. Inside the caller's transaction; `index` numbers the entries
 * across calls, so their times never repeat.
 */
export function recordSeed(db: Db, entries: readonly SeedEntry[], index: number): number {
  if (!entries.length) return index;
  const clock = stmt(db, 'SELECT device, next_seq FROM catalogue_clock WHERE id = 1').get() as { device: string; next_seq: number };
  let seq = clock.next_seq;
  const insert = stmt(
    db,
    `INSERT INTO change_log (device, seq, hlc, op, field, value, edit_id, undo, asset_id, asset_folder, asset_path, asset_hash)
     SELECT ?, ?, ?, ?, ?, ?, NULL, 0, x.id, f.path, a.rel_path, a.content_hash
     FROM (SELECT ? AS id) x LEFT JOIN assets a ON a.id = x.id LEFT JOIN folders f ON f.id = a.folder_id`,
  );
  for (const e of entries) {
    const hlc = format({ millis: Math.floor(index / 0x10000), counter: index % 0x10000, device: clock.device });
    insert.run(clock.device, seq++, hlc, e.op, e.field, JSON.stringify(e.value), e.assetId);
    index++;
  }
  stmt(db, 'UPDATE catalogue_clock SET next_seq = ? WHERE id = 1').run(seq);
  return index;
}

/**
 * Record another device's change (inside the transaction that applied it) and move this
 * library's clock past its time, so the next local edit is later than everything seen.
 */
export function recordRemote(db: Db, c: RemoteChange, wallMs = Date.now()): void {
  stmt(
    db,
    `INSERT INTO change_log (device, seq, hlc, op, field, value, edit_id, undo, author, asset_id, asset_folder, asset_path, asset_hash)
     SELECT ?, ?, ?, ?, ?, ?, NULL, ?, ?, x.id, coalesce(f.path, x.folder), coalesce(a.rel_path, x.path), coalesce(a.content_hash, x.hash)
     FROM (SELECT ? AS id, ? AS folder, ? AS path, ? AS hash) x LEFT JOIN assets a ON a.id = x.id LEFT JOIN folders f ON f.id = a.folder_id`,
  ).run(c.device, c.seq, c.hlc, c.op, c.field, c.value === undefined ? null : JSON.stringify(c.value), c.undo ? 1 : 0, c.author ?? null, c.assetId, c.identity?.folder ?? null, c.identity?.path ?? null, c.identity?.hash ?? null);
  const clock = stmt(db, 'SELECT hlc FROM catalogue_clock WHERE id = 1').pluck().get() as string;
  stmt(db, 'UPDATE catalogue_clock SET hlc = ? WHERE id = 1').run(format(receive(parse(clock), parse(c.hlc), wallMs)));
}

/** The newest time of the adds and removes of any of these spellings of one keyword on an asset (see newestTime). */
export function newestKeywordTime(db: Db, after: number, assetId: number, names: readonly string[]): string | null {
  let newest: string | null = null;
  for (const n of names) {
    const t = newestTime(db, after, assetId, 'keywords', n);
    if (t !== null && (newest === null || t > newest)) newest = t;
  }
  return newest;
}

/** A keyword renamed or merged in the studio: `from` becomes `to` (with its children when `children`). */
export interface KeywordRename {
  from: string;
  to: string;
  children: boolean;
  hlc: string;
}

/** Every rename and merge of a keyword the studio made since this library joined, oldest first by the clock. */
export function keywordRenames(db: Db, after: number): KeywordRename[] {
  const rows = stmt(db, "SELECT op, value, hlc FROM change_log WHERE op IN ('keyword.rename', 'keyword.merge') AND position > ? ORDER BY hlc").all(after) as Array<{ op: string; value: string; hlc: string }>;
  const out: KeywordRename[] = [];
  for (const r of rows) {
    const v = JSON.parse(r.value) as { from: string | string[]; to?: string; into?: string; children?: boolean };
    const to = v.to ?? v.into;
    if (typeof to !== 'string') continue;
    for (const from of Array.isArray(v.from) ? v.from : [v.from]) out.push({ from, to, children: v.children !== false, hlc: r.hlc });
  }
  return out;
}

/** The studio's changes since joining that name a collection by its studio-wide id, as (op, hlc), oldest first. */
export function collectionHistory(db: Db, after: number, uid: string): Array<{ op: string; hlc: string; value: Record<string, unknown> }> {
  const rows = stmt(db, "SELECT op, hlc, value FROM change_log WHERE op LIKE 'collection.%' AND position > ? AND instr(value, ?) > 0 ORDER BY hlc").all(after, uid) as Array<{ op: string; hlc: string; value: string }>;
  return rows.map((r) => ({ op: r.op, hlc: r.hlc, value: JSON.parse(r.value) as Record<string, unknown> }));
}

/** The newest time of a photo's membership in a collection (by its studio-wide id) this library knows. */
export function newestMembershipTime(db: Db, after: number, assetId: number, uid: string): string | null {
  return stmt(db, "SELECT max(hlc) FROM change_log WHERE asset_id = ? AND field = 'collections' AND position > ? AND instr(value, ?) > 0").pluck().get(assetId, after, uid) as string | null;
}

/** A keyword deleted from the library (and from every photo) in the studio: `name` (with its children when `children`). */
export interface KeywordDelete {
  name: string;
  children: boolean;
  hlc: string;
}

/** Every keyword delete the studio made since this library joined, oldest first by the clock. */
export function keywordDeletes(db: Db, after: number): KeywordDelete[] {
  const rows = stmt(db, "SELECT value, hlc FROM change_log WHERE op = 'keyword.delete' AND position > ? ORDER BY hlc").all(after) as Array<{ value: string; hlc: string }>;
  const out: KeywordDelete[] = [];
  for (const r of rows) {
    const v = JSON.parse(r.value) as { name?: unknown; children?: unknown };
    if (typeof v.name === 'string') out.push({ name: v.name, children: v.children !== false, hlc: r.hlc });
  }
  return out;
}

/**
 * The newest time of the studio's changes of these kinds (`ops`) that name one thing by `key`
 * of their value (a preset's name, a keyword-list entry's path), compared without case, since
 * this library joined; null when none.
 */
export function newestNamedTime(db: Db, after: number, ops: readonly string[], key: 'name' | 'path', name: string): string | null {
  return stmt(db, `SELECT max(hlc) FROM change_log WHERE op IN (${ops.map(() => '?').join(', ')}) AND position > ? AND json_extract(value, '$.${key}') = ? COLLATE NOCASE`)
    .pluck()
    .get(...ops, after, name) as string | null;
}

/** The keyword-list changes (added, changed, restored) after `hlc` that may speak of entry `path`, oldest first by the clock. */
export function vocabularyChangesAfter(db: Db, after: number, hlc: string, path: string): Array<{ op: string; value: string }> {
  return stmt(db, "SELECT op, value FROM change_log WHERE op IN ('vocabulary.add', 'vocabulary.update', 'vocabulary.restore') AND position > ? AND hlc > ? AND instr(lower(value), lower(?)) > 0 ORDER BY hlc").all(after, hlc, JSON.stringify(path).slice(1, -1)) as Array<{ op: string; value: string }>;
}
