import { deleteUnusedKeywords, storeAssetKeywords } from '../catalogue/keywords';
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
  return storeAssetKeywords(db, assetId, cleanKeywordList(names));
}

export function getAssetKeywords(db: Db, assetId: number): string[] {
  const row = prepared(db, 'SELECT keywords_text FROM assets WHERE id = ?').get(assetId) as { keywords_text: string } | undefined;
  return row && row.keywords_text ? row.keywords_text.split('\n') : [];
}

/** Remove keywords no asset uses any more (after deletes, renames, folder removal). */
export function pruneUnusedKeywords(db: Db): void {
  deleteUnusedKeywords(db);
}
