import { prepared, type Db } from '../db';
import { findGroups } from './groups';

// The library's groups as last computed (migration 24), for search: the "similar groups"
// filter and the grid's folding of a group into one picture. They are computed again, all
// at once, when something that can move a group changed since (a fingerprint written, an
// asset removed, restored or changed: similarity_state.changes, counted by triggers), and
// only when a search needs them.

interface State {
  changes: number;
  grouped: number;
}

function stateOf(db: Db): State {
  return prepared(db, 'SELECT changes, grouped FROM similarity_state WHERE id = 1').get() as State;
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

/**
 * Bring the stored groups up to date with the fingerprints: the whole library's groups
 * computed again and written in one transaction. Returns how many groups there are.
 */
export function ensureGroups(db: Db): void {
  const s = stateOf(db);
  if (s.changes === s.grouped) return;
  const groups = findGroups(db);
  db.transaction(() => {
    prepared(db, 'DELETE FROM similar_members').run();
    prepared(db, 'DELETE FROM similar_groups').run();
    const group = prepared(db, 'INSERT INTO similar_groups (id, kind, best_id, size) VALUES (?, ?, ?, ?)');
    const member = prepared(db, 'INSERT INTO similar_members (asset_id, group_id, position) VALUES (?, ?, ?)');
    for (const g of groups) {
      const id = Math.min(...g.members);
      group.run(id, g.kind, g.best, g.members.length);
      g.members.forEach((m, i) => member.run(m, id, i));
    }
    // The changes counted now, not before: nothing else writes inside this transaction.
    prepared(db, 'UPDATE similarity_state SET grouped = changes WHERE id = 1').run();
  })();
}
