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

/** The writes of a diff, one per group: every group that goes first, so a picture moving to another group is never in two. */
function stepsOf(db: Db, diff: GroupDiff): (() => void)[] {
  const dropMembers = prepared(db, 'DELETE FROM similar_members WHERE group_id = ?');
  const dropGroup = prepared(db, 'DELETE FROM similar_groups WHERE id = ?');
  const putGroup = prepared(db, 'INSERT OR REPLACE INTO similar_groups (id, kind, best_id, size) VALUES (?, ?, ?, ?)');
  const putMember = prepared(db, 'INSERT OR REPLACE INTO similar_members (asset_id, group_id, position) VALUES (?, ?, ?)');
  const steps: (() => void)[] = [];
  for (const id of diff.gone) steps.push(() => {
    dropMembers.run(id);
    dropGroup.run(id);
  });
  for (const { id, g } of diff.fresh) steps.push(() => {
    dropMembers.run(id);
    putGroup.run(id, g.kind, g.best, g.members.length);
    g.members.forEach((m, i) => putMember.run(m, id, i));
  });
  return steps;
}

/** One slice of the writes, if nobody stored groups since the snapshot; the last one stamps them. */
function writeSlice(db: Db, steps: (() => void)[], snapshot: GroupsSnapshot, last: boolean): boolean {
  return db.transaction(() => {
    if (stateOf(db).grouped !== snapshot.grouped) return false;
    for (const step of steps) step();
    if (last) prepared(db, 'UPDATE similarity_state SET grouped = ? WHERE id = 1').run(snapshot.changes);
    return true;
  }).immediate();
}

/** Store `groups`, computed from `snapshot`, writing only what differs, in one transaction. False when someone stored groups since. */
export function writeGroups(db: Db, groups: SimilarGroup[], snapshot: GroupsSnapshot): boolean {
  return writeSlice(db, stepsOf(db, diffGroups(db, groups)), snapshot, true);
}

/**
 * Store a diff (computed from `snapshot` in a worker thread) on this connection in slices of
 * `slice` groups, letting the event loop run between them: each slice is a few milliseconds,
 * and a write by this connection keeps the catalogue index (another connection's write would
 * make it start again). False when someone stored groups since the snapshot.
 */
export async function writeDiffInSlices(db: Db, diff: GroupDiff, snapshot: GroupsSnapshot, slice: number, between: () => Promise<void>): Promise<boolean> {
  const steps = stepsOf(db, diff);
  for (let at = 0; at === 0 || at < steps.length; at += slice) {
    if (at > 0) await between();
    if (!db.open) return false;
    if (!writeSlice(db, steps.slice(at, at + slice), snapshot, at + slice >= steps.length)) return false;
  }
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

