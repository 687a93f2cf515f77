import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { ScanSummary } from '../../src-preload/contract';
import { isInside } from '../core/media';
import type { LibraryCtx } from '../library/context';
import { prepared } from '../library/db';
import { addFolder, listFolders } from '../library/folders';
import { applyRemoteChanges, type ApplyOutcome, type IncomingChange, type RemoteAsset } from '../library/remote';
import { scanFolder } from '../library/scan';
import { StudioError } from './client';
import { readMembership, writeMembership, type LocalVolume, type Membership } from './membership';
import type { Volume } from './protocol';
import { growForCollections, inSubset, subsetFolderOf, subsetFolders } from './subset';

// The studio's volumes: the shared disks (or folders on them) its photos live on. Between
// machines a photo is named by its volume and its path inside it, never by this machine's mount
// point: each machine maps a volume to its own (`/Volumes/Archive`, `Z:\Archive`, `/mnt/archive`),
// kept in its studio.json. A volume whose path exists unchanged here maps itself; any other is
// mapped once with `tagsmith studio map VOLUME PATH` or in Settings › Studio.
//
// A scan on one machine reaches every replica: a photo added, changed, moved or gone on a mapped
// volume makes this replica scan that folder itself (it reads the file here and makes its own
// thumbnail), before the changes that came with it are applied. A change of a photo on a volume
// not mapped here waits (studio-waiting.json) and is applied when the volume is mapped.

/** How a change names its photo between machines: the volume, and the library folder's path inside it. */
export interface WireVolume {
  id: string;
  folder: string;
}

export type WireAsset = RemoteAsset & { volume?: WireVolume };

/** A volume as status and Settings › Studio show it. */
export interface VolumeState {
  id: string;
  name: string;
  /** where it is on this computer, or null when it is not mapped here */
  mount: string | null;
  /** mapped and reachable now */
  online: boolean;
  /** changes of its photos kept until it is mapped */
  waiting: number;
}

const WAITING = 'studio-waiting.json';

/** The volume a waiting change waits for. */
const waitsFor = (c: IncomingChange): string | undefined => (c.asset as WireAsset | null)?.volume?.id ?? (c.op === 'folder.remove' ? (c.value as { volume?: WireVolume } | null)?.volume?.id : undefined);
const ASSET_FILE_OPS = new Set(['asset.add', 'asset.change', 'asset.move', 'asset.vanish']);

const isDir = (p: string): boolean => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

/** The path of `p` inside `root` with '/' separators ('' for the root itself). */
function inside(p: string, root: string): string {
  return p === root ? '' : p.slice(root.length + 1).replace(/\\/g, '/');
}

function joinInside(root: string, rel: string): string {
  return rel ? join(root, ...rel.split('/')) : root;
}

/** The mapped volume that holds a path here (the innermost one), with the path inside it. */
export function volumeAt(vols: readonly LocalVolume[], path: string): { volume: LocalVolume; rel: string } | null {
  let best: LocalVolume | null = null;
  for (const v of vols) if (v.mount && isInside(path, v.mount) && (!best || v.mount.length > best.mount!.length)) best = v;
  return best ? { volume: best, rel: inside(path, best.mount!) } : null;
}

/** A change's photo as other machines find it: its folder here named by volume too. */
export function toWire(asset: RemoteAsset | null, vols: readonly LocalVolume[]): WireAsset | null {
  if (!asset || asset.folder === null) return asset;
  const at = volumeAt(vols, asset.folder);
  return at ? { ...asset, volume: { id: at.volume.id, folder: at.rel } } : asset;
}

/** A removed folder's path named by its volume too (other machines find the folder at their own mount). */
export function valueToWire(op: string, value: unknown, vols: readonly LocalVolume[]): unknown {
  if (op !== 'folder.remove' || typeof value !== 'object' || value === null) return value;
  const path = (value as { path?: unknown }).path;
  const at = typeof path === 'string' ? volumeAt(vols, path) : null;
  return at ? { ...value, volume: { id: at.volume.id, folder: at.rel } } : value;
}

type Localized = { change: IncomingChange } | { waitFor: string };

/**
 * A pulled change with its photo named as this machine has it: the volume's mount here, and
 * the library folder that holds the file (the sender's folder may be a subfolder of one here).
 * A photo on a volume not mapped here: the change waits for it.
 */
function localize(c: IncomingChange, vols: readonly LocalVolume[], folderPaths: () => readonly string[]): Localized {
  const removed = c.op === 'folder.remove' && typeof c.value === 'object' && c.value !== null ? (c.value as { volume?: WireVolume }).volume : undefined;
  if (removed) {
    const v = vols.find((x) => x.id === removed.id);
    if (!v?.mount) return { waitFor: removed.id };
    return { change: { ...c, value: { ...(c.value as object), path: joinInside(v.mount, removed.folder) } } };
  }
  const a = c.asset as WireAsset | null;
  if (!a?.volume) return { change: c };
  const v = vols.find((x) => x.id === a.volume!.id);
  if (!v?.mount) return { waitFor: a.volume.id };
  const folderHere = joinInside(v.mount, a.volume.folder);
  const folders = folderPaths();
  // The library folder here that holds the sender's folder, else (this library holds a folder
  // inside it, as a laptop holding part of the studio does) the one that holds the file.
  const file = a.path === null ? null : joinInside(folderHere, a.path);
  const owner = folders.find((p) => isInside(folderHere, p)) ?? (file ? folders.find((p) => isInside(file, p)) : undefined);
  const base = owner ?? folderHere;
  const path = file === null ? null : inside(file, base);
  return { change: { ...c, asset: { folder: base, path, hash: a.hash } } };
}

function readWaiting(dataDir: string): IncomingChange[] {
  const p = join(dataDir, WAITING);
  return existsSync(p) ? (JSON.parse(readFileSync(p, 'utf8')) as IncomingChange[]) : [];
}

function writeWaiting(dataDir: string, list: readonly IncomingChange[]): void {
  const p = join(dataDir, WAITING);
  if (!list.length) {
    rmSync(p, { force: true });
    return;
  }
  // A change pulled again after a cut is kept once.
  const seen = new Set<string>();
  const once = list.filter((c) => !seen.has(`${c.device}/${c.seq}`) && seen.add(`${c.device}/${c.seq}`));
  writeFileSync(`${p}.tmp`, JSON.stringify(once));
  renameSync(`${p}.tmp`, p);
}

/** The library folders that hold a folder here: the one it is in, else those inside it, else it is added (and so scanned in full). */
function foldersFor(ctx: LibraryCtx, path: string): number[] {
  const folders = listFolders(ctx);
  const owner = folders.find((f) => isInside(path, f.path));
  if (owner) return [owner.id];
  const within = folders.filter((f) => isInside(f.path, path));
  if (within.length) return within.map((f) => f.id);
  if (!isDir(path)) return [];
  return [addFolder(ctx, path).id];
}

async function scanAll(ctx: LibraryCtx, ids: Iterable<number>): Promise<ScanSummary> {
  const total: ScanSummary = { added: 0, updated: 0, removed: 0, moved: 0, errors: [], cancelled: false };
  for (const id of new Set(ids)) {
    const s = await scanFolder(ctx, id, { onProgress: (p) => ctx.events.emit('scanProgress', p) });
    total.added += s.added;
    total.updated += s.updated;
    total.removed += s.removed;
    total.moved += s.moved;
    total.errors.push(...s.errors);
  }
  return total;
}

/**
 * A page of the studio's changes made ready to apply here: photos named as this machine has
 * them; the folders of photos another member's scan found new, changed, moved or gone scanned
 * here first (so the edits that came with them find them); changes of photos on volumes not
 * mapped here kept for later. Returns what to apply now.
 */
export async function prepareChanges(ctx: LibraryCtx, changes: readonly IncomingChange[], vols: readonly LocalVolume[]): Promise<IncomingChange[]> {
  const now: IncomingChange[] = [];
  const later: IncomingChange[] = [];
  const rescan = new Set<number>();
  // The library's folders, read once for the page (not once per change: listFolders counts
  // every folder's photos, which made a large join quadratic), again after one is added.
  let paths: string[] | null = null;
  const folderPaths = (): readonly string[] => (paths ??= prepared(ctx.db, 'SELECT path FROM folders WHERE removing_at IS NULL ORDER BY path').pluck().all() as string[]);
  const fileOf = (a: RemoteAsset | null): string | null => (a?.folder ? (a.path ? joinInside(a.folder, a.path) : a.folder) : null);
  // A laptop holding chosen collections: a photo put into one brings its folder.
  growForCollections(
    ctx,
    changes.map((c) => {
      const l = localize(c, vols, folderPaths);
      return { op: c.op, field: c.field, value: c.value, file: 'change' in l ? fileOf(l.change.asset) : null };
    }),
  );
  // A laptop holding part of the studio: the changes of photos outside it are left out.
  const subset = readMembership(ctx.paths.dataDir)?.subset ?? null;
  // Its folders are library folders here (a new one is scanned), so its photos are found in them.
  for (const f of subsetFolders(subset)) {
    if (folderPaths().some((x) => isInside(f, x)) || !isDir(f)) continue;
    const id = holdFolder(ctx, f, f);
    if (id !== null) rescan.add(id);
    paths = null;
  }
  for (const c of changes) {
    // Named as the library's folders are now (a folder added above holds the photo).
    const l = localize(c, vols, folderPaths);
    if ('waitFor' in l) {
      later.push(c);
      continue;
    }
    const a = l.change.asset;
    const file = fileOf(a);
    if (file !== null && !inSubset(subset, file)) continue;
    now.push(l.change);
    if (ASSET_FILE_OPS.has(c.op) && a?.folder && (c.asset as WireAsset | null)?.volume) {
      // A file no library folder here holds (all of the studio held by a laptop that held some
      // folders of it): the widest folder around it that overlaps none of the library's.
      const held = file && !folderPaths().some((p) => isInside(file, p)) ? holdFolder(ctx, a.folder, file === a.folder ? file : dirname(file)) : null;
      for (const id of held !== null ? [held] : foldersFor(ctx, (file && subsetFolderOf(subset, file)) ?? a.folder)) rescan.add(id);
      paths = null;
    }
  }
  if (later.length) writeWaiting(ctx.paths.dataDir, [...readWaiting(ctx.paths.dataDir), ...later]);
  if (rescan.size) await scanAll(ctx, rescan);
  return now;
}

/**
 * A library folder added to hold `inner`: the widest folder from `top` down to `inner` that
 * neither holds nor is inside a folder of the library (library folders never overlap), or
 * null when none can (a file beside a folder the library holds, in the folder above it).
 */
function holdFolder(ctx: LibraryCtx, top: string, inner: string): number | null {
  const rows = prepared(ctx.db, 'SELECT id, path FROM folders WHERE removing_at IS NULL').all() as Array<{ id: number; path: string }>;
  const owner = rows.find((f) => isInside(inner, f.path));
  if (owner) return owner.id;
  const folders = rows.map((f) => f.path);
  const chain: string[] = [];
  for (let p = inner; ; p = dirname(p)) {
    chain.unshift(p);
    if (p === top || dirname(p) === p || !isInside(p, top)) break;
  }
  for (const p of chain) {
    if (!isDir(p) || folders.some((f) => isInside(f, p) || isInside(p, f))) continue;
    return addFolder(ctx, p).id;
  }
  return null;
}

/**
 * The studio's volumes, as the server has them, merged into what this machine keeps: a new one
 * whose path exists here maps itself. Every library folder on no mapped volume is shared as a
 * volume of its own (a viewer shares none). Null: the server keeps no volumes (older).
 */
export async function refreshVolumes(m: Membership, ctx: LibraryCtx, call: <T>(method: 'GET' | 'POST', path: string, body?: unknown) => Promise<T>): Promise<LocalVolume[] | null> {
  let listed: Volume[];
  try {
    listed = (await call<{ volumes: Volume[] }>('GET', '/v1/volumes')).volumes;
  } catch (err) {
    if (err instanceof StudioError && err.status === 404) return null;
    throw err;
  }
  const had = new Map((m.volumes ?? []).map((v) => [v.id, v]));
  const vols: LocalVolume[] = listed.map((v) => ({ ...v, mount: had.has(v.id) ? had.get(v.id)!.mount : isDir(v.path) ? v.path : null }));
  if (m.role !== 'viewer') {
    for (const f of listFolders(ctx)) {
      if (volumeAt(vols, f.path)) continue;
      const answer = await call<{ volume: Volume }>('POST', '/v1/volumes', { volume: { id: randomUUID(), name: basename(f.path) || f.path, path: f.path } });
      const v = answer.volume;
      const known = vols.find((x) => x.id === v.id);
      if (known) known.mount ??= f.path;
      else vols.push({ ...v, mount: f.path });
    }
  }
  return vols;
}

/** Apply the changes that waited for volumes mapped here now; returns how they went. */
export async function applyWaiting(ctx: LibraryCtx, m: Membership, vols: readonly LocalVolume[]): Promise<Record<ApplyOutcome, number>> {
  const counts: Record<ApplyOutcome, number> = { applied: 0, older: 0, duplicate: 0, not_here: 0, not_yet: 0 };
  const all = readWaiting(ctx.paths.dataDir);
  const mapped = new Set(vols.filter((v) => v.mount).map((v) => v.id));
  const isReady = (c: IncomingChange): boolean => mapped.has(waitsFor(c) ?? '');
  const ready = all.filter(isReady);
  if (!ready.length) return counts;
  // Cleared first: prepareChanges keeps again whatever still cannot be applied.
  writeWaiting(ctx.paths.dataDir, all.filter((c) => !isReady(c)));
  const now = await prepareChanges(ctx, ready, vols);
  const got = await applyRemoteChanges(ctx, now, m.joinPosition ?? 0);
  for (const k of Object.keys(got) as ApplyOutcome[]) counts[k] += got[k];
  return counts;
}

/** Every volume as this machine has it, for status and Settings › Studio. */
export function volumeStates(m: Membership, dataDir: string): VolumeState[] {
  const waiting = readWaiting(dataDir);
  return (m.volumes ?? []).map((v) => ({
    id: v.id,
    name: v.name,
    mount: v.mount,
    online: v.mount !== null && isDir(v.mount),
    waiting: waiting.filter((c) => waitsFor(c) === v.id).length,
  }));
}

export interface MapResult {
  volume: VolumeState;
  /** what the scan of the volume's folder found */
  scanned: Pick<ScanSummary, 'added' | 'updated' | 'removed' | 'moved'> & { errors: number };
  /** how the changes that waited for it went */
  applied: Record<ApplyOutcome, number>;
}

/**
 * Map a volume (by id or name) to a folder on this computer: its photos are read from there,
 * the folder is scanned (each photo's thumbnail made here), and the studio's changes that
 * waited for it are applied.
 */
export async function mapVolume(ctx: LibraryCtx, volume: string, path: string): Promise<MapResult> {
  const dataDir = ctx.paths.dataDir;
  const m = readMembership(dataDir);
  if (!m) throw new StudioError('not_member', 'This library is not a member of a studio: join one with tagsmith studio join URL --user NAME.');
  const vols = m.volumes ?? [];
  const want = volume.trim().toLocaleLowerCase();
  const matches = vols.filter((v) => v.id === volume || v.name.toLocaleLowerCase() === want);
  if (!matches.length) {
    const names = vols.map((v) => `“${v.name}”`).join(', ');
    throw new StudioError('no_volume', vols.length ? `The studio has no volume “${volume}”: its volumes are ${names}.` : `This library knows no volumes of the studio yet: run tagsmith studio sync first.`);
  }
  if (matches.length > 1) throw new StudioError('no_volume', `Two volumes are called “${volume}”: give its id instead (${matches.map((v) => v.id).join(', ')}).`);
  let real: string;
  try {
    real = realpathSync(resolve(path.trim()));
  } catch {
    throw new StudioError('bad_path', `The folder “${path}” does not exist (or cannot be reached): connect the drive, then map the volume again.`);
  }
  if (!isDir(real)) throw new StudioError('bad_path', `“${path}” is a file, not a folder: choose the folder where the volume is on this computer.`);
  const target = matches[0];
  const other = vols.find((v) => v !== target && v.mount === real);
  if (other) throw new StudioError('bad_path', `“${real}” is already where volume “${other.name}” is on this computer.`);
  const next: Membership = { ...m, volumes: vols.map((v) => (v === target ? { ...v, mount: real } : v)) };
  writeMembership(dataDir, next);
  const scanned = await scanAll(ctx, foldersFor(ctx, real));
  const applied = await applyWaiting(ctx, next, next.volumes!);
  const state = volumeStates(next, dataDir).find((v) => v.id === target.id)!;
  return { volume: state, scanned: { added: scanned.added, updated: scanned.updated, removed: scanned.removed, moved: scanned.moved, errors: scanned.errors.length }, applied };
}
