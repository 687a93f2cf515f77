import { prepared, type Db } from '../db';
import { computeGroups, loadGroupInput, type GroupInput, type SimilarGroup } from './groups';

// The library's groups as last computed (migration 24), for search: the "similar groups"
// filter and the grid's folding of a group into one picture. They are computed again when
// something that can move a group changed since (a fingerprint written, an asset removed,
// restored or changed, a quality score: similarity_state.changes, counted by triggers). The
// app does it in a worker thread (background.ts) so its main thread never waits on it; the
// CLI and tests here, at once (ensureGroups). Either way only what changed is written.

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

interface Diff {
  /** Stored groups that are no longer (or no longer as stored): their ids. */
  gone: number[];
  /** Groups to write, with their ids (the lowest member id). */
  fresh: { id: number; g: SimilarGroup }[];
}

/** What differs between the stored groups and `groups`. */
function diffGroups(db: Db, groups: SimilarGroup[]): Diff {
  const wanted = new Map<number, SimilarGroup>();
  for (const g of groups) wanted.set(Math.min(...g.members), g);
  const rows = prepared(db, 'SELECT g.id, g.kind, g.best_id, g.size, m.asset_id FROM similar_groups g LEFT JOIN similar_members m ON m.group_id = g.id ORDER BY g.id, m.position')
    .raw(true)
    .all() as [number, string, number, number, number | null][];
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
 * Store `groups`, computed from `snapshot`, writing only what differs from the stored ones,
 * in transactions of at most `chunk` groups (a worker keeps each short, so the app's own
 * writes never wait long). Each transaction first checks that nobody stored groups since the
 * snapshot (else it stops: false). The last one stamps the groups as of the snapshot.
 */
export function writeGroups(db: Db, groups: SimilarGroup[], snapshot: GroupsSnapshot, chunk = Infinity): boolean {
  const { gone, fresh } = db.transaction(() => diffGroups(db, groups))();
  const steps: (() => void)[] = [];
  const dropMembers = prepared(db, 'DELETE FROM similar_members WHERE group_id = ?');
  const dropGroup = prepared(db, 'DELETE FROM similar_groups WHERE id = ?');
  const putGroup = prepared(db, 'INSERT OR REPLACE INTO similar_groups (id, kind, best_id, size) VALUES (?, ?, ?, ?)');
  const putMember = prepared(db, 'INSERT OR REPLACE INTO similar_members (asset_id, group_id, position) VALUES (?, ?, ?)');
  // Every group that goes first, so a picture moving to another group is never in two.
  for (const id of gone) steps.push(() => {
    dropMembers.run(id);
    dropGroup.run(id);
  });
  for (const { id, g } of fresh) steps.push(() => {
    dropMembers.run(id);
    putGroup.run(id, g.kind, g.best, g.members.length);
    g.members.forEach((m, i) => putMember.run(m, id, i));
  });
  const size = Math.max(1, chunk);
  for (let at = 0; at === 0 || at < steps.length; at += size) {
    const last = at + size >= steps.length;
    const ok = db.transaction(() => {
      if (stateOf(db).grouped !== snapshot.grouped) return false;
      for (const step of steps.slice(at, at + size)) step();
      if (last) prepared(db, 'UPDATE similarity_state SET grouped = ? WHERE id = 1').run(snapshot.changes);
      return true;
    }).immediate();
    if (!ok) return false;
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

