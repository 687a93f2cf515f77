import { prepared, type Db } from './db';

// Keyword hygiene shared by every writer (indexing, hand edits, later AI runs):
// Unicode NFC, trimmed, inner whitespace collapsed, case-insensitive de-duplication,
// and the casing already in the library's vocabulary wins.

export function normalizeKeyword(raw: string): string {
  return raw.normalize('NFC').replace(/\s+/g, ' ').trim();
}

/** Normalise and de-duplicate (case-insensitively, first occurrence wins), keeping order. */
export function cleanKeywordList(raw: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const r of raw) {
    const k = normalizeKeyword(r);
    if (!k) continue;
    const key = k.toLocaleLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(k);
  }
  return out;
}

/**
 * Replace an asset's keywords with `names`, in that order. Must run inside the caller's
 * transaction when it is part of a larger change. Returns the list as stored (library casing).
 */
export function setAssetKeywords(db: Db, assetId: number, names: readonly string[]): string[] {
  const list = cleanKeywordList(names);
  const find = prepared(db, 'SELECT id, name FROM keywords WHERE name = ?');
  const insert = prepared(db, 'INSERT INTO keywords (name) VALUES (?)');
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
  prepared(db, 'DELETE FROM asset_keywords WHERE asset_id = ?').run(assetId);
  const link = prepared(db, 'INSERT INTO asset_keywords (asset_id, keyword_id, position) VALUES (?, ?, ?)');
  ids.forEach((id, i) => link.run(assetId, id, i));
  prepared(db, 'UPDATE assets SET keywords_text = ?, keyword_count = ? WHERE id = ?').run(stored.join('\n'), stored.length, assetId);
  return stored;
}

export function getAssetKeywords(db: Db, assetId: number): string[] {
  const row = prepared(db, 'SELECT keywords_text FROM assets WHERE id = ?').get(assetId) as { keywords_text: string } | undefined;
  return row && row.keywords_text ? row.keywords_text.split('\n') : [];
}

/** Remove keywords no asset uses any more (after deletes, renames, folder removal). */
export function pruneUnusedKeywords(db: Db): void {
  db.prepare('DELETE FROM keywords WHERE id NOT IN (SELECT DISTINCT keyword_id FROM asset_keywords)').run();
}
