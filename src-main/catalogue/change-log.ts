import { collectionUid } from './collections';
import { format, parse, tick, type Hlc } from './hlc';
import { stmt, type Db } from './statements';

// The change log: every change the catalogue's door applies is recorded here, in order
// (migration 34). A change names its device and that device's sequence number (so a replayed
// change is recognised), a hybrid-logical-clock time (so the latest edit of a field is the same
// one on every machine), what happened (`op`), the asset (its id here; its folder, path inside
// the folder and content hash for other machines) and the field and value. Keywords and
// collection membership are recorded as adds and removes, every other field of an asset as a
// set. Changes to the library itself (collections, the keyword list, folders) have no asset.

/** What happened to an asset's field: a scalar set, a member of a set added or removed, a member moved in an order. */
export type AssetOp = 'set' | 'add' | 'remove' | 'move';
/** What happened to the library itself: `<thing>.<verb>`, e.g. collection.create, keyword.rename, folder.remove. */
export type LibraryOp = `${'collection' | 'keyword' | 'vocabulary' | 'folder' | 'preset' | 'asset' | 'suggestion' | 'caption' | 'analysis'}.${string}`;

/** One change of one asset's field, as an edit makes it (old and new values as stored). */
export interface FieldChange {
  assetId: number;
  field: string;
  old: unknown;
  new: unknown;
}

/** A change to the library itself, or to an asset as a whole (added by a scan, removed). */
export interface Operation {
  op: AssetOp | LibraryOp;
  assetId?: number | null;
  /** How other machines name the asset, when the catalogue no longer can (it was just deleted). */
  identity?: AssetIdentity;
  field?: string | null;
  value?: unknown;
}

/** One recorded change, as a reader gets it. */
export interface LoggedChange {
  /** The local order: changesSince(db, position) gives the ones after it. */
  position: number;
  device: string;
  seq: number;
  hlc: string;
  op: AssetOp | LibraryOp;
  assetId: number | null;
  /** How other machines find the asset: its folder, its path inside it, its content hash (when known) as they were. */
  asset: { folder: string | null; path: string | null; hash: string | null } | null;
  field: string | null;
  value: unknown;
  /** The edit (undo stack entry) this change belongs to, when it belongs to one. */
  editId: number | null;
  /** Whether this change undid an earlier one. */
  undo: boolean;
}

/** An asset as other machines find it: its folder, its path inside it, its content hash. */
export interface AssetIdentity {
  folder: string | null;
  path: string | null;
  hash: string | null;
}

interface Entry {
  op: AssetOp | LibraryOp;
  assetId: number | null;
  identity?: AssetIdentity;
  field: string | null;
  value: unknown;
}

/** This library's device id (made once, by migration 34, and kept). */
export function deviceId(db: Db): string {
  return stmt(db, 'SELECT device FROM catalogue_clock WHERE id = 1').pluck().get() as string;
}

/** The position of the newest change (0 when none). */
export function lastPosition(db: Db): number {
  return (stmt(db, 'SELECT max(position) FROM change_log').pluck().get() as number | null) ?? 0;
}

const sameList = (a: readonly unknown[], b: readonly unknown[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

/** An asset field's change as the log's operations (keywords and memberships as adds and removes). */
function entriesOf(c: FieldChange, out: Entry[]): void {
  if (c.field === 'keywords' && Array.isArray(c.old) && Array.isArray(c.new)) {
    const before = new Set(c.old as string[]);
    const after = new Set(c.new as string[]);
    const had = out.length;
    for (const k of c.old as string[]) if (!after.has(k)) out.push({ op: 'remove', assetId: c.assetId, field: 'keywords', value: k });
    for (const k of c.new as string[]) if (!before.has(k)) out.push({ op: 'add', assetId: c.assetId, field: 'keywords', value: k });
    // Same keywords in another order: the order is set.
    if (out.length === had && !sameList(c.old, c.new)) out.push({ op: 'set', assetId: c.assetId, field: 'keywords', value: c.new });
    return;
  }
  if (c.field.startsWith('collection:')) {
    const collection = Number(c.field.slice('collection:'.length));
    const op: AssetOp = c.old === null ? 'add' : c.new === null ? 'remove' : 'move';
    out.push({ op, assetId: c.assetId, field: 'collections', value: op === 'remove' ? { collection } : { collection, position: c.new } });
    return;
  }
  if (c.field === 'extended' && c.old && c.new && typeof c.old === 'object' && typeof c.new === 'object') {
    const before = c.old as Record<string, unknown>;
    const after = c.new as Record<string, unknown>;
    for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
      if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) out.push({ op: 'set', assetId: c.assetId, field: `extended.${key}`, value: after[key] ?? null });
    }
    return;
  }
  out.push({ op: 'set', assetId: c.assetId, field: c.field, value: c.new ?? null });
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A change's value with what other machines know a collection by: its studio-wide id (`uid`,
 * beside the local `id`), the set it is in (`parentUid`), what went with it (`insideUids`), and
 * for a restore the members as their folder and path. A change of anything else is unchanged.
 */
function withStableIds(db: Db, e: Entry): unknown {
  const v = e.value;
  if (!isObj(v)) return v;
  const uid = (id: unknown): string | null => (typeof id === 'number' ? collectionUid(db, id) : null);
  if (e.field === 'collections' && typeof v.collection === 'number') return { ...v, uid: uid(v.collection) };
  if (e.op === 'collection.create' || e.op === 'collection.update' || e.op === 'collection.delete') {
    const out: Obj = { ...v, uid: uid(v.id) };
    if ('parentId' in v) out.parentUid = uid(v.parentId);
    if (Array.isArray(v.inside)) out.insideUids = v.inside.map(uid);
    return out;
  }
  if (e.op === 'collection.restore' && Array.isArray(v.collections) && Array.isArray(v.members)) {
    const where = stmt(db, 'SELECT f.path AS folder, a.rel_path AS path, a.content_hash AS hash FROM assets a JOIN folders f ON f.id = a.folder_id WHERE a.id = ?');
    return {
      ...v,
      collections: (v.collections as Obj[]).map((c) => ({ ...c, uid: uid(c.id), parentUid: uid(c.parent_id) })),
      members: (v.members as Obj[]).map((m) => ({ ...m, uid: uid(m.collection_id), asset: where.get(m.asset_id) ?? null })),
    };
  }
  return v;
}

/**
 * Write entries to the log with this device's next sequence numbers and clock times, inside
 * the caller's transaction (one read and one write of the clock for the lot; one INSERT per
 * entry, which finds the asset's folder and path by primary key within SQLite).
 */
function write(db: Db, entries: readonly Entry[], editId: number | null, undo: boolean, wallMs = Date.now()): void {
  if (!entries.length) return;
  const clock = stmt(db, 'SELECT device, next_seq, hlc FROM catalogue_clock WHERE id = 1').get() as { device: string; next_seq: number; hlc: string };
  let time: Hlc = parse(clock.hlc);
  let seq = clock.next_seq;
  const insert = stmt(
    db,
    `INSERT INTO change_log (device, seq, hlc, op, field, value, edit_id, undo, asset_id, asset_folder, asset_path, asset_hash)
     SELECT ?, ?, ?, ?, ?, ?, ?, ?, x.id, f.path, a.rel_path, a.content_hash
     FROM (SELECT ? AS id) x LEFT JOIN assets a ON a.id = x.id LEFT JOIN folders f ON f.id = a.folder_id`,
  );
  const named = stmt(
    db,
    `INSERT INTO change_log (device, seq, hlc, op, field, value, edit_id, undo, asset_id, asset_folder, asset_path, asset_hash)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const flag = undo ? 1 : 0;
  for (const e of entries) {
    time = tick(time, wallMs);
    const value = e.value === undefined ? null : JSON.stringify(withStableIds(db, e));
    if (e.identity) named.run(clock.device, seq++, format(time), e.op, e.field, value, editId, flag, e.assetId, e.identity.folder, e.identity.path, e.identity.hash);
    else insert.run(clock.device, seq++, format(time), e.op, e.field, value, editId, flag, e.assetId);
  }
  stmt(db, 'UPDATE catalogue_clock SET next_seq = ?, hlc = ? WHERE id = 1').run(seq, format(time));
}

/** Record changes of assets' fields (inside the transaction that made them). `undo`: they put an earlier edit's values back. */
export function recordFieldChanges(db: Db, editId: number | null, changes: readonly FieldChange[], undo = false): void {
  const entries: Entry[] = [];
  for (const c of changes) entriesOf(c, entries);
  write(db, entries, editId, undo);
}

/** Record changes to the library itself or to whole assets (inside the transaction that made them). */
export function recordOperations(db: Db, editId: number | null, ops: readonly Operation[], undo = false): void {
  write(
    db,
    ops.map((o) => ({ op: o.op, assetId: o.assetId ?? null, identity: o.identity, field: o.field ?? null, value: o.value })),
    editId,
    undo,
  );
}

interface Row {
  position: number;
  device: string;
  seq: number;
  hlc: string;
  op: string;
  asset_id: number | null;
  asset_folder: string | null;
  asset_path: string | null;
  asset_hash: string | null;
  field: string | null;
  value: string | null;
  edit_id: number | null;
  undo: number;
}

/** Every change after `position`, oldest first, at most `limit` of them (page on with the last one's position). */
export function changesSince(db: Db, position: number, limit = 1000): LoggedChange[] {
  const rows = stmt(db, 'SELECT * FROM change_log WHERE position > ? ORDER BY position LIMIT ?').all(position, Math.max(1, Math.min(limit, 100_000))) as Row[];
  return rows.map((r) => ({
    position: r.position,
    device: r.device,
    seq: r.seq,
    hlc: r.hlc,
    op: r.op as AssetOp | LibraryOp,
    assetId: r.asset_id,
    asset: r.asset_id === null ? null : { folder: r.asset_folder, path: r.asset_path, hash: r.asset_hash },
    field: r.field,
    value: r.value === null ? null : (JSON.parse(r.value) as unknown),
    editId: r.edit_id,
    undo: r.undo === 1,
  }));
}

/** One line of a photo's history: who changed what, and when. */
export interface HistoryEntry {
  /** the hybrid-logical-clock time (its first part is the wall-clock time, ISO 8601) */
  at: string;
  /** the studio user who made it; null: made in this library */
  author: string | null;
  device: string;
  op: AssetOp | LibraryOp;
  field: string | null;
  value: unknown;
  undo: boolean;
}

/** A photo's history, newest first (for the inspector): this library's changes and those of the studio's members. */
export function assetHistory(db: Db, assetId: number, limit = 200): HistoryEntry[] {
  const rows = stmt(db, 'SELECT hlc, author, device, op, field, value, undo FROM change_log WHERE asset_id = ? ORDER BY hlc DESC LIMIT ?').all(assetId, Math.max(1, Math.min(limit, 10_000))) as Array<{
    hlc: string;
    author: string | null;
    device: string;
    op: string;
    field: string | null;
    value: string | null;
    undo: number;
  }>;
  return rows.map((r) => ({
    at: r.hlc,
    author: r.author,
    device: r.device,
    op: r.op as AssetOp | LibraryOp,
    field: r.field,
    value: r.value === null ? null : (JSON.parse(r.value) as unknown),
    undo: r.undo === 1,
  }));
}
