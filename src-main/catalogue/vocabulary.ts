import { stmt, type Db } from './statements';

// The keyword list (keyword_vocabulary, migration 16) as its edits write it: entries imported,
// renamed, merged away, deleted, and put back by undo. Each caller records what it did
// (vocabulary.* and keyword.* operations).

/** A keyword-list entry as stored. */
export interface VocabularyRecord {
  id: number;
  path: string;
  exportable: number;
  synonyms: string;
  position: number;
}

/** Add an entry (an import); `synonyms` as JSON. */
export function insertVocabularyEntry(db: Db, path: string, exportable: boolean, synonyms: string, position: number): void {
  stmt(db, 'INSERT INTO keyword_vocabulary (path, exportable, synonyms, position) VALUES (?, ?, ?, ?)').run(path, exportable ? 1 : 0, synonyms, position);
}

/** Change whether an entry is exported and its synonyms (JSON). */
export function updateVocabularyEntry(db: Db, id: number, exportable: boolean, synonyms: string): void {
  stmt(db, 'UPDATE keyword_vocabulary SET exportable = ?, synonyms = ? WHERE id = ?').run(exportable ? 1 : 0, synonyms, id);
}

/** Rename an entry. */
export function renameVocabularyEntry(db: Db, id: number, path: string): void {
  stmt(db, 'UPDATE keyword_vocabulary SET path = ? WHERE id = ?').run(path, id);
}

/** Delete an entry. */
export function deleteVocabularyEntry(db: Db, id: number): void {
  stmt(db, 'DELETE FROM keyword_vocabulary WHERE id = ?').run(id);
}

/** Put an entry back as it was (undo of a rename or merge): the row with its id, made again if it was merged away. */
export function restoreVocabularyEntry(db: Db, r: VocabularyRecord): void {
  stmt(
    db,
    `INSERT INTO keyword_vocabulary (id, path, exportable, synonyms, position) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET path = excluded.path, exportable = excluded.exportable, synonyms = excluded.synonyms, position = excluded.position`,
  ).run(r.id, r.path, r.exportable, r.synonyms, r.position);
}

/** Make a deleted entry again with its id (undo of a delete); one there already is kept. */
export function reinsertVocabularyEntry(db: Db, r: VocabularyRecord): void {
  stmt(db, 'INSERT OR IGNORE INTO keyword_vocabulary (id, path, exportable, synonyms, position) VALUES (?, ?, ?, ?, ?)').run(r.id, r.path, r.exportable, r.synonyms, r.position);
}

/**
 * A rename or merge another member of the studio made, applied to this keyword list: the entry
 * `from` (and its children when `children`) takes the name `to`; where `to` is already listed,
 * the old entry goes (a merge). The caller records that member's change.
 */
export function renameVocabularyPaths(db: Db, from: string, to: string, children: boolean): void {
  const lower = from.toLocaleLowerCase();
  const rows = stmt(db, 'SELECT id, path FROM keyword_vocabulary').all() as Array<{ id: number; path: string }>;
  for (const r of rows) {
    const p = r.path.toLocaleLowerCase();
    const next = p === lower ? to : children && p.startsWith(lower + '|') ? to + r.path.slice(from.length) : null;
    if (next === null || next === r.path) continue;
    const taken = stmt(db, 'SELECT id FROM keyword_vocabulary WHERE path = ? AND id <> ?').pluck().get(next, r.id);
    if (taken !== undefined) deleteVocabularyEntry(db, r.id);
    else renameVocabularyEntry(db, r.id, next);
  }
}

/**
 * An entry another member of the studio added or changed, applied to this keyword list: made
 * (after the others) when it is not listed, else given the synonyms it lacks and, when
 * `exportable` is given, that export flag. The caller records that member's change.
 */
export function mergeVocabularyEntry(db: Db, path: string, synonyms: readonly string[], exportable: boolean | null): void {
  const row = stmt(db, 'SELECT id, exportable, synonyms FROM keyword_vocabulary WHERE path = ?').get(path) as { id: number; exportable: number; synonyms: string } | undefined;
  if (!row) {
    const next = (stmt(db, 'SELECT coalesce(max(position) + 1, 0) FROM keyword_vocabulary').pluck().get() as number) ?? 0;
    insertVocabularyEntry(db, path, exportable ?? true, JSON.stringify([...synonyms]), next);
    return;
  }
  let have: string[] = [];
  try {
    const parsed = JSON.parse(row.synonyms) as unknown;
    if (Array.isArray(parsed)) have = parsed.filter((s): s is string => typeof s === 'string');
  } catch {
    have = [];
  }
  const fresh = synonyms.filter((s) => !have.some((h) => h.toLocaleLowerCase() === s.toLocaleLowerCase()));
  updateVocabularyEntry(db, row.id, exportable ?? row.exportable === 1, JSON.stringify([...have, ...fresh]));
}

/** Entries another member deleted: `name` (and its children when `children`); the caller records that member's change. */
export function deleteVocabularyPaths(db: Db, name: string, children: boolean): void {
  const lower = name.toLocaleLowerCase();
  const rows = stmt(db, 'SELECT id, path FROM keyword_vocabulary').all() as Array<{ id: number; path: string }>;
  for (const r of rows) {
    const p = r.path.toLocaleLowerCase();
    if (p === lower || (children && p.startsWith(lower + '|'))) deleteVocabularyEntry(db, r.id);
  }
}

/** An entry as the studio's changes leave it (made when missing; its synonyms and export flag exactly these). */
export function setVocabularyEntry(db: Db, path: string, synonyms: readonly string[], exportable: boolean): void {
  const id = stmt(db, 'SELECT id FROM keyword_vocabulary WHERE path = ?').pluck().get(path) as number | undefined;
  if (id === undefined) {
    const next = stmt(db, 'SELECT coalesce(max(position) + 1, 0) FROM keyword_vocabulary').pluck().get() as number;
    insertVocabularyEntry(db, path, exportable, JSON.stringify([...synonyms]), next);
  } else updateVocabularyEntry(db, id, exportable, JSON.stringify([...synonyms]));
}

/** Every entry's path. */
export function listedPaths(db: Db): string[] {
  return stmt(db, 'SELECT path FROM keyword_vocabulary').pluck().all() as string[];
}
