import { stmt, type Db } from './statements';

// A photo's keywords as stored (keywords, asset_keywords, and the assets row's keywords_text and
// keyword_count the grid and search read), and the pruning of words no photo uses. The edit that
// calls this records the change (edit-log.ts); the scan's reading of a file and the writer's
// adoption of a file's keywords are the scan's kind of change.

/**
 * Replace a photo's keywords with `list` (already cleaned: library/keywords.ts cleanKeywordList),
 * in that order, inside the caller's transaction when it is part of a larger change. A word the
 * library already holds keeps its spelling. Returns the list as stored.
 */
export function storeAssetKeywords(db: Db, assetId: number, list: readonly string[]): string[] {
  const find = stmt(db, 'SELECT id, name FROM keywords WHERE name = ?');
  const insert = stmt(db, 'INSERT INTO keywords (name) VALUES (?)');
  const stored: string[] = [];
  const ids: number[] = [];
  for (const name of list) {
    let row = find.get(name) as { id: number; name: string } | undefined;
    if (!row) {
      const info = insert.run(name);
      row = { id: Number(info.lastInsertRowid), name };
    }
    ids.push(row.id);
    stored.push(row.name);
  }
  stmt(db, 'DELETE FROM asset_keywords WHERE asset_id = ?').run(assetId);
  const link = stmt(db, 'INSERT INTO asset_keywords (asset_id, keyword_id, position) VALUES (?, ?, ?)');
  ids.forEach((id, i) => link.run(assetId, id, i));
  stmt(db, 'UPDATE assets SET keywords_text = ?, keyword_count = ? WHERE id = ?').run(stored.join('\n'), stored.length, assetId);
  return stored;
}

/** Remove keywords no photo uses any more (after deletes, renames, folder removal): derived, not recorded. */
export function deleteUnusedKeywords(db: Db): void {
  db.prepare('DELETE FROM keywords WHERE id NOT IN (SELECT DISTINCT keyword_id FROM asset_keywords)').run();
}
