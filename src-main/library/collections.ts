import type { CollectionInfo, CollectionKind, SmartQuery } from '../../src-preload/contract';
import { deleteCollectionRow, insertCollection, updateCollectionRow } from '../catalogue/collections';
import { ApiError } from '../core/errors';
import type { LibraryCtx } from './context';
import { collectionRow, collectionRows, descendants, memberIds, notFound, smartQueryOf, type CollectionRow } from './collection-store';
import { prepared } from './db';
import { collectionDeletion, collectionUpdate, logLibraryEdit } from './library-undo';
import { inEditLane } from './edit-lane';
import { describeCount, editMembership } from './edits';
import { collectionSize, searchIds } from '../search/search';

// Collections as Lightroom users know them (issue 16): a photo can be in many manual
// collections (the files are never touched), a smart collection is a saved search evaluated
// live by the one search of the library (search.ts), and sets hold collections and other sets.
// Membership changes are edits like keywords and ratings: logged, undoable (edits.ts); so are
// creating, renaming, moving and deleting a collection (what undo puts back: library-undo.ts).

const quote = (s: string): string => `“${s}”`;

const KIND_NOUN: Record<CollectionKind, string> = { manual: 'collection', smart: 'smart collection', set: 'collection set' };

function cleanName(name: string): string {
  const clean = name.normalize('NFC').trim();
  if (!clean) throw new ApiError('validation', 'Give the collection a name.', 'name');
  if (clean.length > 200) throw new ApiError('validation', 'A collection name is at most 200 characters.', 'name');
  return clean;
}

/** A smart collection's search without the view's sort and order (those stay the view's). */
function savedQuery(query: SmartQuery & { sort?: unknown; order?: unknown }): SmartQuery {
  const rest: Record<string, unknown> = { ...query };
  delete rest.sort;
  delete rest.order;
  return rest as SmartQuery;
}

function checkNameFree(ctx: LibraryCtx, name: string, except?: number): void {
  const other = prepared(ctx.db, 'SELECT id, kind FROM collections WHERE name = ?').get(name) as { id: number; kind: CollectionKind } | undefined;
  if (other && other.id !== except) {
    throw new ApiError('conflict', `There is already a ${KIND_NOUN[other.kind]} called ${quote(name)}. Pick another name.`, 'name');
  }
}

function checkParent(ctx: LibraryCtx, parentId: number | null | undefined, self?: number): number | null {
  if (parentId === null || parentId === undefined) return null;
  const parent = collectionRow(ctx.db, parentId);
  if (!parent) throw new ApiError('not_found', 'That collection set no longer exists. Pick another one.', 'parentId');
  if (parent.kind !== 'set') throw new ApiError('validation', `${quote(parent.name)} is a ${KIND_NOUN[parent.kind]}, not a set: only a collection set can hold collections.`, 'parentId');
  if (self !== undefined && (parentId === self || descendants(ctx.db, self).some((d) => d.id === parentId))) {
    throw new ApiError('validation', 'A set cannot go inside itself or inside one of its own sets.', 'parentId');
  }
  return parentId;
}

/**
 * Every smart collection must still resolve after a change: a smart collection may filter by
 * another collection (or a set holding it), and a loop, or a collection that is gone, would
 * leave it without an answer. Run inside the change's transaction, so a refusal undoes it.
 */
function checkSmartCollections(ctx: LibraryCtx): void {
  for (const row of collectionRows(ctx.db)) if (row.kind === 'smart') searchIds(ctx, { collectionId: row.id }, { limit: 1 });
}

function countOf(ctx: LibraryCtx, row: CollectionRow): number {
  try {
    return collectionSize(ctx, row.id);
  } catch {
    return 0; // checkSmartCollections keeps this from happening; a count is no place to fail
  }
}

function toInfo(ctx: LibraryCtx, row: CollectionRow, byId: Map<number, CollectionRow>): CollectionInfo {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    parentId: row.parent_id,
    parent: row.parent_id !== null ? (byId.get(row.parent_id)?.name ?? null) : null,
    count: countOf(ctx, row),
    query: row.kind === 'smart' ? smartQueryOf(row) : null,
  };
}

/** Every collection and set: the top level by name, each set followed by what it holds. */
export function listCollections(ctx: LibraryCtx): CollectionInfo[] {
  const rows = collectionRows(ctx.db);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const out: CollectionInfo[] = [];
  const visit = (parent: number | null): void => {
    for (const row of rows) {
      if (row.parent_id !== parent) continue;
      out.push(toInfo(ctx, row, byId));
      if (row.kind === 'set') visit(row.id);
    }
  };
  visit(null);
  return out;
}

export function getCollection(ctx: LibraryCtx, id: number): CollectionInfo {
  const row = collectionRow(ctx.db, id);
  if (!row) throw notFound();
  const parent = row.parent_id !== null ? collectionRow(ctx.db, row.parent_id) : undefined;
  return toInfo(ctx, row, new Map(parent ? [[parent.id, parent]] : []));
}

/** A collection by its name (case-insensitive), as the CLI addresses them. */
export function collectionByName(ctx: LibraryCtx, name: string): CollectionInfo {
  const id = prepared(ctx.db, 'SELECT id FROM collections WHERE name = ?').pluck().get(name.normalize('NFC').trim()) as number | undefined;
  if (id === undefined) {
    const names = collectionRows(ctx.db).map((r) => r.name);
    throw new ApiError(
      'not_found',
      names.length
        ? `There is no collection called ${quote(name)}. The collections are: ${names.map(quote).join(', ')}.`
        : `There is no collection called ${quote(name)}: there are no collections yet. Create one with \`tagsmith collection create NAME\`.`,
    );
  }
  return getCollection(ctx, id);
}

export function createCollection(ctx: LibraryCtx, args: { name: string; kind: CollectionKind; parentId?: number | null; query?: SmartQuery }): CollectionInfo {
  const name = cleanName(args.name);
  if (args.kind === 'smart' && !args.query) throw new ApiError('validation', 'A smart collection needs its search (the filters it keeps).', 'query');
  if (args.kind !== 'smart' && args.query) throw new ApiError('validation', `Only a smart collection has a search; a ${KIND_NOUN[args.kind]} does not.`, 'query');
  const id = ctx.db.transaction(() => {
    checkNameFree(ctx, name);
    const parentId = checkParent(ctx, args.parentId);
    const query = args.kind === 'smart' ? JSON.stringify(savedQuery(args.query!)) : null;
    const newId = insertCollection(ctx.db, { name, kind: args.kind, parentId, query });
    if (args.kind === 'smart') checkSmartCollections(ctx);
    logLibraryEdit(ctx.db, `create ${KIND_NOUN[args.kind]} ${quote(name)}`, [{ kind: 'collectionCreated', id: newId }], [
      { op: 'collection.create', value: { id: newId, name, kind: args.kind, parentId, query } },
    ]);
    return newId;
  })();
  ctx.events.emit('libraryChanged', { reason: 'edit' });
  return getCollection(ctx, id);
}

/** Rename, move into a set (null: the top level), or change a smart collection's search. */
export function updateCollection(ctx: LibraryCtx, id: number, changes: { name?: string; parentId?: number | null; query?: SmartQuery }): CollectionInfo {
  ctx.db.transaction(() => {
    const row = collectionRow(ctx.db, id);
    if (!row) throw notFound();
    const before = collectionUpdate(ctx.db, id);
    if (changes.name !== undefined) {
      const name = cleanName(changes.name);
      checkNameFree(ctx, name, id);
      updateCollectionRow(ctx.db, id, { name });
    }
    if (changes.parentId !== undefined) updateCollectionRow(ctx.db, id, { parentId: checkParent(ctx, changes.parentId, id) });
    if (changes.query !== undefined) {
      if (row.kind !== 'smart') throw new ApiError('validation', `${quote(row.name)} is a ${KIND_NOUN[row.kind]}: only a smart collection has a search to edit.`, 'query');
      updateCollectionRow(ctx.db, id, { query: JSON.stringify(savedQuery(changes.query)) });
    }
    checkSmartCollections(ctx);
    const after = collectionRow(ctx.db, id)!;
    const what: string[] = [];
    if (after.name !== row.name) what.push(`rename ${KIND_NOUN[row.kind]} ${quote(row.name)} to ${quote(after.name)}`);
    if (after.parent_id !== row.parent_id) what.push(`move ${quote(after.name)} ${after.parent_id === null ? 'to the top level' : `into ${quote(collectionRow(ctx.db, after.parent_id)?.name ?? '')}`}`);
    if (after.query !== row.query) what.push(`change the search of ${quote(after.name)}`);
    if (what.length) {
      logLibraryEdit(ctx.db, what.join(', '), [before], [
        { op: 'collection.update', value: { id, name: after.name, parentId: after.parent_id, query: after.query, before: { name: row.name, parentId: row.parent_id, query: row.query } } },
      ]);
    }
  })();
  ctx.events.emit('libraryChanged', { reason: 'edit' });
  return getCollection(ctx, id);
}

/** Delete a collection, or a set with everything in it. Photos and files are never touched. */
export function deleteCollection(ctx: LibraryCtx, id: number): void {
  ctx.db.transaction(() => {
    const row = collectionRow(ctx.db, id);
    if (!row) throw notFound();
    const going = new Set([id, ...descendants(ctx.db, id).map((d) => d.id)]);
    for (const other of collectionRows(ctx.db)) {
      if (other.kind !== 'smart' || going.has(other.id)) continue;
      const ref = smartQueryOf(other).collectionId;
      if (ref !== undefined && going.has(ref)) {
        throw new ApiError(
          'conflict',
          `The smart collection ${quote(other.name)} keeps photos of ${quote(collectionRow(ctx.db, ref)?.name ?? row.name)}. Change its collection filter first, then delete.`,
        );
      }
    }
    const inside = descendants(ctx.db, id);
    const undo = collectionDeletion(ctx.db, [id, ...inside.map((d) => d.id)]);
    deleteCollectionRow(ctx.db, id);
    logLibraryEdit(ctx.db, `delete ${KIND_NOUN[row.kind]} ${quote(row.name)}${inside.length ? ` and the ${inside.length} inside it` : ''}`, [undo], [
      { op: 'collection.delete', value: { id, name: row.name, inside: inside.map((d) => d.id) } },
    ]);
  })();
  ctx.events.emit('libraryChanged', { reason: 'edit' });
}

function manual(ctx: LibraryCtx, id: number, doing: string): CollectionRow {
  const row = collectionRow(ctx.db, id);
  if (!row) throw notFound();
  if (row.kind !== 'manual') {
    throw new ApiError(
      'validation',
      row.kind === 'smart'
        ? `${quote(row.name)} is a smart collection: it keeps the photos that match its search, so photos cannot be ${doing} by hand. Edit its search instead.`
        : `${quote(row.name)} is a collection set: it holds collections, not photos. ${doing === 'added' ? 'Add the photos to a collection inside it.' : 'Pick one of its collections.'}`,
    );
  }
  return row;
}

/** Add photos after the collection's last one (those already in it keep their place). */
export function addToCollection(ctx: LibraryCtx, id: number, ids: readonly number[]): Promise<number> {
  return inEditLane(ctx, async () => {
    const row = manual(ctx, id, 'added');
    let next = (prepared(ctx.db, 'SELECT coalesce(max(position), 0) FROM collection_assets WHERE collection_id = ?').pluck().get(id) as number) + 1;
    return editMembership(ctx, id, ids, (old) => (old !== null ? old : next++), (count) => `add ${count} to ${quote(row.name)}`);
  });
}

/** Take photos out of a collection; the photos and their files stay as they are. */
export function removeFromCollection(ctx: LibraryCtx, id: number, ids: readonly number[]): Promise<number> {
  return inEditLane(ctx, async () => {
    const row = manual(ctx, id, 'removed');
    return editMembership(ctx, id, ids, () => null, (count) => `remove ${count} from ${quote(row.name)}`);
  });
}

/** Positions closer than this are renumbered 1..n (REAL halves a gap each time a photo goes between two). */
const MIN_GAP = 1e-6;

/** The custom order: `ids` (members, in this order) go just before `beforeId`, or to the end when null. */
export function reorderCollection(ctx: LibraryCtx, id: number, ids: readonly number[], beforeId: number | null): Promise<void> {
  return inEditLane(ctx, async () => {
    const row = manual(ctx, id, 'moved');
    const all = memberIds(ctx.db, id);
    const isMember = new Set(all);
    const moving = [...new Set(ids)].filter((a) => isMember.has(a));
    if (!moving.length) throw new ApiError('validation', `None of those photos is in ${quote(row.name)}.`, 'ids');
    const isMoving = new Set(moving);
    const rest = all.filter((a) => !isMoving.has(a));
    // Dropped onto one of the moved photos themselves: before the next one that stays.
    let at = rest.length;
    if (beforeId !== null) {
      const from = all.indexOf(beforeId);
      const stay = from < 0 ? undefined : all.slice(from).find((a) => !isMoving.has(a));
      if (stay !== undefined) at = rest.indexOf(stay);
    }
    const position = new Map(
      (prepared(ctx.db, 'SELECT asset_id, position FROM collection_assets WHERE collection_id = ?').all(id) as { asset_id: number; position: number }[]).map((r) => [
        r.asset_id,
        r.position,
      ]),
    );
    const n = moving.length;
    const hi = at < rest.length ? position.get(rest[at])! : (at > 0 ? position.get(rest[at - 1])! : 0) + n + 1;
    const lo = at > 0 ? position.get(rest[at - 1])! : hi - n - 1;
    const step = (hi - lo) / (n + 1);
    const place = new Map<number, number>();
    if (step >= MIN_GAP) moving.forEach((a, i) => place.set(a, lo + step * (i + 1)));
    else [...rest.slice(0, at), ...moving, ...rest.slice(at)].forEach((a, i) => place.set(a, i + 1));
    await editMembership(ctx, id, [...place.keys()], (old, assetId) => place.get(assetId) ?? old, () => `reorder ${describeCount(ctx, moving)} in ${quote(row.name)}`);
  });
}
