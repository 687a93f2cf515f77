import type { AssetKind, Facets, KeywordCount } from '../../src-preload/contract';
import { currentIndex } from './catalogue-index';
import type { LibraryCtx } from '../library/context';

// Counts the sidebar and the keyword panels show (photos per folder, kind, camera, keyword),
// from the in-memory catalogue index when it is current with the catalogue: SQL's GROUP BY
// over a million photos held the main thread 50-600 ms (2.6 s for the keyword panel), while
// the index's columns and postings are counted in milliseconds. Without a current index (a CLI
// command, a build under way, inside a transaction) each caller asks SQL, as before; both give
// the same counts in the same order (tests/integration/catalogue-index.test.ts).

/**
 * SQLite's BINARY collation (UTF-8 byte order, which is code point order) or, with `nocase`,
 * its NOCASE (ASCII letters folded first). UTF-16 units order as code points do except that
 * surrogates (U+10000 and up) must sort after U+E000-U+FFFF: each unit is moved accordingly.
 */
function compareAs(a: string, b: string, nocase: boolean): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (nocase) {
      if (x >= 65 && x <= 90) x += 32;
      if (y >= 65 && y <= 90) y += 32;
      if (x === y) continue;
    }
    const cx = x >= 0xe000 ? x - 0x800 : x >= 0xd800 ? x + 0x2000 : x;
    const cy = y >= 0xe000 ? y - 0x800 : y >= 0xd800 ? y + 0x2000 : y;
    return cx - cy;
  }
  return a.length - b.length;
}

export const binaryCompare = (a: string, b: string): number => compareAs(a, b, false);
export const nocaseCompare = (a: string, b: string): number => compareAs(a, b, true);

/** Live photos per folder id, or null when SQL must count them. */
export function liveByFolder(ctx: LibraryCtx): Map<number, number> | null {
  return currentIndex(ctx.db)?.liveByFolder() ?? null;
}

/** Live photos in the catalogue, or null when SQL must count them. */
export function liveTotal(ctx: LibraryCtx): number | null {
  const byFolder = liveByFolder(ctx);
  return byFolder && [...byFolder.values()].reduce((n, c) => n + c, 0);
}

/** The facets (ORDER BY count DESC, then the name), or null when SQL must count them. */
export function indexedFacets(ctx: LibraryCtx): Facets | null {
  const ix = currentIndex(ctx.db);
  if (!ix) return null;
  const t = ix.facetTallies();
  const kinds = Object.entries(t.kinds)
    .map(([kind, count]) => ({ kind: kind as AssetKind, count }))
    .sort((a, b) => b.count - a.count || binaryCompare(a.kind, b.kind));
  const cameras = [...t.cameras].map(([name, count]) => ({ name, count })).sort((a, b) => b.count - a.count || binaryCompare(a.name, b.name));
  return { cameras, kinds, total: kinds.reduce((n, k) => n + k.count, 0) };
}

/**
 * How many live photos carry each keyword `keywords()` reads (those on none left out, in its
 * order), or null when SQL must count them.
 */
export function keywordCounts(ctx: LibraryCtx, keywords: () => readonly { id: number; name: string }[]): KeywordCount[] | null {
  const ix = currentIndex(ctx.db);
  if (!ix) return null;
  const out: KeywordCount[] = [];
  for (const k of keywords()) {
    const count = ix.liveCount(k.id);
    if (count) out.push({ name: k.name, count });
  }
  return out;
}
