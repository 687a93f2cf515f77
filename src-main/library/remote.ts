import { collectionByUid, deleteCollectionRow, insertCollection, setMemberRow, updateCollectionRow } from '../catalogue/collections';
import { applySuggestion, SUGGESTION_OPS } from '../catalogue/remote-suggestions';
import { markFolderRemovedRemotely, removeAssetRow } from '../catalogue/folders';
import {
  collectionHistory,
  hasChange,
  keywordDeletes,
  keywordRenames,
  newestKeywordTime,
  newestMembershipTime,
  newestTime,
  recordRemote,
  recordSeed,
  type KeywordDelete,
  type KeywordRename,
  type RemoteChange,
  type SeedEntry,
} from '../catalogue/remote-log';
import { renameVocabularyPaths } from '../catalogue/vocabulary';
import { inTurns } from '../core/steps';
import type { LibraryCtx } from './context';
import { inEditLane } from './edit-lane';
import { prepared } from './db';
import { readField, writeField, type Field, type Value } from './edits';
import { RIGHTS_FIELDS } from './edits';
import { resumeRemovals } from './folders';
import { applyLibraryList, isKeywordDelete, LIBRARY_LIST_OPS, settleKeywordList } from './remote-library';

// Another studio member's changes applied to this replica, by the studio's conflict rules:
// - a change this library already holds (its device and sequence) is not applied again;
// - a scalar field (caption, title, rating, flag, colour label, rights fields) takes the
//   latest edit by the hybrid logical clock, whichever order the changes arrive in;
// - keywords merge as adds and removes: each keyword of a photo follows its own latest add
//   or remove, so two people adding different keywords both keep theirs;
// - a keyword renamed or merged is renamed for good: the old name, wherever and whenever it is
//   used (on a machine that had not heard of the rename yet), becomes the new one everywhere;
// - collections are known by an id made where they were created (collection_uids): their
//   creation, renames (latest wins) and deletion travel, and a photo's membership of one merges
//   as adds and removes like keywords; a deleted collection takes no members or renames until an
//   undo brings it back;
// - a photo removed from the library (its folder removed) is removed everywhere, and an edit to
//   it that arrives later finds nothing to change (removal wins over concurrent edits).
// Applied changes are recorded in the change log under their own device, time and author, on
// no edit (undo takes back one's own changes only).

/** The asset a change names, as the member's machine saw it: its folder, its path inside it. */
export interface RemoteAsset {
  folder: string | null;
  path: string | null;
  hash: string | null;
}

export interface IncomingChange extends Omit<RemoteChange, 'assetId'> {
  asset: RemoteAsset | null;
}

export type ApplyOutcome = 'applied' | 'older' | 'duplicate' | 'not_here' | 'not_yet';

const SCALAR = new Set<string>(['caption', 'title', 'rating', 'flag', 'label', ...RIGHTS_FIELDS]);

function findAsset(ctx: LibraryCtx, a: RemoteAsset): number | null {
  if (a.folder === null || a.path === null) return null;
  const row = prepared(ctx.db, 'SELECT a.id FROM assets a JOIN folders f ON f.id = a.folder_id WHERE f.path = ? AND a.rel_path = ? AND a.removed_at IS NULL').get(a.folder, a.path) as { id: number } | undefined;
  return row?.id ?? null;
}

const lower = (s: string): string => s.toLocaleLowerCase();

/** What a keyword is called after every rename the studio made (applied in clock order). */
export function resolveKeyword(renames: readonly KeywordRename[], name: string): string {
  let now = name;
  for (const r of renames) {
    if (lower(now) === lower(r.from)) now = r.to;
    else if (r.children && lower(now).startsWith(lower(r.from) + '|')) now = r.to + now.slice(r.from.length);
  }
  return now;
}

/** A photo's keywords with every name as the studio's renames leave it (each once, first place kept). */
function resolveList(renames: readonly KeywordRename[], list: readonly string[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const k of list) {
    const next = resolveKeyword(renames, k);
    if (seen.has(lower(next))) continue;
    seen.add(lower(next));
    out.push(next);
  }
  return out;
}

/** Every spelling that ends up as `name` after the renames (itself included): the changes that decide it. */
function spellingsOf(renames: readonly KeywordRename[], name: string): string[] {
  const names = new Set<string>([name]);
  for (const r of renames) names.add(r.from).add(r.to);
  return [...names].filter((n) => lower(resolveKeyword(renames, n)) === lower(name));
}

interface Batch {
  after: number;
  renames: KeywordRename[];
  /** keywords deleted in the studio since joining (each from every photo that had it then) */
  deletes: KeywordDelete[];
  /** a preset or the keyword list changed */
  lists: boolean;
  touched: Set<number>;
  foldersGone: boolean;
  /** a rename or merge arrived in this batch */
  renamed: boolean;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** A collection name free here: a clash with another collection is settled the same way on every replica (the later one is renamed). */
function freeName(ctx: LibraryCtx, name: string, uid: string, hlc: string, b: Batch): string {
  const other = prepared(ctx.db, 'SELECT c.id, u.uid FROM collections c LEFT JOIN collection_uids u ON u.id = c.id WHERE c.name = ?').get(name) as { id: number; uid: string | null } | undefined;
  if (!other || other.uid === uid) return name;
  const otherTime = other.uid ? (collectionHistory(ctx.db, b.after, other.uid).find((e) => e.op === 'collection.create')?.hlc ?? '') : '';
  if (otherTime > hlc && other.uid) {
    updateCollectionRow(ctx.db, other.id, { name: `${name} (${other.uid.slice(0, 4)})` });
    return name;
  }
  return `${name} (${uid.slice(0, 4)})`;
}

/** Whether a collection's latest create, restore or delete (by the clock) left it deleted. */
function deletedInStudio(ctx: LibraryCtx, uid: string, b: Batch): boolean {
  let fate: string | null = null;
  for (const e of collectionHistory(ctx.db, b.after, uid)) {
    if (e.op === 'collection.delete') {
      const inside = Array.isArray(e.value.insideUids) ? e.value.insideUids : [];
      if (e.value.uid === uid || inside.includes(uid)) fate = 'deleted';
    } else if (e.op === 'collection.create' && e.value.uid === uid) fate = 'alive';
    else if (e.op === 'collection.restore') fate = 'alive';
  }
  return fate === 'deleted';
}

function makeCollection(ctx: LibraryCtx, v: Obj, hlc: string, b: Batch): boolean {
  const uid = str(v.uid);
  const name = str(v.name);
  const kind = str(v.kind);
  if (!uid || !name || !kind || collectionByUid(ctx.db, uid) !== null) return false;
  const parentUid = str(v.parentUid);
  const parentId = parentUid ? collectionByUid(ctx.db, parentUid) : null;
  const query = typeof v.query === 'string' ? v.query : null;
  insertCollection(ctx.db, { uid, name: freeName(ctx, name, uid, hlc, b), kind, parentId, query: kind === 'smart' ? (query ?? '{}') : null });
  return true;
}

function applyCollection(ctx: LibraryCtx, c: IncomingChange, b: Batch): ApplyOutcome {
  const v = obj(c.value);
  const uid = str(v.uid);
  if (c.op === 'collection.restore') {
    let any = false;
    for (const r of Array.isArray(v.collections) ? (v.collections as Obj[]) : []) any = makeCollection(ctx, { ...r, parentUid: r.parentUid, query: r.query }, c.hlc, b) || any;
    for (const m of Array.isArray(v.members) ? (v.members as Obj[]) : []) {
      const id = str(m.uid) ? collectionByUid(ctx.db, str(m.uid)!) : null;
      const assetId = m.asset ? findAsset(ctx, m.asset as RemoteAsset) : null;
      if (id === null || assetId === null || typeof m.position !== 'number') continue;
      setMemberRow(ctx.db, id, assetId, m.position);
      b.touched.add(assetId);
      any = true;
    }
    return any ? 'applied' : 'older';
  }
  if (!uid) return 'not_yet';
  if (c.op === 'collection.create') {
    if (deletedInStudio(ctx, uid, b)) return 'older';
    return makeCollection(ctx, v, c.hlc, b) ? 'applied' : 'older';
  }
  const id = collectionByUid(ctx.db, uid);
  if (c.op === 'collection.delete') {
    if (id === null) return 'not_here';
    deleteCollectionRow(ctx.db, id);
    return 'applied';
  }
  if (c.op === 'collection.update') {
    if (id === null) return 'not_here';
    const newest = collectionHistory(ctx.db, b.after, uid)
      .filter((e) => e.op === 'collection.update' && e.value.uid === uid)
      .at(-1)?.hlc;
    if (newest !== undefined && newest > c.hlc) return 'older';
    const name = str(v.name);
    if (name) updateCollectionRow(ctx.db, id, { name: freeName(ctx, name, uid, c.hlc, b) });
    if ('parentUid' in v) {
      const parentUid = str(v.parentUid);
      const parentId = parentUid ? collectionByUid(ctx.db, parentUid) : null;
      if (parentId !== id) updateCollectionRow(ctx.db, id, { parentId });
    }
    if (typeof v.query === 'string') updateCollectionRow(ctx.db, id, { query: v.query });
    return 'applied';
  }
  return 'not_yet';
}

function applyOne(ctx: LibraryCtx, c: IncomingChange, b: Batch): ApplyOutcome {
  if (hasChange(ctx.db, c.device, c.seq)) return 'duplicate';
  const outcome = decide(ctx, c, b);
  // Recorded either way: the log holds every change of the studio this replica has seen, and
  // a change older than one already applied stays beaten by it on every replica.
  const assetId = c.asset && c.op !== 'asset.remove' ? findAsset(ctx, c.asset) : null;
  recordRemote(ctx.db, { ...c, assetId, identity: c.asset });
  if (c.op === 'keyword.rename' || c.op === 'keyword.merge') {
    b.renames = keywordRenames(ctx.db, b.after);
    b.renamed = true;
  }
  if (c.op === 'keyword.delete') {
    b.deletes = keywordDeletes(ctx.db, b.after);
    refoldHolders(ctx, b, obj(c.value));
  }
  if (c.op === 'keyword.delete' || c.op.startsWith('vocabulary.')) settleKeywordList(ctx, b.after, c.op, c.value);
  if (assetId !== null && c.field === 'keywords' && (c.op === 'add' || c.op === 'remove')) refold(ctx, assetId, b);
  return outcome;
}

function decide(ctx: LibraryCtx, c: IncomingChange, b: Batch): ApplyOutcome {
  const field = c.field;
  if (c.op.startsWith('collection.')) return applyCollection(ctx, c, b);
  if (LIBRARY_LIST_OPS.has(c.op)) {
    b.lists = true;
    return applyLibraryList(ctx, c.op, c.value, c.hlc, b.after);
  }
  // A keyword deleted: from the keyword list and the photos once it is recorded (settleKeywordList, refoldHolders).
  if (c.op === 'keyword.delete') {
    b.lists = true;
    return isKeywordDelete(c.value) ? 'applied' : 'not_yet';
  }
  if (c.op === 'keyword.rename' || c.op === 'keyword.merge') {
    const v = obj(c.value);
    const to = str(v.to) ?? str(v.into);
    if (!to) return 'not_yet';
    for (const from of Array.isArray(v.from) ? v.from : [v.from]) if (typeof from === 'string') renameVocabularyPaths(ctx.db, from, to, v.children !== false);
    // The photos follow when the batch ends (normalise), with every rename known by then.
    return 'applied';
  }
  if (c.op === 'asset.remove') {
    const assetId = c.asset ? findAsset(ctx, c.asset) : null;
    if (assetId === null) return 'not_here';
    // Its thumbnail stays until the folder goes (a thumbnail may be shared by a duplicate).
    removeAssetRow(ctx.db, assetId);
    b.touched.add(assetId);
    return 'applied';
  }
  if (c.op === 'folder.remove') {
    const path = str(obj(c.value).path);
    const id = path ? (prepared(ctx.db, 'SELECT id FROM folders WHERE path = ? AND removing_at IS NULL').pluck().get(path) as number | undefined) : undefined;
    if (id === undefined) return 'not_here';
    markFolderRemovedRemotely(ctx.db, id);
    b.foldersGone = true;
    return 'applied';
  }
  if (SUGGESTION_OPS.has(c.op)) {
    const assetId = c.asset ? findAsset(ctx, c.asset) : null;
    if (assetId === null) return 'not_here';
    const outcome = applySuggestion(ctx.db, c, assetId, b.after);
    if (outcome === 'applied') b.touched.add(assetId);
    return outcome;
  }
  const isKeywordOp = field === 'keywords' && (c.op === 'add' || c.op === 'remove') && typeof c.value === 'string';
  const isMembership = field === 'collections' && (c.op === 'add' || c.op === 'remove' || c.op === 'move');
  const isScalar = c.op === 'set' && field !== null && SCALAR.has(field);
  if (!isKeywordOp && !isScalar && !isMembership) return 'not_yet';
  const assetId = c.asset ? findAsset(ctx, c.asset) : null;
  if (assetId === null) return 'not_here';
  if (isMembership) {
    const v = obj(c.value);
    const uid = str(v.uid);
    const id = uid ? collectionByUid(ctx.db, uid) : null;
    if (uid === null || id === null) return 'not_here';
    const newest = newestMembershipTime(ctx.db, b.after, assetId, uid);
    if (newest !== null && newest > c.hlc) return 'older';
    setMemberRow(ctx.db, id, assetId, c.op === 'remove' ? null : typeof v.position === 'number' ? v.position : 0);
    b.touched.add(assetId);
    return 'applied';
  }
  if (isKeywordOp) {
    // Whether it is the latest word on that keyword; the photo's keywords are folded anew once it is recorded (refold).
    const keyword = resolveKeyword(b.renames, c.value as string);
    const newest = newestKeywordTime(ctx.db, b.after, assetId, spellingsOf(b.renames, keyword));
    b.touched.add(assetId);
    return newest !== null && newest > c.hlc ? 'older' : 'applied';
  }
  const newest = newestTime(ctx.db, b.after, assetId, field!);
  if (newest !== null && newest > c.hlc) return 'older';
  writeField(ctx, assetId, field as Field, c.value as Value);
  b.touched.add(assetId);
  return 'applied';
}

/** Whether a keyword (by its name after every rename) was deleted in the studio after `since` (null: at any time since joining). */
function deletedSince(b: Batch, name: string, since: string | null): boolean {
  const k = lower(name);
  return b.deletes.some((d) => {
    if (since !== null && d.hlc <= since) return false;
    const gone = lower(resolveKeyword(b.renames, d.name));
    return k === gone || (d.children && k.startsWith(gone + '|'));
  });
}

/**
 * A photo's keywords as the studio's changes decide them: each keyword (by its name after every
 * rename) is there when its latest add or remove by the clock is an add, and no delete of that
 * keyword from the library came after it; a keyword no change since joining speaks of stays as
 * the photo has it unless it was deleted since. Written only when it differs.
 */
function refold(ctx: LibraryCtx, assetId: number, b: Batch): void {
  const had = readField(ctx, assetId, 'keywords') as string[];
  const ops = prepared(ctx.db, "SELECT op, value, hlc FROM change_log WHERE asset_id = ? AND field = 'keywords' AND op IN ('add', 'remove') AND position > ? ORDER BY hlc").all(assetId, b.after) as Array<{ op: string; value: string; hlc: string }>;
  const latest = new Map<string, { on: boolean; name: string; hlc: string }>();
  for (const o of ops) {
    const name = resolveKeyword(b.renames, JSON.parse(o.value) as string);
    latest.set(lower(name), { on: o.op === 'add', name, hlc: o.hlc });
  }
  const kept = (name: string): boolean => {
    const l = latest.get(lower(name));
    return l?.on !== false && !deletedSince(b, name, l?.hlc ?? null);
  };
  const next = resolveList(b.renames, had).filter(kept);
  const present = new Set(next.map(lower));
  for (const [key, l] of latest) if (l.on && !present.has(key) && kept(l.name)) next.push(l.name);
  if (next.length !== had.length || next.some((k, i) => k !== had[i])) {
    writeField(ctx, assetId, 'keywords', next);
    b.touched.add(assetId);
  }
}

const esc = (s: string) => s.replace(/[\\%_]/g, (m) => '\\' + m);

/** Photos holding a keyword the studio deleted (or its children), folded anew (refold). */
function refoldHolders(ctx: LibraryCtx, b: Batch, v: Obj): void {
  if (typeof v.name !== 'string') return;
  const name = resolveKeyword(b.renames, v.name);
  const holders = prepared(ctx.db, "SELECT DISTINCT ak.asset_id FROM asset_keywords ak JOIN keywords k ON k.id = ak.keyword_id WHERE k.name = ? OR k.name LIKE ? ESCAPE '\\'").pluck().all(name, `${esc(name)}|%`) as number[];
  for (const id of holders) refold(ctx, id, b);
}

/**
 * Photos whose keywords a rename speaks of are folded anew (refold): every photo holding a
 * renamed or target name when a rename arrived, and otherwise those holding an old name (used
 * here after the rename). The same on every replica, so not a change of its own.
 */
function normalise(ctx: LibraryCtx, b: Batch): void {
  if (!b.renames.length) return;
  const withName = prepared(ctx.db, "SELECT ak.asset_id FROM asset_keywords ak JOIN keywords k ON k.id = ak.keyword_id WHERE k.name = ? OR k.name LIKE ? ESCAPE '\\'");
  const ids = new Set<number>();
  const names = new Set<string>();
  for (const r of b.renames) {
    names.add(r.from);
    if (b.renamed) names.add(r.to);
  }
  // Changes that used an old name (here too, after the rename: undo of an older edit, say).
  const used = prepared(ctx.db, "SELECT DISTINCT c.asset_id FROM change_log c JOIN assets a ON a.id = c.asset_id WHERE c.field = 'keywords' AND c.value = ? AND c.position > ? AND a.removed_at IS NULL");
  for (const n of names) {
    for (const id of withName.pluck().all(n, `${esc(n)}|%`) as number[]) ids.add(id);
    for (const id of used.pluck().all(JSON.stringify(n), b.after) as number[]) ids.add(id);
  }
  for (const id of ids) refold(ctx, id, b);
}

/**
 * Apply changes a turn of the event loop at a time (core/steps.ts: at most STEP changes and a
 * few milliseconds per turn), each turn one transaction that leaves the catalogue whole (a
 * rename that arrived folded into the photos), so a large pull never holds the main thread
 * (the window, its answers) for long; tells listeners which assets changed. `after`: the change log's position
 * when this library joined (what it did before never reached the studio).
 */
export function applyRemoteChanges(ctx: LibraryCtx, changes: readonly IncomingChange[], after: number): Promise<Record<ApplyOutcome, number>> {
  // In the edit lane: a local edit's turns and these never mix.
  return inEditLane(ctx, () => applyInTurns(ctx, changes, after));
}

async function applyInTurns(ctx: LibraryCtx, changes: readonly IncomingChange[], after: number): Promise<Record<ApplyOutcome, number>> {
  const counts: Record<ApplyOutcome, number> = { applied: 0, older: 0, duplicate: 0, not_here: 0, not_yet: 0 };
  const b: Batch = { after, renames: keywordRenames(ctx.db, after), deletes: keywordDeletes(ctx.db, after), lists: false, touched: new Set(), foldersGone: false, renamed: false };
  await inTurns(changes.length, (from, more) =>
    ctx.db.transaction(() => {
      let i = from;
      do counts[applyOne(ctx, changes[i++], b)]++;
      while (i < changes.length && more());
      // Photos follow a rename in the turn it arrives; names used here after one, at the end.
      if (b.renamed || i === changes.length) normalise(ctx, b);
      b.renamed = false;
      return i;
    })(),
  );
  if (b.touched.size || b.foldersGone || b.lists) ctx.events.emit('libraryChanged', { reason: 'edit', assetIds: [...b.touched] });
  // A folder removed elsewhere: what is left of it here goes in steps, as a removal here does
  // (folderRemovals() settles when it has).
  if (b.foldersGone) void resumeRemovals(ctx);
  return counts;
}

const SEED_COLUMNS = 'id, caption, title, rating, flag, color_label AS label, headline, creator, copyright, credit, city, country, keywords_text';
const SEED_CHUNK = 2000;

/**
 * What a library holds, seeded into its change log as its own changes (see recordSeed), or with
 * `dryRun` only counted (to say before joining what will be shared). Returns how many photos
 * and changes.
 */
export function seedCatalogue(ctx: LibraryCtx, dryRun = false): { photos: number; changes: number } {
  let index = 0;
  let photos = 0;
  let lastId = 0;
  // By id through the primary key (`+removed_at`: not by the index on removed_at, which made
  // every page read and sort all the live photos, so seeding a large library was quadratic).
  const page = prepared(ctx.db, `SELECT ${SEED_COLUMNS} FROM assets WHERE +removed_at IS NULL AND id > ? ORDER BY id LIMIT ${SEED_CHUNK}`);
  for (;;) {
    const rows = page.all(lastId) as Array<Record<string, unknown> & { id: number; keywords_text: string | null }>;
    if (!rows.length) break;
    lastId = rows.at(-1)!.id;
    const entries: SeedEntry[] = [];
    for (const r of rows) {
      const had = entries.length;
      for (const field of SCALAR) {
        const v = r[field];
        if (v !== null && v !== undefined && v !== '' && !(field === 'rating' && v === 0)) entries.push({ assetId: r.id, op: 'set', field, value: v });
      }
      for (const k of r.keywords_text ? r.keywords_text.split('\n') : []) entries.push({ assetId: r.id, op: 'add', field: 'keywords', value: k });
      if (entries.length > had) photos++;
    }
    if (dryRun) index += entries.length;
    else {
      ctx.db.transaction(() => {
        index = recordSeed(ctx.db, entries, index);
      })();
    }
  }
  if (!dryRun) {
    ctx.db.transaction(() => {
      index = recordSeed(ctx.db, seedCollections(ctx), index);
    })();
  }
  return { photos, changes: index };
}

/**
 * The library's collections and sets, and which photos are in each, as seed changes (sets
 * before what is in them): a library's collections made before it joined reach every replica.
 */
function seedCollections(ctx: LibraryCtx): SeedEntry[] {
  const rows = prepared(ctx.db, 'SELECT c.id, c.name, c.kind, c.parent_id AS parentId, c.query, u.uid FROM collections c JOIN collection_uids u ON u.id = c.id ORDER BY c.id').all() as Array<{ id: number; name: string; kind: string; parentId: number | null; query: string | null; uid: string }>;
  const uidOf = new Map(rows.map((r) => [r.id, r.uid]));
  const entries: SeedEntry[] = [];
  const done = new Set<number>();
  const add = (r: (typeof rows)[number], path: Set<number>): void => {
    if (done.has(r.id) || path.has(r.id)) return;
    path.add(r.id);
    const parent = r.parentId === null ? undefined : rows.find((p) => p.id === r.parentId);
    if (parent) add(parent, path);
    done.add(r.id);
    entries.push({ assetId: null, op: 'collection.create', field: null, value: { id: r.id, name: r.name, kind: r.kind, parentId: r.parentId, query: r.query, uid: r.uid, parentUid: r.parentId === null ? null : (uidOf.get(r.parentId) ?? null) } });
  };
  for (const r of rows) add(r, new Set());
  const members = prepared(ctx.db, 'SELECT m.collection_id AS id, m.asset_id AS assetId, m.position FROM collection_assets m JOIN assets a ON a.id = m.asset_id WHERE a.removed_at IS NULL ORDER BY m.collection_id, m.position').all() as Array<{ id: number; assetId: number; position: number }>;
  for (const m of members) {
    const uid = uidOf.get(m.id);
    if (uid) entries.push({ assetId: m.assetId, op: 'add', field: 'collections', value: { collection: m.id, position: m.position, uid } });
  }
  return entries;
}
