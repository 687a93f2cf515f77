import { realpathSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { isInside } from '../core/media';
import { prepared } from '../library/db';
import type { LibraryCtx } from '../library/context';
import { StudioError } from './client';
import { readMembership, writeMembership, type Membership, type StudioSubset } from './membership';

// A laptop's subset of the studio (issue 34, point 3): the folders and collections this replica
// holds. It pulls and applies only the changes of photos inside them, plus everything
// library-wide (the keyword list, presets, collections' definitions); it sends its own changes
// as any member. Widening the subset pulls the studio's log again from the start, so the photos
// now included arrive with everything done to them (the changes it already holds are recognised
// and not applied twice). Narrowing it keeps the photos already here; their changes stop arriving.
//
// A collection is held by the folders its photos are in (`collectionFolders`): this computer
// holds folders whole, so a rescan never shows a photo here without the edits made to it
// elsewhere. A photo added to a chosen collection on any replica brings its folder (and the
// log is pulled again for it, so it arrives with its edits). A photo taken out of the
// collection stays here and keeps receiving its changes (its folder stays held) until the
// subset is chosen again: nothing on this computer disappears, and an edit made here offline
// and not yet sent is always sent.

/** Every folder held here: the ones chosen and those of the chosen collections' photos. */
function heldFolders(subset: StudioSubset): string[] {
  return [...subset.folders, ...(subset.collectionFolders ?? [])];
}

/** Whether a file (or a folder) here is inside the subset; no subset: everything is. */
export function inSubset(subset: StudioSubset | null | undefined, path: string): boolean {
  return !subset || heldFolders(subset).some((f) => isInside(path, f));
}

/** The subset folder that holds a path here, or null. */
export function subsetFolderOf(subset: StudioSubset | null | undefined, path: string): string | null {
  return (subset && heldFolders(subset).find((f) => isInside(path, f))) ?? null;
}

/** The folders a subset makes this library hold (each added as a library folder when missing). */
export function subsetFolders(subset: StudioSubset | null | undefined): string[] {
  return subset ? heldFolders(subset) : [];
}

function folderHere(path: string): string {
  let real: string;
  try {
    real = realpathSync(resolve(path.trim()));
  } catch {
    throw new StudioError('bad_path', `The folder “${path}” does not exist (or cannot be reached): connect the drive, then choose it again.`);
  }
  if (!statSync(real).isDirectory()) throw new StudioError('bad_path', `“${path}” is a file, not a folder: choose the folders this computer holds.`);
  return real;
}

/** What a person chooses for this computer to hold: folders and collections (by name); null: all of the studio. */
export interface SubsetChoice {
  folders: readonly string[];
  collections?: readonly string[];
}

interface CollectionRow {
  id: number;
  name: string;
  kind: string;
  uid: string | null;
}

const collectionRows = (ctx: LibraryCtx): CollectionRow[] =>
  prepared(ctx.db, 'SELECT c.id, c.name, c.kind, u.uid FROM collections c LEFT JOIN collection_uids u ON u.id = c.id ORDER BY c.name').all() as CollectionRow[];

/** The folders of the photos in these collections here (each photo's own folder). */
function foldersOfMembers(ctx: LibraryCtx, ids: readonly number[]): string[] {
  if (!ids.length) return [];
  const files = prepared(
    ctx.db,
    'SELECT f.path AS folder, a.rel_path AS rel FROM collection_assets m JOIN assets a ON a.id = m.asset_id JOIN folders f ON f.id = a.folder_id WHERE a.removed_at IS NULL AND m.collection_id IN (SELECT value FROM json_each(?))',
  ).all(JSON.stringify(ids)) as Array<{ folder: string; rel: string }>;
  return [...new Set(files.map((r) => dirname(resolve(r.folder, r.rel))))].sort();
}

/** Drop folders inside another of the list (the outer one holds them). */
function outermost(folders: readonly string[]): string[] {
  const list = [...new Set(folders)];
  return list.filter((f) => !list.some((g) => g !== f && isInside(f, g)));
}

/**
 * Hold only these folders and collections of the studio here (null: all of it). Returns the
 * subset and whether it grew, in which case the next pull (studio join, sync, or the app's
 * sync) copies the studio's log again from the start for the photos now included. `ctx`
 * (the library) names the collections: a name it does not hold yet (a join whose copy has not
 * brought the collections) is kept and found when the collection arrives.
 */
export function setSubset(dataDir: string, choice: SubsetChoice | null, ctx?: LibraryCtx): { subset: StudioSubset | null; widened: boolean } {
  const m = readMembership(dataDir);
  if (!m) throw new StudioError('not_member', 'This library is not a member of a studio: join one with tagsmith studio join URL --user NAME.');
  let subset: StudioSubset | null = null;
  if (choice !== null) {
    const folders = [...new Set(choice.folders.map(folderHere))];
    const names = [...new Set((choice.collections ?? []).map((n) => n.trim()).filter(Boolean))];
    if (!folders.length && !names.length) throw new StudioError('bad_path', 'Choose at least one folder or collection for this computer to hold, or all of the studio.');
    subset = { folders };
    if (names.length) {
      const rows = ctx ? collectionRows(ctx) : [];
      const chosen = names.map((name) => {
        const row = rows.find((r) => r.name.toLocaleLowerCase() === name.toLocaleLowerCase());
        if (row && row.kind !== 'manual') throw new StudioError('bad_collection', `“${row.name}” is ${row.kind === 'smart' ? 'a smart collection (its photos are a search, not a list)' : 'a collection set'}: choose the collections whose photos this computer holds.`);
        if (!row && ctx && !(m.copying ?? false)) {
          const known = rows.filter((r) => r.kind === 'manual').map((r) => `“${r.name}”`);
          throw new StudioError('bad_collection', `The studio has no collection “${name}”${known.length ? `: its collections are ${known.join(', ')}` : ''}.`);
        }
        return { name: row?.name ?? name, uid: row?.uid ?? null, id: row?.id ?? null };
      });
      subset.collections = chosen.map(({ name, uid }) => ({ name, uid }));
      const had = new Set(m.subset?.collectionFolders ?? []);
      // Folders already held for a collection still chosen stay held (a photo taken out of it stays current here).
      const stillChosen = (m.subset?.collections ?? []).some((c) => chosen.some((x) => x.uid !== null && x.uid === c.uid));
      const members = foldersOfMembers(ctx!, chosen.flatMap((c) => (c.id === null ? [] : [c.id])));
      subset.collectionFolders = outermost([...members, ...(stillChosen ? had : [])]).filter((f) => !folders.some((g) => isInside(f, g)));
    }
  }
  const had = m.subset ?? null;
  const hadUids = new Set((had?.collections ?? []).map((c) => c.uid ?? c.name));
  const widened =
    had !== null &&
    (subset === null || subsetFolders(subset).some((f) => !inSubset(had, f)) || (subset.collections ?? []).some((c) => !hadUids.has(c.uid ?? c.name)));
  // Grown: the next pull (or the one under way, in the app) pulls the log again from the start
  // when it reaches the end (`repull`, see studio/replica.ts), never losing its place meanwhile.
  writeMembership(dataDir, { ...m, subset, ...(widened ? { repull: true, copying: true } : {}) });
  return { subset, widened };
}

/**
 * A page of the studio's changes as this laptop holds it: the photos put into a chosen
 * collection (`added`: each change's file here, null when its volume is not mapped) bring their
 * folders into the subset. Returns the folders now held that were not; when there are any, the
 * membership is marked for the log to be pulled again (`repull`), so the photos arrive with what
 * was done to them before they were put in the collection. A change of a collection's
 * definition in the page (made before the membership) is seen before it, so the names resolve.
 */
export function growForCollections(ctx: LibraryCtx, page: ReadonlyArray<{ op: string; field: string | null; value: unknown; file: string | null }>): string[] {
  const m = readMembership(ctx.paths.dataDir);
  const subset = m?.subset;
  if (!m || !subset?.collections?.length) return [];
  // A collection made in this page is not in the catalogue yet: found by its name in the change.
  const byName = new Map<string, string>();
  for (const r of collectionRows(ctx)) if (r.kind === 'manual' && r.uid) byName.set(r.name.toLocaleLowerCase(), r.uid);
  for (const c of page) {
    const v = (typeof c.value === 'object' && c.value !== null ? c.value : {}) as { uid?: unknown; name?: unknown; kind?: unknown };
    if (c.op === 'collection.create' && typeof v.uid === 'string' && typeof v.name === 'string' && v.kind === 'manual') byName.set(v.name.toLocaleLowerCase(), v.uid);
  }
  // The uids found by name are kept, so a later rename of the collection keeps it chosen.
  const collections = subset.collections.map((c) => (c.uid ? c : { ...c, uid: byName.get(c.name.toLocaleLowerCase()) ?? null }));
  const uids = new Set(collections.flatMap((c) => (c.uid ? [c.uid] : [])));
  const grown: string[] = [];
  for (const c of page) {
    const v = (typeof c.value === 'object' && c.value !== null ? c.value : {}) as { uid?: unknown };
    if (c.field !== 'collections' || (c.op !== 'add' && c.op !== 'move') || typeof v.uid !== 'string' || !uids.has(v.uid) || c.file === null) continue;
    if (inSubset(subset, c.file) || grown.some((f) => isInside(c.file!, f))) continue;
    grown.push(dirname(c.file));
  }
  if (!grown.length && collections.every((c, i) => c.uid === subset.collections![i].uid)) return [];
  const next: Membership = {
    ...m,
    subset: { ...subset, collections, collectionFolders: outermost([...(subset.collectionFolders ?? []), ...grown]) },
    ...(grown.length ? { repull: true } : {}),
  };
  writeMembership(ctx.paths.dataDir, next);
  return grown;
}
