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
