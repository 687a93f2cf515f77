import { turnBudget } from '../../core/steps';
import { prepared, type Db } from '../db';
import { computeGroups, loadGroupInput, type GroupInput, type SimilarGroup } from './groups';

// The library's groups as last computed (migration 24), for search: the "similar groups"
// filter and the grid's folding of a group into one picture. They are computed again when
// something that can move a group changed since (a fingerprint written, an asset removed,
// restored or changed, a quality score: similarity_state.changes, counted by triggers). The
// app groups in a worker thread (background.ts) and writes only what changed, in short
// slices, so its main thread never waits long; the CLI and tests here, at once (ensureGroups).

/** similarity_state as read with the fingerprints the groups are computed from. */
export interface GroupsSnapshot {
  changes: number;
  grouped: number;
}

function stateOf(db: Db): GroupsSnapshot {
  return prepared(db, 'SELECT changes, grouped FROM similarity_state WHERE id = 1').get() as GroupsSnapshot;
}

/** Whether the stored groups are those of the fingerprints now. */
export function groupsCurrent(db: Db): boolean {
  const s = stateOf(db);
  return s.changes === s.grouped;
}

/** The stamp of the stored groups (moves each time they are written). */
export function groupsStamp(db: Db): number {
  return stateOf(db).grouped;
}

/** The state and everything grouping reads, of one snapshot of the catalogue. */
export function readGroupInput(db: Db): { snapshot: GroupsSnapshot; input: GroupInput } {
  return db.transaction(() => ({ snapshot: stateOf(db), input: loadGroupInput(db) }))();
}

/** What differs between the stored groups and new ones. */
export interface GroupDiff {
  /** Stored groups that are no longer (or no longer as stored): their ids. */
  gone: number[];
  /** Groups to write, with their ids (the lowest member id). */
  fresh: { id: number; g: SimilarGroup }[];
}

/** What differs between the stored groups and `groups` (read in one snapshot). */
export function diffGroups(db: Db, groups: SimilarGroup[]): GroupDiff {
  const wanted = new Map<number, SimilarGroup>();
  for (const g of groups) wanted.set(Math.min(...g.members), g);
  const rows = db.transaction(() => prepared(db, 'SELECT g.id, g.kind, g.best_id, g.size, m.asset_id FROM similar_groups g LEFT JOIN similar_members m ON m.group_id = g.id ORDER BY g.id, m.position')
    .raw(true)
    .all() as [number, string, number, number, number | null][])();
  const gone: number[] = [];
  const same = new Set<number>();
  for (let i = 0; i < rows.length; ) {
    const [id, kind, best, size] = rows[i];
    const members: (number | null)[] = [];
    for (; i < rows.length && rows[i][0] === id; i++) members.push(rows[i][4]);
    const g = wanted.get(id);
    const equal = !!g && g.kind === kind && g.best === best && g.members.length === size && size === members.length && g.members.every((m, k) => m === members[k]);
    if (equal) same.add(id);
    else gone.push(id);
  }
  const fresh = [...wanted].filter(([id]) => !same.has(id)).map(([id, g]) => ({ id, g }));
  return { gone, fresh };
}

/**
 * A diff as flat typed arrays (what a worker thread hands back: a hundred thousand groups as
 * six buffers, not a hundred thousand objects for the main thread to rebuild).
 */
export interface PackedDiff {
  gone: Int32Array;
  ids: Int32Array;
  /** 1: burst, 0: similar. */
  kinds: Uint8Array;
  best: Int32Array;
  /** Group k's members are members[start[k] .. start[k + 1]). */
  start: Int32Array;
  members: Int32Array;
}

export function packDiff(diff: GroupDiff): PackedDiff {
  const n = diff.fresh.length;
  const start = new Int32Array(n + 1);
  diff.fresh.forEach(({ g }, k) => (start[k + 1] = start[k] + g.members.length));
  const members = new Int32Array(start[n]);
  diff.fresh.forEach(({ g }, k) => members.set(g.members, start[k]));
  return {
    gone: Int32Array.from(diff.gone),
    ids: Int32Array.from(diff.fresh, (f) => f.id),
    kinds: Uint8Array.from(diff.fresh, (f) => (f.g.kind === 'burst' ? 1 : 0)),
    best: Int32Array.from(diff.fresh, (f) => f.g.best),
    start,
    members,
  };
}

/** The buffers of a packed diff, to hand them over by transfer. */
export const packedTransferList = (d: PackedDiff): ArrayBuffer[] => [d.gone, d.ids, d.kinds, d.best, d.start, d.members].map((a) => a.buffer as ArrayBuffer);

/** The writes of a diff, one per group (step k): every group that goes first, so a picture moving to another group is never in two. */
function stepsOf(db: Db, d: PackedDiff): { count: number; step(k: number): void } {
  const dropMembers = prepared(db, 'DELETE FROM similar_members WHERE group_id = ?');
  const dropGroup = prepared(db, 'DELETE FROM similar_groups WHERE id = ?');
  const putGroup = prepared(db, 'INSERT OR REPLACE INTO similar_groups (id, kind, best_id, size) VALUES (?, ?, ?, ?)');
  const putMember = prepared(db, 'INSERT OR REPLACE INTO similar_members (asset_id, group_id, position) VALUES (?, ?, ?)');
  const gone = d.gone.length;
  return {
    count: gone + d.ids.length,
    step(k) {
      if (k < gone) {
        dropMembers.run(d.gone[k]);
        dropGroup.run(d.gone[k]);
        return;
      }
      const f = k - gone;
      const id = d.ids[f];
      dropMembers.run(id);
      putGroup.run(id, d.kinds[f] ? 'burst' : 'similar', d.best[f], d.start[f + 1] - d.start[f]);
      for (let i = d.start[f]; i < d.start[f + 1]; i++) putMember.run(d.members[i], id, i - d.start[f]);
    },
  };
}

/**
 * The writes from step `from` on while `more()` allows (at least one), if nobody stored groups
 * since the snapshot (else false); returns where it stopped. The one that reaches the end
 * stamps the groups as current.
 */
function writeSlice(db: Db, steps: ReturnType<typeof stepsOf>, from: number, more: () => boolean, snapshot: GroupsSnapshot): number | false {
  return db.transaction(() => {
    if (stateOf(db).grouped !== snapshot.grouped) return false;
    let k = from;
    while (k < steps.count) {
      steps.step(k++);
      if (!more()) break;
    }
    if (k >= steps.count) prepared(db, 'UPDATE similarity_state SET grouped = ? WHERE id = 1').run(snapshot.changes);
    return k;
  }).immediate();
}

/** Store `groups`, computed from `snapshot`, writing only what differs, in one transaction. False when someone stored groups since. */
export function writeGroups(db: Db, groups: SimilarGroup[], snapshot: GroupsSnapshot): boolean {
  return writeSlice(db, stepsOf(db, packDiff(diffGroups(db, groups))), 0, () => true, snapshot) !== false;
}

/**
 * Store a diff (computed from `snapshot` in a worker thread) on this connection a turn's
 * budget at a time (at most `slice` groups and TURN_MS: a group of a thousand members costs
 * as much as a hundred small ones), letting the event loop run between them. A write by this
 * connection keeps the catalogue index (another connection's write would make it start
 * again). False when someone stored groups since the snapshot.
 */
export async function writeDiffInSlices(db: Db, diff: PackedDiff, snapshot: GroupsSnapshot, slice: number, between: () => Promise<void>): Promise<boolean> {
  const steps = stepsOf(db, diff);
  let at = 0;
  do {
    if (at > 0) await between();
    if (!db.open) return false;
    const next = writeSlice(db, steps, at, turnBudget(slice), snapshot);
    if (next === false) return false;
    at = next;
  } while (at < steps.count);
  return true;
}

/**
 * Bring the stored groups up to date with the fingerprints, here and now (the CLI, tests;
 * the app does it in a worker: background.ts).
 */
export function ensureGroups(db: Db): void {
  if (groupsCurrent(db)) return;
  const { snapshot, input } = readGroupInput(db);
  writeGroups(db, computeGroups(input), snapshot);
}

