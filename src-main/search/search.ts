import { join } from 'node:path';
import type { AssetKind, AssetSummary, Facets, Page, SearchQuery, SearchResult } from '../../src-preload/contract';
import { DEFAULT_COLOR_DISTANCE, DEFAULT_COLOR_SHARE, parseHex, rgbToLab } from '../core/color';
import { ApiError } from '../core/errors';
import { mediaToken } from '../core/media';
import { isEmbeddedThumb } from '../library/thumb-names';
import type { LibraryCtx } from '../library/context';
import { ftsQuery } from './fts-query';
import { fromIndex, toArray } from './index-search';
import { indexedFacets } from './tallies';
import { prepared } from '../library/db';
import { labelOf } from '../library/labels';
import { collectionRow, descendants, memberIds, notFound, smartQueryOf } from '../library/collection-store';
import { ensureDuplicateHashes, ensureStackFolded, fillFoldedHits, fillGroupFoldedHits, loadCollectionHits, loadTextHits, recalled, remembered } from './search-sets';
import { groupsForSearch } from '../library/similarity/background';

// Catalogue search: FTS5 full text combined with filters and sorts. In the app most searches
// are answered from the in-memory catalogue index (catalogue-index/, index-search.ts); the
// SQL here is the reference it is tested against, and answers whatever the index cannot. The
// SQL text depends only on WHICH filters are set (never on their values: those are always
// bound), so each shape is prepared once and cached per database.

export { ftsQuery };

export interface SearchOptions {
  /**
   * List every file of a RAW+JPEG stack instead of one representative per stack. The grid
   * collapses stacks; the CLI lists every file.
   */
  expandStacks?: boolean;
}

interface Built {
  where: string;
  params: unknown[];
}

/**
 * The WHERE clause over `alias` for a query: its SQL shape comes from which filters are set,
 * values are always bound. `probe` is for the correlated stack check, evaluated once per
 * candidate row: there, set-valued subqueries (`id IN (SELECT ...)`) would be rebuilt on
 * every evaluation, so each filter is written as a per-row lookup instead.
 */
/** The exposure ranges of a search and their columns (migration 13). */
export const EXPOSURE_RANGES = [['iso', 'iso'], ['focalLength', 'focal_length'], ['aperture', 'aperture']] as const;

function buildWhere(query: SearchQuery, x: string, probe: boolean): Built {
  const clauses = [`${x}.removed_at IS NULL`];
  const params: unknown[] = [];
  // The full-text hits were put in temp.text_hits by loadTextHits (an FTS5 MATCH per probe
  // would re-run the whole full-text query for every row).
  if (query.text && ftsQuery(query.text)) {
    clauses.push(probe ? `EXISTS (SELECT 1 FROM temp.text_hits h WHERE h.id = ${x}.id)` : `${x}.id IN (SELECT id FROM temp.text_hits)`);
  }
  if (query.kinds && query.kinds.length) {
    clauses.push(`${x}.kind IN (${query.kinds.map(() => '?').join(', ')})`);
    params.push(...query.kinds);
  }
  if (query.folderId !== undefined) {
    clauses.push(`${x}.folder_id = ?`);
    params.push(query.folderId);
  }
  // keywords.name is COLLATE NOCASE, so `name = ?` is the case-insensitive match.
  for (const k of query.keywords ?? []) {
    clauses.push(
      probe
        ? `EXISTS (SELECT 1 FROM asset_keywords ak JOIN keywords k ON k.id = ak.keyword_id WHERE ak.asset_id = ${x}.id AND k.name = ?)`
        : `${x}.id IN (SELECT ak.asset_id FROM asset_keywords ak JOIN keywords k ON k.id = ak.keyword_id WHERE k.name = ?)`,
    );
    params.push(k.normalize('NFC').trim());
  }
  if (query.withoutKeywords && query.withoutKeywords.length) {
    const marks = query.withoutKeywords.map(() => '?').join(', ');
    clauses.push(
      probe
        ? `NOT EXISTS (SELECT 1 FROM asset_keywords ak JOIN keywords k ON k.id = ak.keyword_id WHERE ak.asset_id = ${x}.id AND k.name IN (${marks}))`
        : `${x}.id NOT IN (SELECT ak.asset_id FROM asset_keywords ak JOIN keywords k ON k.id = ak.keyword_id WHERE k.name IN (${marks}))`,
    );
    params.push(...query.withoutKeywords.map((k) => k.normalize('NFC').trim()));
  }
  if (query.noKeywords) clauses.push(`${x}.keyword_count = 0`);
  if (query.minRating !== undefined && query.minRating > 0) {
    clauses.push(`${x}.rating >= ?`);
    params.push(query.minRating);
  }
  // taken_at is 'YYYY-MM-DDTHH:MM:SS[offset]': a plain string range on it is a range on the
  // local wall-clock date, and can use the taken_at index. '~' sorts after any character
  // that can follow the date, so `< to + '~'` includes the whole last day.
  if (query.takenFrom) {
    clauses.push(`${x}.taken_at >= ?`);
    params.push(query.takenFrom);
  }
  if (query.takenTo) {
    clauses.push(`${x}.taken_at < ?`);
    params.push(query.takenTo + '~');
  }
  if (query.camera) {
    clauses.push(`(${x}.camera_model = ? OR ${x}.camera_make = ?)`);
    params.push(query.camera, query.camera);
  }
  if (query.lens) {
    // SQLite's lower() folds ASCII only; the catalogue index folds the same way (asciiLower).
    clauses.push(`instr(lower(${x}.lens), lower(?)) > 0`);
    params.push(query.lens);
  }
  for (const [range, column] of EXPOSURE_RANGES) {
    const r = query[range];
    if (r?.min !== undefined) {
      clauses.push(`${x}.${column} >= ?`);
      params.push(r.min);
    }
    if (r?.max !== undefined) {
      clauses.push(`${x}.${column} <= ?`);
      params.push(r.max);
    }
  }
  if (query.duplicatesOnly) {
    clauses.push(
      probe
        ? `EXISTS (SELECT 1 FROM temp.duplicate_hashes dh WHERE dh.hash = ${x}.content_hash)`
        : `${x}.content_hash IN (SELECT hash FROM temp.duplicate_hashes)`,
    );
  }
  if (query.errorsOnly) clauses.push(`${x}.has_error = 1`);
  // The collection's ids were put in temp.collection_hits by loadCollection.
  if (query.collectionId !== undefined) {
    clauses.push(probe ? `EXISTS (SELECT 1 FROM temp.collection_hits ch WHERE ch.id = ${x}.id)` : `${x}.id IN (SELECT id FROM temp.collection_hits)`);
  }
  // Labels compare as labels.ts reads them: trimmed, case-insensitive; blank is no label.
  if (query.label === 'none') clauses.push(`trim(coalesce(${x}.color_label, '')) = ''`);
  else if (query.label) {
    clauses.push(`trim(${x}.color_label) = ? COLLATE NOCASE`);
    params.push(query.label);
  }
  // Issue 19: sent to a stock agency (asset_sent, one row per photo and agency).
  for (const [agency, not] of [[query.sentTo, ''], [query.notSentTo, 'NOT ']] as const) {
    if (!agency) continue;
    clauses.push(
      probe
        ? `${not}EXISTS (SELECT 1 FROM asset_sent s WHERE s.asset_id = ${x}.id AND s.agency = ?)`
        : `${x}.id ${not}IN (SELECT s.asset_id FROM asset_sent s WHERE s.agency = ?)`,
    );
    params.push(agency);
  }
  if (query.similarGroups) {
    // The stored groups (library/similarity/stored.ts), brought up to date by effectiveQuery.
    const kind = query.similarGroups === 'burst' ? "g.kind = 'burst'" : '1';
    clauses.push(
      probe
        ? `EXISTS (SELECT 1 FROM similar_members m JOIN similar_groups g ON g.id = m.group_id WHERE m.asset_id = ${x}.id AND ${kind})`
        : `${x}.id IN (SELECT m.asset_id FROM similar_members m JOIN similar_groups g ON g.id = m.group_id WHERE ${kind})`,
    );
  }
  analysisFilters(query, x, probe, clauses, params);
  return { where: clauses.join(' AND '), params };
}

/**
 * Filters on what the service measured (analysis/): each is a lookup in its measurement
 * table, by index. As elsewhere, `probe` turns a set (`id IN (SELECT ...)`, built once) into
 * a per-row EXISTS for the stack check.
 */
function analysisFilters(query: SearchQuery, x: string, probe: boolean, clauses: string[], params: unknown[]): void {
  const inTable = (table: string, cond: string, ...values: unknown[]): void => {
    clauses.push(probe ? `EXISTS (SELECT 1 FROM ${table} t WHERE t.asset_id = ${x}.id AND ${cond})` : `${x}.id IN (SELECT t.asset_id FROM ${table} t WHERE ${cond})`);
    params.push(...values);
  };
  if (query.minQuality !== undefined && query.maxQuality !== undefined) inTable('asset_quality', 't.score >= ? AND t.score <= ?', query.minQuality, query.maxQuality);
  else if (query.minQuality !== undefined) inTable('asset_quality', 't.score >= ?', query.minQuality);
  else if (query.maxQuality !== undefined) inTable('asset_quality', 't.score <= ?', query.maxQuality);
  if (query.ugcClasses && query.ugcClasses.length) inTable('asset_ugc_quality', `t.class IN (${query.ugcClasses.map(() => '?').join(', ')})`, ...query.ugcClasses);
  if (query.hasFaces !== undefined) inTable('asset_face_scans', query.hasFaces ? 't.face_count > 0' : 't.face_count = 0');
  if (query.minFaces !== undefined) inTable('asset_face_scans', 't.face_count >= ?', query.minFaces);
  if (query.maxFaces !== undefined) inTable('asset_face_scans', 't.face_count <= ?', query.maxFaces);
  if (query.child) inTable('asset_face_scans', 't.min_age < 18');
  if (query.ageMin !== undefined || query.ageMax !== undefined) inTable('asset_faces', 't.age >= ? AND t.age <= ?', query.ageMin ?? 0, query.ageMax ?? 1e9);
  if (query.releaseNeeded !== undefined) inTable('asset_face_scans', 't.release_needed = ?', query.releaseNeeded ? 1 : 0);
  if (query.flag === 'unflagged') clauses.push(`${x}.flag IS NULL`);
  else if (query.flag) {
    clauses.push(`${x}.flag = ?`);
    params.push(query.flag);
  }
  if (query.color) {
    // Perceptual: the colours of the palette within ΔE76 of the wanted one (squared, so no
    // sqrt in SQL) must cover at least minShare of the picture together. A minShare of 0
    // filters nothing: the colour is then only the reference of the colour-match sort.
    const rgb = parseHex(query.color.hex);
    if (!rgb) throw new ApiError('validation', 'The colour must be a hex value such as #1e50c8.', 'color.hex');
  }
  if (query.color && (query.color.minShare ?? DEFAULT_COLOR_SHARE) > 0) {
    const rgb = parseHex(query.color.hex)!;
    const [l, a, b] = rgbToLab(rgb);
    const d = query.color.maxDistance ?? DEFAULT_COLOR_DISTANCE;
    const near = '(t.lab_l - ?) * (t.lab_l - ?) + (t.lab_a - ?) * (t.lab_a - ?) + (t.lab_b - ?) * (t.lab_b - ?) <= ?';
    const values = [l, l, a, a, b, b, d * d];
    const share = query.color.minShare ?? DEFAULT_COLOR_SHARE;
    clauses.push(
      probe
        ? `(SELECT coalesce(sum(t.share), 0) FROM asset_colors t WHERE t.asset_id = ${x}.id AND ${near}) >= ?`
        : `${x}.id IN (SELECT t.asset_id FROM asset_colors t WHERE ${near} GROUP BY t.asset_id HAVING sum(t.share) >= ?)`,
    );
    params.push(...values, share);
  }
}

/**
 * One item per RAW+JPEG stack. A RAW file is folded into its stack when a better member
 * (a non-RAW one, else a lower-id RAW) also matches the query — so a stack whose only
 * matching member is the RAW still shows the RAW. Which RAW files have a better sibling at
 * all is cached (temp.stack_folded, see search-sets.ts); per search, the ones that are
 * folded under THIS query are worked out once, over those few rows only, into
 * temp.folded_hits. The count is then count(matches) - count(folded), both index-friendly,
 * and the page skips folded ids with one lookup in a small in-memory table.
 * Returns the name of the table holding the folded ids.
 */
function foldStacks(ctx: LibraryCtx, query: SearchQuery): string {
  ensureStackFolded(ctx.db);
  const self = buildWhere(query, 'r', true);
  const sibling = buildWhere(query, 'b', true);
  // No filters: every cached fold applies as it is.
  if (sibling.params.length === 0 && sibling.where === 'b.removed_at IS NULL') return 'temp.stack_folded';
  // CROSS JOIN keeps SQLite from driving this from the big table (temp tables have no stats).
  fillFoldedHits(
    ctx.db,
    `SELECT sf.id FROM temp.stack_folded sf CROSS JOIN assets r ON r.id = sf.id WHERE ${self.where} AND EXISTS (
      SELECT 1 FROM assets b WHERE b.folder_id = sf.folder_id AND b.stack_key = sf.stack_key AND b.id <> sf.id
        AND (b.is_raw = 0 OR b.id < sf.id) AND ${sibling.where})`,
    [...self.params, ...sibling.params],
  );
  return 'temp.folded_hits';
}

/**
 * One item per similar group (query.foldGroups): the group's representative — the first
 * member the user picked, else the suggested best frame — stands for the others when it
 * matches the query too and is not itself folded into a RAW+JPEG stack; the groups in
 * query.expandedGroups are left open. Returns the table holding the members folded away.
 */
function foldSimilarGroups(ctx: LibraryCtx, query: SearchQuery, stackFolded: string | null): string {
  const self = buildWhere(query, 'r', true);
  fillGroupFoldedHits(
    ctx.db,
    `SELECT m.asset_id FROM similar_groups g
       CROSS JOIN assets r ON r.id = ${GROUP_REP}
       JOIN similar_members m ON m.group_id = g.id AND m.asset_id <> r.id
     WHERE g.id NOT IN (SELECT value FROM json_each(?)) AND ${self.where}${stackFolded ? ` AND r.id NOT IN (SELECT id FROM ${stackFolded})` : ''}`,
    [JSON.stringify(query.expandedGroups ?? []), ...self.params],
  );
  return 'temp.group_folded_hits';
}

/** A group's representative (g: similar_groups): its first live picked member, else its suggested best frame. */
const GROUP_REP = `coalesce((SELECT pm.asset_id FROM similar_members pm JOIN assets p ON p.id = pm.asset_id
  WHERE pm.group_id = g.id AND p.flag = 'pick' AND p.removed_at IS NULL ORDER BY pm.position LIMIT 1), g.best_id)`;

/** ORDER BY for the sort; for takenAt, `dated` picks the part (see parts()). */
function orderBy(query: SearchQuery, dated: boolean): string {
  const dir = query.order === 'desc' ? 'DESC' : 'ASC';
  switch (query.sort ?? 'takenAt') {
    case 'name':
      return `a.name COLLATE NOCASE ${dir}, a.id ${dir}`;
    case 'addedAt':
      return `a.added_at ${dir}, a.id ${dir}`;
    case 'size':
      return `a.size ${dir}, a.id ${dir}`;
    case 'takenAt':
      return dated ? `a.taken_at ${dir}, a.name ${dir}, a.id ${dir}` : `a.name ${dir}, a.id ${dir}`;
    // Measured scores, one primary-key probe per row; unmeasured assets last either way.
    case 'quality':
    case 'ugcQuality': {
      const score = `(SELECT t.score FROM ${query.sort === 'quality' ? 'asset_quality' : 'asset_ugc_quality'} t WHERE t.asset_id = a.id)`;
      return `${score} IS NULL, ${score} ${dir}, a.id ${dir}`;
    }
    case 'custom': {
      // A manual collection's own order (effectiveQuery makes any other 'custom' the timeline).
      // The id is a validated integer, inlined like the colour values below: no user text.
      const position = `(SELECT ca.position FROM collection_assets ca WHERE ca.collection_id = ${Math.trunc(query.collectionId ?? 0)} AND ca.asset_id = a.id)`;
      return `${position} ${dir}, a.id ${dir}`;
    }
    case 'colorMatch': {
      // How much of the picture lies within the match distance of the wanted colour; 'desc'
      // (the natural order) puts the strongest match first. The Lab values are numbers this
      // code computed from a validated hex, so inlining them builds no SQL from user text.
      const rgb = query.color ? parseHex(query.color.hex) : null;
      if (!rgb) return orderBy({ ...query, sort: 'takenAt' }, dated);
      const [l, a, b] = rgbToLab(rgb).map((v) => Number(v.toFixed(4)));
      const d = query.color!.maxDistance ?? DEFAULT_COLOR_DISTANCE;
      const share = `(SELECT coalesce(sum(t.share), 0) FROM asset_colors t WHERE t.asset_id = a.id AND
        (t.lab_l - ${l}) * (t.lab_l - ${l}) + (t.lab_a - ${a}) * (t.lab_a - ${a}) + (t.lab_b - ${b}) * (t.lab_b - ${b}) <= ${Number((d * d).toFixed(4))})`;
      return `${share} ${dir}, a.id ${dir}`;
    }
  }
}

/** The filter, plus (unless stacks are expanded) the table of ids folded into their stacks (and similar groups, when folded). */
function filtered(ctx: LibraryCtx, query: SearchQuery, opts: SearchOptions): Built & { folded: string | null; groupFolded: string | null } {
  // First: a smart collection's ids come from a search of their own, which would overwrite
  // this search's text hits if those were loaded before.
  if (query.collectionId !== undefined) loadCollection(ctx, query.collectionId);
  const fts = query.text ? ftsQuery(query.text) : null;
  if (fts) loadTextHits(ctx.db, fts);
  if (query.duplicatesOnly) ensureDuplicateHashes(ctx.db);
  const built = buildWhere(query, 'a', false);
  const folded = opts.expandStacks ? null : foldStacks(ctx, query);
  const groupFolded = query.foldGroups ? foldSimilarGroups(ctx, query, folded) : null;
  let where = folded ? `${built.where} AND a.id NOT IN (SELECT id FROM ${folded})` : built.where;
  if (groupFolded) where += ` AND a.id NOT IN (SELECT id FROM ${groupFolded})`;
  return { where, params: built.params, folded, groupFolded };
}

/** Collections being resolved now (a smart collection may filter by another collection). */
const resolving = new Set<number>();

/** The ids in a collection: a manual one's members, a smart one's live matches, a set's collections' ids (each file, stacks expanded). */
function collectionIds(ctx: LibraryCtx, id: number): number[] {
  const row = collectionRow(ctx.db, id);
  if (!row) throw notFound();
  if (resolving.has(id)) {
    throw new ApiError('validation', `The smart collection “${row.name}” ends up filtering by itself. Edit it and change its collection filter.`, 'collectionId');
  }
  resolving.add(id);
  try {
    if (row.kind === 'manual') return memberIds(ctx.db, id);
    if (row.kind === 'smart') return searchIds(ctx, { ...smartQueryOf(row), foldGroups: undefined, expandedGroups: undefined }, { expandStacks: true });
    const all = new Set<number>();
    for (const child of descendants(ctx.db, id)) if (child.kind !== 'set') for (const a of collectionIds(ctx, child.id)) all.add(a);
    return [...all];
  } finally {
    resolving.delete(id);
  }
}

/** How many files a collection holds now (its ids, without running a search over them). */
export function collectionSize(ctx: LibraryCtx, id: number): number {
  return collectionIds(ctx, id).length;
}

function loadCollection(ctx: LibraryCtx, id: number): void {
  loadCollectionHits(ctx.db, `collection ${id}`, () => collectionIds(ctx, id));
}

/**
 * The query as it is run: 'custom' order means a manual collection's order, and the timeline
 * anywhere else (a smart collection, a set, no collection).
 */
function effectiveQuery(ctx: LibraryCtx, query: SearchQuery): SearchQuery {
  // Similar groups: the stored ones, brought up to date (in the app's worker thread, or here
  // in the CLI) when fingerprints changed since.
  if (query.similarGroups || query.foldGroups) groupsForSearch(ctx);
  if (!query.foldGroups && query.expandedGroups) query = { ...query, expandedGroups: undefined };
  if (query.sort !== 'custom') return query;
  const row = query.collectionId !== undefined ? collectionRow(ctx.db, query.collectionId) : undefined;
  return row?.kind === 'manual' ? query : { ...query, sort: 'takenAt' };
}

/** Matches (and dated matches): all filter hits minus the folded ones, each count index-friendly. */
function countMatches(ctx: LibraryCtx, query: SearchQuery, f: Built & { folded: string | null; groupFolded: string | null }): { n: number; dated: number } {
  const built = buildWhere(query, 'a', false);
  const count = (where: string) =>
    prepared(ctx.db, `SELECT count(*) AS n, count(a.taken_at) AS dated FROM assets a WHERE ${where}`).get(...built.params) as { n: number; dated: number };
  // Folded groups: the whole filter counted as it is (folding groups is a view the grid asks for).
  if (f.groupFolded) return count(f.where);
  const all = count(built.where);
  if (!f.folded) return all;
  const folded = count(`a.id IN (SELECT id FROM ${f.folded}) AND ${built.where}`);
  return { n: all.n - folded.n, dated: all.dated - folded.dated };
}

interface SummaryRow {
  id: number;
  name: string;
  kind: AssetKind;
  format: string;
  width: number | null;
  height: number | null;
  duration_s: number | null;
  taken_at: string | null;
  rating: number;
  color_label: string | null;
  thumb: string | null;
  stack_size: number;
  group_id?: number | null;
  group_size?: number | null;
  group_kind?: 'burst' | 'similar' | null;
  has_error: number;
  online: number;
  keyword_count: number;
}

export function toSummary(ctx: LibraryCtx, row: SummaryRow): AssetSummary {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    format: row.format,
    width: row.width,
    height: row.height,
    durationS: row.duration_s,
    takenAt: row.taken_at,
    rating: row.rating,
    label: labelOf(row.color_label),
    // assets.thumb is relative to the cache dir; the token carries the absolute path.
    thumb: row.thumb ? mediaToken(join(ctx.paths.cacheDir, row.thumb)) : null,
    thumbState: row.thumb ? (isEmbeddedThumb(row.thumb) ? 'preview' : 'full') : null,
    stackCount: Math.max(0, row.stack_size - 1),
    similarGroup: row.group_id !== null && row.group_id !== undefined ? { id: row.group_id, size: row.group_size ?? 0, kind: row.group_kind ?? 'similar' } : null,
    hasError: row.has_error === 1,
    folderOnline: row.online === 1,
    keywordCount: row.keyword_count,
  };
}

/**
 * A listing is read in parts so each can walk an index in order: for takenAt, dated assets
 * first and then the undated ones (they have no place on a timeline, so they go last in
 * either direction); for the other sorts, one part.
 */
function parts(query: SearchQuery): { cond: string; order: string; index: string | null }[] {
  const sort = query.sort ?? 'takenAt';
  if (sort !== 'takenAt') return [{ cond: '1', order: orderBy(query, false), index: SORT_INDEX[sort] ?? null }];
  return [
    { cond: 'a.taken_at IS NOT NULL', order: orderBy(query, true), index: 'assets_live_taken' },
    { cond: 'a.taken_at IS NULL', order: orderBy(query, false), index: 'assets_live_name' },
  ];
}

/** The index whose order is each sort's order (see orderBy and migrations 1, 3, 10). */
const SORT_INDEX: Partial<Record<NonNullable<SearchQuery['sort']>, string>> = {
  name: 'assets_live_name_nocase',
  addedAt: 'assets_live_added',
  size: 'assets_live_size',
};

const SUMMARY_COLUMNS = `a.id, a.name, a.kind, a.format, a.width, a.height, a.duration_s, a.taken_at, a.rating, a.color_label, a.thumb,
  a.has_error, a.keyword_count, (SELECT f.online FROM folders f WHERE f.id = a.folder_id) AS online`;
// Stack size only for the page's rows: one index probe each, not a pass over the library.
const STACK_SIZE = `(SELECT count(*) FROM assets s WHERE s.folder_id = a.folder_id AND s.stack_key = a.stack_key AND s.removed_at IS NULL)`;
// The similar group (stored groups, migration 24): one primary-key probe each.
const GROUP_COLUMNS = `(SELECT m.group_id FROM similar_members m WHERE m.asset_id = a.id) AS group_id,
  (SELECT g.size FROM similar_members m JOIN similar_groups g ON g.id = m.group_id WHERE m.asset_id = a.id) AS group_size,
  (SELECT g.kind FROM similar_members m JOIN similar_groups g ON g.id = m.group_id WHERE m.asset_id = a.id) AS group_kind`;
const summarySelect = (opts: SearchOptions): string => `SELECT ${SUMMARY_COLUMNS}, ${GROUP_COLUMNS}, ${opts.expandStacks ? '1' : STACK_SIZE} AS stack_size`;

/**
 * From this offset on, a page is cut from the query's whole ordered id list (built once,
 * then remembered while the catalogue is unchanged) instead of LIMIT/OFFSET, which walks
 * and checks every skipped row: a scrollbar dragged deep into a million photos asks for
 * pages far down, again and again.
 */
const DEEP_OFFSET = 2000;

const resultKey = (what: string, query: SearchQuery, opts: SearchOptions): string => JSON.stringify([what, !!opts.expandStacks, query]);

export function search(ctx: LibraryCtx, asked: SearchQuery, page: Page, opts: SearchOptions = {}): SearchResult {
  const query = effectiveQuery(ctx, asked);
  const pageOf = (total: number, ids: Int32Array): SearchResult => ({
    total,
    offset: page.offset,
    items: summariesOf(ctx, ids, opts).map((r) => toSummary(ctx, r)),
  });
  const known = recalled<Int32Array>(ctx.db, resultKey('ids', query, opts));
  if (known) return pageOf(known.length, known.subarray(page.offset, page.offset + page.limit));
  // A new query is only cut (at any depth: the index walks to it); one asked for again (the
  // grid paging through it) keeps its whole ordered list while the catalogue is unchanged.
  const askedKey = resultKey('asked', query, opts);
  const cut = fromIndex(ctx.db, query, !!opts.expandStacks, (m) => {
    if (!recalled(ctx.db, askedKey)) return { total: m.total, ids: m.slice(page.offset, page.limit) };
    const all = remembered(ctx.db, resultKey('ids', query, opts), () => m.slice(0, m.total));
    return { total: all.length, ids: all.subarray(page.offset, page.offset + page.limit) };
  });
  if (cut) {
    remembered(ctx.db, askedKey, () => true);
    return pageOf(cut.total, cut.ids);
  }
  const ordered = page.offset >= DEEP_OFFSET ? orderedIds(ctx, query, opts) : undefined;
  if (ordered) return pageOf(ordered.length, ordered.subarray(page.offset, page.offset + page.limit));
  const f = filtered(ctx, query, opts);
  const { where, params } = f;
  const counts = remembered(ctx.db, resultKey('count', query, opts), () => countMatches(ctx, query, f));
  const list = parts(query);
  const sizes = list.length === 1 ? [counts.n] : [counts.dated, counts.n - counts.dated];
  const rows: SummaryRow[] = [];
  let skip = page.offset;
  list.forEach((part, i) => {
    const want = page.limit - rows.length;
    if (want <= 0) return;
    if (skip >= sizes[i]) {
      skip -= sizes[i];
      return;
    }
    const sql = (from: string) => `${summarySelect(opts)} FROM ${from} WHERE ${where} AND ${part.cond} ORDER BY ${part.order} LIMIT ? OFFSET ?`;
    const index = part.index && walkOrderIndex(ctx, sizes[i], skip + want) ? part.index : null;
    rows.push(...(preparedWithIndex(ctx, sql, index).all(...params, want, skip) as SummaryRow[]));
    skip = 0;
  });
  return { total: counts.n, offset: page.offset, items: rows.map((r) => toSummary(ctx, r)) };
}

/**
 * Whether a page is best read by walking the sort's own index and testing the filter on each
 * row, rather than letting SQLite start from a filter's index and sort all `matches` rows to
 * return the first few. SQLite cannot know how many matches there are; we just counted them.
 * Walking reads about `upTo` x (assets / matches) rows; the other way sorts `matches` rows.
 * So a broad filter (4+ stars: a third of the library) walks, a narrow one (a rare keyword)
 * sorts its handful. max(id) stands in for the asset count (an upper bound, read in O(log n)).
 */
function walkOrderIndex(ctx: LibraryCtx, matches: number, upTo: number): boolean {
  if (matches === 0) return false;
  const assets = (prepared(ctx.db, 'SELECT coalesce(max(id), 0) AS n FROM assets').get() as { n: number }).n;
  return upTo * (assets / matches) < matches;
}

/** The statement reading FROM assets, through `index` when one is given and usable. */
function preparedWithIndex(ctx: LibraryCtx, sql: (from: string) => string, index: string | null) {
  if (index) {
    try {
      return prepared(ctx.db, sql(`assets a INDEXED BY ${index}`));
    } catch {
      // 'no query solution': this shape cannot use the index; SQLite plans it itself.
    }
  }
  return prepared(ctx.db, sql('assets a'));
}

/** The grid summaries of `ids` (stacks as the grid shows them), in that order; ids not in the catalogue are left out. */
export function summariesByIds(ctx: LibraryCtx, ids: readonly number[]): AssetSummary[] {
  return summariesOf(ctx, Int32Array.from(ids), {}).map((r) => toSummary(ctx, r));
}

/** The summary rows of `ids`, in that order. */
function summariesOf(ctx: LibraryCtx, ids: Int32Array, opts: SearchOptions): SummaryRow[] {
  if (ids.length === 0) return [];
  const sql = `${summarySelect(opts)} FROM assets a WHERE a.id IN (SELECT value FROM json_each(?))`;
  const byId = new Map((prepared(ctx.db, sql).all(JSON.stringify(Array.from(ids))) as SummaryRow[]).map((r) => [r.id, r]));
  return Array.from(ids, (id) => byId.get(id)).filter((r): r is SummaryRow => r !== undefined);
}

/** Every matching id in display order (for "select all matching"); `limit` caps the list. */
export function searchIds(ctx: LibraryCtx, asked: SearchQuery, opts: SearchOptions & { limit?: number } = {}): number[] {
  const query = effectiveQuery(ctx, asked);
  if (opts.limit === undefined) {
    const known = recalled<Int32Array>(ctx.db, resultKey('ids', query, opts));
    if (known) return toArray(known);
    // Straight into a plain array: "select all" is not paged through afterwards.
    return fromIndex(ctx.db, query, !!opts.expandStacks, (m) => m.array()) ?? toArray(orderedIds(ctx, query, opts));
  }
  const known = recalled<Int32Array>(ctx.db, resultKey('ids', query, opts)) ?? indexedIds(ctx, query, opts);
  return known ? toArray(known.subarray(0, opts.limit)) : listIds(ctx, query, opts, opts.limit);
}

/**
 * Every matching id in display order as a typed array of its own (the Api's answer: a million
 * ids cross to the window as one copy of 4 MB, where a plain array costs ~50 ms of serialising
 * on the main process, and no plain array is made here either).
 */
export function matchingIds(ctx: LibraryCtx, asked: SearchQuery, opts: SearchOptions = {}): Int32Array {
  const query = effectiveQuery(ctx, asked);
  const known = recalled<Int32Array>(ctx.db, resultKey('ids', query, opts));
  if (known) return known.slice();
  return fromIndex(ctx.db, query, !!opts.expandStacks, (m) => m.slice(0, m.total)) ?? orderedIds(ctx, query, opts).slice();
}

/** All matching ids in display order, remembered while the catalogue is unchanged. */
function orderedIds(ctx: LibraryCtx, query: SearchQuery, opts: SearchOptions): Int32Array {
  return (
    recalled<Int32Array>(ctx.db, resultKey('ids', query, opts)) ??
    indexedIds(ctx, query, opts) ??
    remembered(ctx.db, resultKey('ids', query, opts), () => Int32Array.from(listIds(ctx, query, opts, -1)))
  );
}

/**
 * All matching ids in display order from the in-memory catalogue index (see
 * catalogue-index/), remembered like any result; undefined when the index cannot answer.
 */
function indexedIds(ctx: LibraryCtx, query: SearchQuery, opts: SearchOptions): Int32Array | undefined {
  return fromIndex(ctx.db, query, !!opts.expandStacks, (m) => remembered(ctx.db, resultKey('ids', query, opts), () => m.slice(0, m.total)));
}

/** The first `limit` matching ids in display order (-1: all of them). */
function listIds(ctx: LibraryCtx, query: SearchQuery, opts: SearchOptions, limit: number): number[] {
  const { where, params } = filtered(ctx, query, opts);
  let ids: number[] = [];
  for (const part of parts(query)) {
    const want = limit < 0 ? -1 : limit - ids.length; // SQLite: LIMIT -1 is no limit.
    if (want === 0) break;
    const stmt = prepared(ctx.db, `SELECT a.id FROM assets a WHERE ${where} AND ${part.cond} ORDER BY ${part.order} LIMIT ?`);
    // concat, not push(...): a million ids would overflow the call stack as arguments.
    ids = ids.concat(stmt.pluck().all(...params, want) as number[]);
  }
  return ids;
}

export function facets(ctx: LibraryCtx): Facets {
  const indexed = indexedFacets(ctx);
  if (indexed) return indexed;
  const db = ctx.db;
  const cameras = prepared(
    db,
    // GROUP BY 1, not the alias: `name` would mean the assets.name column (the file name).
    `SELECT coalesce(camera_model, camera_make) AS camera, count(*) AS count FROM assets
     WHERE removed_at IS NULL AND coalesce(camera_model, camera_make) IS NOT NULL
     GROUP BY 1 ORDER BY count DESC, camera`,
  ).all() as { camera: string; count: number }[];
  const kinds = prepared(db, 'SELECT kind, count(*) AS count FROM assets WHERE removed_at IS NULL GROUP BY kind ORDER BY count DESC, kind').all() as {
    kind: AssetKind;
    count: number;
  }[];
  const total = kinds.reduce((n, k) => n + k.count, 0);
  return { cameras: cameras.map((c) => ({ name: c.camera, count: c.count })), kinds, total };
}
