import type { SearchQuery } from '../../src-preload/contract';
import {
  A_DUP,
  A_ERROR,
  A_FLAG_MASK,
  A_FLAG_SHIFT,
  A_KIND_SHIFT,
  A_LABEL_MASK,
  A_LABEL_SHIFT,
  A_LIVE,
  A_NO_KEYWORDS,
  A_RATING_SHIFT,
  currentIndex,
  foldStacks,
  dropIndex,
  FLAG_CODE,
  indexable,
  KIND_CODE,
  type CatalogueIndex,
  type SortPerm,
} from './catalogue-index';
import { prepared, type Db } from '../library/db';
import { ftsWord, ftsWords } from './fts-query';
import { wantedLabelCode } from '../library/labels';

/** A plain array of the ids (a loop into a sized array: several times faster than Array.from for a million). */
export function toArray(ids: Int32Array): number[] {
  const out = new Array<number>(ids.length);
  for (let i = 0; i < ids.length; i++) out[i] = ids[i];
  return out;
}

// A search answered from the in-memory catalogue index (catalogue-index/), with the same
// meaning as the SQL in search.ts: the same filters, the same RAW+JPEG stack folding, the
// same orders.

/** The matches of one query: how many, and any run of them in display order. */
export interface Matches {
  total: number;
  /** `limit` matching ids from `offset` on, in display order (valid until the next search on this connection). */
  slice(offset: number, limit: number): Int32Array;
  /** All of them in display order, as a plain array (likewise). */
  array(): number[];
}

/**
 * What `use` makes of the matches of `query`, or undefined when the index cannot answer it
 * (an analysis filter or sort, the index still being built, an open transaction).
 */
export function fromIndex<T>(db: Db, query: SearchQuery, expandStacks: boolean, use: (m: Matches) => T): T | undefined {
  if (!indexable(query)) return undefined;
  const ix = currentIndex(db);
  if (!ix) return undefined;
  try {
    const matches = evaluate(db, ix, query, expandStacks);
    return matches ? use(matches) : undefined;
  } catch (e) {
    // Out of step with the catalogue: a bug, not a user error. SQL answers, and the index is
    // built again, rather than a wrong result shown.
    console.error('[search] catalogue index dropped:', (e as Error).message);
    dropIndex(db);
    return undefined;
  }
}

/** The taken_at of `id` compared with `bound` in SQL, so the comparison is SQLite's own. */
function takenAtLeast(db: Db, id: number, bound: string): boolean {
  return prepared(db, 'SELECT taken_at >= ? AS ok FROM assets WHERE id = ?').pluck(true).get(bound, id) === 1;
}

/** First timeline position whose capture date is >= bound (binary search over the order). */
function lowerBound(db: Db, perm: Int32Array, bound: string): number {
  let lo = 0;
  let hi = perm.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (takenAtLeast(db, perm[mid], bound)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** The assets linked to the keyword called `name`, or undefined when there are none. */
function keywordPostings(db: Db, ix: CatalogueIndex, name: string): Int32Array | undefined {
  // keywords.name is COLLATE NOCASE, so this is the case-insensitive match search.ts makes.
  const id = prepared(db, 'SELECT id FROM keywords WHERE name = ?').pluck(true).get(name.normalize('NFC').trim()) as number | undefined;
  return id === undefined ? undefined : ix.postings.get(id);
}

/** The sorts that are one order (the timeline, 'takenAt', is two: dated, then undated). */
const SINGLE_ORDER: Partial<Record<NonNullable<SearchQuery['sort']>, Exclude<SortPerm, 'taken' | 'undated'>>> = { name: 'name', addedAt: 'added', size: 'size' };

/** The assets matching one search word (a prefix), from the full-text part of the index or FTS5. */
function wordHits(db: Db, ix: CatalogueIndex, word: string): ArrayLike<number> {
  const token = ix.text ? ix.tokenizer().wordToken(word) : null;
  if (ix.text && token !== null) return ix.text.withPrefix(token, ix.cols.scratch);
  return prepared(db, 'SELECT rowid FROM assets_fts WHERE assets_fts MATCH ?').pluck(true).all(ftsWord(word)) as number[];
}

function evaluate(db: Db, ix: CatalogueIndex, query: SearchQuery, expandStacks: boolean): Matches | null {
  const c = ix.cols;
  const empty: Matches = { total: 0, slice: () => new Int32Array(0), array: () => [] };

  // Sets every match must belong to: each word's full-text hits and each wanted keyword's postings.
  const required: ArrayLike<number>[] = [];
  for (const word of query.text ? ftsWords(query.text) : []) {
    const hits = wordHits(db, ix, word);
    if (!hits.length) return empty;
    required.push(hits);
  }
  for (const k of query.keywords ?? []) {
    const ids = keywordPostings(db, ix, k);
    if (!ids) return empty;
    required.push(ids);
  }
  required.sort((a, b) => a.length - b.length);
  const m = required.length;
  // In more than one set: counted per id (each set holds an id once), so "in all" is count === m.
  const counts = c.counts;
  if (m > 1) {
    if (m > 255) return null; // the counts are bytes; SQL answers such a query
    counts.fill(0);
    for (const set of required) for (let i = 0; i < set.length; i++) counts[set[i]]++;
  }

  const without = c.without;
  let excluding = false;
  for (const k of query.withoutKeywords ?? []) {
    const ids = keywordPostings(db, ix, k);
    if (!ids) continue;
    if (!excluding) without.fill(0);
    excluding = true;
    for (let i = 0; i < ids.length; i++) without[ids[i]] = 1;
  }

  // A capture-date range is a range of positions on the timeline.
  let dateLo = -1;
  let dateHi = -1;
  const taken = ix.perm('taken');
  if (query.takenFrom || query.takenTo) {
    dateLo = query.takenFrom ? lowerBound(db, taken, query.takenFrom) : 0;
    dateHi = query.takenTo ? lowerBound(db, taken, query.takenTo + '~') : taken.length;
    if (dateHi <= dateLo) return empty;
  }

  // The yes/no filters as one mask test on the packed attributes.
  let maskBits = A_LIVE;
  let want = A_LIVE;
  let kinds = 0;
  if (query.kinds && query.kinds.length) {
    for (const k of query.kinds) if (KIND_CODE[k]) kinds |= 1 << (KIND_CODE[k] - 1 + A_KIND_SHIFT);
    if (!kinds) return empty;
  }
  for (const [on, bit] of [[query.noKeywords, A_NO_KEYWORDS], [query.duplicatesOnly, A_DUP], [query.errorsOnly, A_ERROR]] as const) {
    if (!on) continue;
    maskBits |= bit;
    want |= bit;
  }
  if (query.flag === 'unflagged') maskBits |= A_FLAG_MASK;
  else if (query.flag) {
    if (!FLAG_CODE[query.flag]) return empty;
    maskBits |= A_FLAG_MASK;
    want |= FLAG_CODE[query.flag] << A_FLAG_SHIFT;
  }
  if (query.label) {
    maskBits |= A_LABEL_MASK;
    want |= wantedLabelCode(query.label) << A_LABEL_SHIFT;
  }
  const minRating = query.minRating !== undefined && query.minRating > 0 ? query.minRating : 0;
  const byFolder = query.folderId !== undefined;
  const folderId = query.folderId ?? 0;
  let camera = 0;
  if (query.camera) {
    camera = ix.codeOf(query.camera);
    if (camera < 0) return empty;
  }

  // Lens text: the codes of the lens names that contain it. Exposure ranges: an unknown
  // value (NaN) fails every comparison, as NULL does in SQL.
  const lensCodes = query.lens ? ix.codesContaining(query.lens) : null;
  const range = (r: { min?: number; max?: number } | undefined): [number, number] | null =>
    r && (r.min !== undefined || r.max !== undefined) ? [r.min ?? -Infinity, r.max ?? Infinity] : null;
  const isoRange = range(query.iso);
  const focalRange = range(query.focalLength);
  const apertureRange = range(query.aperture);
  const { attrs, folder, make, model, lens, iso, focal, aperture, mark, hits } = c;
  const takenPos = dateLo >= 0 ? ix.takenPositions() : c.takenPos;
  const similar = query.similarGroups || query.foldGroups ? ix.similar() : null;
  const inGroup = query.similarGroups ? similar!.groupOf : null;
  const inBurst = query.similarGroups === 'burst' ? similar!.burst : null;

  // No filter at all (the grid's opening view, any sort on its own): the index keeps that
  // view's matches current, so only the first page of the order is walked, not every asset.
  const unfiltered = !expandStacks && !m && !excluding && dateLo < 0 && maskBits === A_LIVE && !kinds && !minRating && !byFolder && !camera &&
    !lensCodes && !isoRange && !focalRange && !apertureRange && !similar;
  if (unfiltered) {
    const plain = ix.plainView();
    const order = orderOf(ix, query);
    // Few listed (most of the library removed): sorted by place, from the matches' own list below.
    if (plain.count * 16 >= order.length) return walked(order, plain.mark, plain.count);
  }
  mark.fill(0);
  let count = 0;
  // Candidates: the smallest required set, else the date range, else every id.
  const source: ArrayLike<number> | null = m ? required[0] : dateLo >= 0 ? taken.subarray(dateLo, dateHi) : null;
  const end = source ? source.length : Math.min(ix.maxId, c.cap - 1) + 1;
  // Branch-free per asset (each test is a 0/1 product): with a filter matching a random
  // quarter of a million assets, mispredicted branches would cost more than the tests.
  for (let i = source ? 0 : 1; i < end; i++) {
    const id = source ? source[i] : i;
    const a = attrs[id];
    let ok = +((a & maskBits) === want);
    if (kinds) ok &= +((a & kinds) !== 0);
    if (minRating) ok &= +(((a >> A_RATING_SHIFT) & 7) >= minRating);
    if (byFolder) ok &= +(folder[id] === folderId);
    if (dateLo >= 0) ok &= +(takenPos[id] >= dateLo) & +(takenPos[id] < dateHi);
    if (camera) ok &= +(model[id] === camera) | +(make[id] === camera);
    if (lensCodes) ok &= lensCodes[lens[id]];
    if (isoRange) ok &= +(iso[id] >= isoRange[0]) & +(iso[id] <= isoRange[1]);
    if (focalRange) ok &= +(focal[id] >= focalRange[0]) & +(focal[id] <= focalRange[1]);
    if (apertureRange) ok &= +(aperture[id] >= apertureRange[0]) & +(aperture[id] <= apertureRange[1]);
    if (m > 1) ok &= +(counts[id] === m);
    if (excluding) ok &= 1 - without[id];
    if (inGroup) ok &= +(inGroup[id] !== 0);
    if (inBurst) ok &= inBurst[id];
    mark[id] = ok;
    hits[count] = id;
    count += ok;
  }
  const listed = count;

  // RAW+JPEG: a matching RAW is folded when a better member of its stack matches as well
  // (whether that member is itself folded or not, as in SQL).
  if (!expandStacks && count) count -= foldStacks(mark, ix.stacks());

  // Similar groups: the representative (the first member picked, else the best frame) stands
  // for the others when it is listed itself (as in SQL: matching, not folded into a stack).
  if (query.foldGroups && similar && count) {
    const expanded = new Set(query.expandedGroups ?? []);
    const { ids, best, start, members } = similar;
    const pickWord = (FLAG_CODE.pick << A_FLAG_SHIFT) | A_LIVE;
    for (let g = 0; g < ids.length; g++) {
      if (expanded.has(ids[g])) continue;
      let rep = best[g];
      for (let i = start[g]; i < start[g + 1]; i++) {
        if ((attrs[members[i]] & (A_FLAG_MASK | A_LIVE)) === pickWord) {
          rep = members[i];
          break;
        }
      }
      if (mark[rep] !== 1) continue;
      for (let i = start[g]; i < start[g + 1]; i++) {
        const m = members[i];
        if (m !== rep && mark[m] === 1) {
          mark[m] = 0;
          count--;
        }
      }
    }
  }

  return inOrder(ix, query, hits.subarray(0, listed), count);
}

/**
 * The matches (mark[id] === 1; `hits` holds them and possibly some since unmarked) in the
 * query's order. Few matches are sorted by their place in the order; many are picked out
 * by walking the order itself.
 */
/** A query's order: its parts (the timeline is two, dated then undated; every other sort one), their length, the direction. */
interface Order {
  parts: Int32Array[];
  single: Exclude<SortPerm, 'taken' | 'undated'> | undefined;
  length: number;
  desc: boolean;
}

function orderOf(ix: CatalogueIndex, query: SearchQuery): Order {
  const single = SINGLE_ORDER[query.sort ?? 'takenAt'];
  const parts: Int32Array[] = single ? [ix.perm(single)] : [ix.perm('taken'), ix.perm('undated')];
  return { parts, single, length: parts.reduce((n, p) => n + p.length, 0), desc: query.order === 'desc' };
}

function inOrder(ix: CatalogueIndex, query: SearchQuery, hits: Int32Array, count: number): Matches {
  const mark = ix.cols.mark;
  const order = orderOf(ix, query);
  const { parts, single, length, desc } = order;
  if (count * 16 < length) {
    // Each match's place in the order: within its part (the timeline lists the dated ones,
    // by date, then the undated ones, in either direction), reversed for a descending order.
    const places = new Int32Array(count);
    const first = parts[0];
    const firstLen = first.length;
    const rest = parts.length === 2 ? parts[1] : first;
    const firstRank = single ? ix.rank(single) : ix.takenPositions();
    const restRank = single ? firstRank : ix.rank('undated');
    let n = 0;
    for (let i = 0; i < hits.length; i++) {
      const id = hits[i];
      if (mark[id] !== 1) continue;
      const r = firstRank[id];
      if (single || r >= 0) places[n++] = desc ? firstLen - 1 - r : r;
      else places[n++] = firstLen + (desc ? rest.length - 1 - restRank[id] : restRank[id]);
    }
    if (n !== count) throw new Error(`catalogue index out of step: ${count} matches, ${n} listed`);
    places.sort();
    const ordered = new Int32Array(count);
    for (let i = 0; i < count; i++) {
      const place = places[i];
      ordered[i] = place < firstLen ? first[desc ? firstLen - 1 - place : place] : rest[desc ? rest.length - 1 - (place - firstLen) : place - firstLen];
    }
    return { total: count, slice: (offset, limit) => ordered.slice(offset, offset + limit), array: () => toArray(ordered) };
  }
  return walked(order, mark, count);
}

/** The `count` ids marked in `mark` (1: matches), picked out by walking the order itself. */
function walked(order: Order, mark: Uint8Array, count: number): Matches {
  const { parts, desc } = order;
  return {
    total: count,
    slice(offset, limit) {
      // Walk the order, skipping `offset` matches, then keep `limit` (branch-free: write
      // every id, advance on a match).
      const want = Math.max(0, Math.min(limit, count - offset));
      const out = new Int32Array(want + 1);
      let skip = offset;
      let n = 0;
      for (const perm of parts) {
        if (n >= want) break;
        const len = perm.length;
        for (let k = 0; k < len && n < want; k++) {
          const id = perm[desc ? len - 1 - k : k];
          if (skip > 0) {
            skip -= mark[id];
            continue;
          }
          out[n] = id;
          n += mark[id];
        }
      }
      if (n !== want) throw new Error(`catalogue index out of step: ${want} matches wanted from ${offset}, ${n} found`);
      return out.subarray(0, want);
    },
    array() {
      // The same walk, straight into a plain array (one pass instead of two for a million).
      const out = new Array<number>(count + 1);
      let n = 0;
      for (const perm of parts) {
        const len = perm.length;
        for (let k = 0; k < len && n < count; k++) {
          const id = perm[desc ? len - 1 - k : k];
          out[n] = id;
          n += mark[id];
        }
      }
      if (n !== count) throw new Error(`catalogue index out of step: ${count} matches, ${n} found`);
      out.length = count;
      return out;
    },
  };
}
