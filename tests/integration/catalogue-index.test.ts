import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { SearchQuery } from '../../src-preload/contract';
import { currentIndex, indexBuilds, indexOptions, indexReady, startCatalogueIndex, useCatalogueIndex } from '../../src-main/search/catalogue-index';
import { openLibrary, type LibraryCtx } from '../../src-main/library/context';
import { listKeywords } from '../../src-main/library/edits';
import { listFolders } from '../../src-main/library/folders';
import { facets, matchingIds, search, searchIds } from '../../src-main/search/search';
import { listLibraryKeywords } from '../../src-main/workflows/vocabulary';
import { seedAssets, seedFolder, type SeedAsset } from '../helpers/seed';

// The in-memory catalogue index must answer every query exactly as the SQL does: the same
// ids in the same order, stacks folded the same way, after any kind of change. Two
// connections to one catalogue: `ix` searches through the index, `sql` (index off) is the
// reference.

const WORDS = ['beach', 'Beach', 'sunset', 'sun', 'dog', 'sky', 'Öl', 'café', 'night', 'city', 'snow', 'bird'];
const CAMERAS: [string | null, string | null][] = [['Canon', 'Canon EOS R5'], ['SONY', 'ILCE-7M3'], ['Apple', null], [null, null]];

function rng(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s / 0x7fffffff;
  };
}

function library(seed: number, count: number): { ix: LibraryCtx; sql: LibraryCtx; folders: number[]; rand: () => number } {
  const dir = mkdtempSync(join(tmpdir(), 'tagsmith-index-'));
  const ix = openLibrary(dir);
  const rand = rng(seed);
  const pick = <T,>(list: readonly T[]): T => list[Math.floor(rand() * list.length)];
  const folders = [seedFolder(ix.db, '/a'), seedFolder(ix.db, '/b'), seedFolder(ix.db, '/c')];
  const assets: SeedAsset[] = [];
  for (let n = 0; n < count; n++) {
    const folderId = pick(folders);
    // Few distinct names and dates, so ties (and case-only differences) are everywhere.
    const stem = `${pick(['img', 'IMG', 'Img', 'dsc', 'é'])}_${Math.floor(rand() * 40)}`;
    const dated = rand() < 0.8;
    const takenAt = dated ? `20${10 + Math.floor(rand() * 12)}-0${1 + Math.floor(rand() * 9)}-1${Math.floor(rand() * 9)}T1${Math.floor(rand() * 3)}:00:00${rand() < 0.2 ? '+02:00' : ''}` : null;
    const [cameraMake, cameraModel] = pick(CAMERAS);
    const common: Omit<SeedAsset, 'relPath'> = {
      folderId,
      kind: rand() < 0.1 ? 'video' : rand() < 0.05 ? 'audio' : 'image',
      size: Math.floor(rand() * 50) * 1000,
      takenAt,
      cameraMake,
      cameraModel,
      rating: Math.floor(rand() * 6),
      keywords: rand() < 0.2 ? [] : [...new Set(Array.from({ length: 1 + Math.floor(rand() * 4) }, () => pick(WORDS).toLowerCase()))],
      caption: rand() < 0.3 ? `${pick(WORDS)} and ${pick(WORDS)}` : null,
      title: rand() < 0.1 ? pick(WORDS) : null,
      contentHash: rand() < 0.1 ? `dup${Math.floor(rand() * 30)}` : rand() < 0.05 ? null : `h${n}`,
      hasError: rand() < 0.05,
      addedAt: 1_700_000_000_000 + Math.floor(rand() * 100),
      removedAt: rand() < 0.05 ? 1 : null,
    };
    const r = rand();
    if (r < 0.1) {
      // RAW+JPEG (the JPEG may come later or earlier than the RAW), or two RAWs of one shot.
      const pair: SeedAsset[] = [
        { ...common, relPath: `s${n}/${stem}.CR2`, isRaw: true, format: 'cr2', contentHash: `r${n}` },
        rand() < 0.3 ? { ...common, relPath: `s${n}/${stem}.NEF`, isRaw: true, format: 'nef', contentHash: `n${n}`, rating: Math.floor(rand() * 6) }
          : { ...common, relPath: `s${n}/${stem}.jpg`, rating: Math.floor(rand() * 6), keywords: rand() < 0.5 ? common.keywords : ['sky'] },
      ];
      assets.push(...(rand() < 0.5 ? pair : pair.reverse()));
    } else {
      assets.push({ ...common, relPath: `d${n % 7}/${n}/${stem}.${pick(['jpg', 'png', 'mp4'])}` });
    }
  }
  seedAssets(ix.db, assets);
  // Flags are not part of the seed helper.
  ix.db.prepare("UPDATE assets SET flag = CASE id % 7 WHEN 1 THEN 'pick' WHEN 2 THEN 'reject' END").run();
  // Colour labels as files hold them: Lightroom's names, other spellings, padding, another program's label, blank.
  ix.db.prepare("UPDATE assets SET color_label = CASE id % 9 WHEN 1 THEN 'Red' WHEN 2 THEN 'yellow' WHEN 3 THEN ' Green ' WHEN 4 THEN 'Approved' WHEN 5 THEN '' WHEN 6 THEN 'Purple' WHEN 7 THEN 'BLUE' END").run();
  // Exposure (migration 13): lens names in several cases, values missing now and then.
  ix.db.prepare(`UPDATE assets SET lens = CASE id % 5 WHEN 0 THEN NULL WHEN 1 THEN 'EF50mm f/1.8 STM' WHEN 2 THEN 'RF24-70mm F2.8 L' WHEN 3 THEN 'xf35mmF1.4 R' ELSE 'Summilux-M 35' END,
    iso = CASE WHEN id % 6 = 0 THEN NULL ELSE (id % 8) * 200 + 100 END,
    focal_length = CASE WHEN id % 7 = 0 THEN NULL ELSE 12 + (id % 11) * 9.5 END,
    aperture = CASE WHEN id % 9 = 0 THEN NULL ELSE 1.4 + (id % 6) * 1.4 END`).run();
  seedSimilarGroups(ix, rand);
  const sql = openLibrary(dir);
  useCatalogueIndex(sql.db, false);
  // As the app does when it opens a library (a CLI command keeps no index).
  startCatalogueIndex(ix.db);
  return { ix, sql, folders, rand };
}

/** Stored similar groups (migration 24) as the grouping writes them: random groups of 2-5, marked current. */
function seedSimilarGroups(ctx: LibraryCtx, rand: () => number): void {
  const db = ctx.db;
  const ids = db.prepare('SELECT id FROM assets ORDER BY id').pluck().all() as number[];
  let i = 0;
  while (i < ids.length) {
    const size = 2 + Math.floor(rand() * 4);
    if (rand() < 0.6 || i + size > ids.length) {
      i++;
      continue;
    }
    const members = ids.slice(i, i + size);
    db.prepare('INSERT INTO similar_groups (id, kind, best_id, size) VALUES (?, ?, ?, ?)').run(members[0], rand() < 0.5 ? 'burst' : 'similar', members[Math.floor(rand() * size)], size);
    members.forEach((m, k) => db.prepare('INSERT INTO similar_members (asset_id, group_id, position) VALUES (?, ?, ?)').run(m, members[0], k));
    i += size;
  }
  db.prepare('UPDATE similarity_state SET grouped = changes').run();
}

function randomQuery(rand: () => number, folders: number[]): SearchQuery {
  const pick = <T,>(list: readonly T[]): T => list[Math.floor(rand() * list.length)];
  const q: SearchQuery = {};
  const maybe = (p: number) => rand() < p;
  if (maybe(0.25)) q.text = pick(['be', 'sun', 'beach sky', 'img', 'IMG_1', 'cafe', 'öl', 'dsc', 'zzz', 'ni']);
  if (maybe(0.2)) q.kinds = maybe(0.5) ? [pick(['image', 'video', 'audio'] as const)] : ['image', 'video'];
  if (maybe(0.15)) q.folderId = pick(folders);
  if (maybe(0.2)) q.keywords = maybe(0.7) ? [pick(WORDS)] : [pick(WORDS), pick(WORDS)];
  if (maybe(0.15)) q.withoutKeywords = [pick(WORDS)];
  if (maybe(0.1)) q.noKeywords = true;
  if (maybe(0.25)) q.minRating = Math.floor(rand() * 6);
  if (maybe(0.2)) q.takenFrom = pick(['2012-01-01', '2015-05-13', '2030-01-01']);
  if (maybe(0.2)) q.takenTo = pick(['2014-12-31', '2016-05-13', '2011-01-01']);
  if (maybe(0.15)) q.camera = pick(['Canon EOS R5', 'SONY', 'Apple', 'Leica']);
  if (maybe(0.15)) q.similarGroups = pick(['any', 'burst'] as const);
  if (maybe(0.3)) q.foldGroups = true;
  if (q.foldGroups && maybe(0.5)) q.expandedGroups = Array.from({ length: 1 + Math.floor(rand() * 5) }, () => 1 + Math.floor(rand() * 60));
  if (maybe(0.12)) q.lens = pick(['ef50', 'MM', 'summilux', '35', 'zzz', 'f1.4']);
  // Bounds on the stored values themselves (inclusive ends are where the two could differ) and between them.
  const range = (bounds: number[]) => {
    const [a, b] = [pick(bounds), pick(bounds)].sort((x, y) => x - y);
    return pick([{ min: a }, { max: b }, { min: a, max: b }, { min: a, max: a }]);
  };
  if (maybe(0.15)) q.iso = range([100, 300, 500, 700, 1000, 1500, 3200]);
  if (maybe(0.12)) q.focalLength = range([12, 21.5, 40.5, 50, 107, 200]);
  if (maybe(0.12)) q.aperture = range([0.95, 1.4, 2.8, 4.2, 5, 8.4]);
  if (maybe(0.1)) q.duplicatesOnly = true;
  if (maybe(0.1)) q.errorsOnly = true;
  if (maybe(0.1)) q.flag = pick(['pick', 'reject', 'unflagged'] as const);
  if (maybe(0.15)) q.label = pick(['red', 'yellow', 'green', 'blue', 'purple', 'none'] as const);
  if (maybe(0.7)) q.sort = pick(['takenAt', 'name', 'addedAt', 'size'] as const);
  if (maybe(0.5)) q.order = pick(['asc', 'desc'] as const);
  return q;
}

/** Many random queries: the index and SQL give the same ids in the same order, collapsed and expanded. */
function agree(ix: LibraryCtx, sql: LibraryCtx, rand: () => number, folders: number[], queries: number): void {
  let nonEmpty = 0;
  for (let i = 0; i < queries; i++) {
    const q = randomQuery(rand, folders);
    for (const expandStacks of [false, true]) {
      const want = searchIds(sql, q, { expandStacks });
      expect(searchIds(ix, q, { expandStacks }), `${JSON.stringify(q)} expand=${expandStacks}`).toEqual(want);
      if (want.length) nonEmpty++;
    }
    const page = { offset: Math.floor(rand() * 40), limit: 25 };
    const got = search(ix, q, page);
    const ref = search(sql, q, page);
    expect(got.total).toBe(ref.total);
    expect(got.items).toEqual(ref.items);
    // The Api's typed answer: the same ids, before and after the grid's paging remembers the
    // result (a second page request does), and each answer its caller's own copy.
    const want = searchIds(sql, q);
    for (const ctx of [ix, sql]) {
      const typed = matchingIds(ctx, q);
      expect(Array.from(typed), JSON.stringify(q)).toEqual(want);
      search(ctx, q, page);
      typed.fill(-1);
      const again = matchingIds(ctx, q);
      expect(Array.from(again), JSON.stringify(q)).toEqual(want);
      again.fill(-1);
      expect(Array.from(matchingIds(ctx, q)), JSON.stringify(q)).toEqual(want);
    }
  }
  // The queries are not all trivially empty.
  expect(nonEmpty).toBeGreaterThan(queries / 2);
  unfilteredAgree(ix, sql, rand);
  countsAgree(ix, sql);
}

/** The counts the sidebar and the keyword panels show: from the index's columns and postings, as SQL's GROUP BY gives them. */
function countsAgree(ix: LibraryCtx, sql: LibraryCtx): void {
  expect(facets(ix)).toEqual(facets(sql));
  expect(listFolders(ix)).toEqual(listFolders(sql));
  expect(listLibraryKeywords(ix)).toEqual(listLibraryKeywords(sql));
  for (const prefix of ['', 's', 'B', 'sun', 'ö', 'zzz']) {
    for (const limit of [3, 50]) expect(listKeywords(ix, prefix, limit), `${prefix} ${limit}`).toEqual(listKeywords(sql, prefix, limit));
  }
}

/**
 * No filter at all (the grid's opening view; a sort on its own; empty fields as the app sends
 * them): answered from the unfiltered view the index keeps current. Every sort, both ways,
 * every id and a page of summaries.
 */
function unfilteredAgree(ix: LibraryCtx, sql: LibraryCtx, rand: () => number): void {
  for (const sort of ['takenAt', 'name', 'addedAt', 'size'] as const) {
    for (const order of ['asc', 'desc'] as const) {
      const q: SearchQuery = rand() < 0.5 ? { sort, order } : { sort, order, text: '', kinds: [], keywords: [], withoutKeywords: [] };
      const want = searchIds(sql, q);
      expect(searchIds(ix, q), JSON.stringify(q)).toEqual(want);
      const page = { offset: Math.floor(rand() * 40), limit: 25 };
      const got = search(ix, q, page);
      const ref = search(sql, q, page);
      expect(got.total, JSON.stringify(q)).toBe(want.length);
      expect(got.items, JSON.stringify(q)).toEqual(ref.items);
    }
  }
}

describe('catalogue index', () => {
  it('is kept only by a process that asks for it (the app), not by a one-shot CLI command', () => {
    const ctx = openLibrary(mkdtempSync(join(tmpdir(), 'tagsmith-index-')));
    seedAssets(ctx.db, [{ folderId: seedFolder(ctx.db, '/x'), relPath: 'a.jpg' }]);
    expect(searchIds(ctx, {})).toHaveLength(1);
    expect(currentIndex(ctx.db)).toBeNull();
    startCatalogueIndex(ctx.db);
    expect(currentIndex(ctx.db)).not.toBeNull();
    expect(searchIds(ctx, {})).toHaveLength(1);
  });

  it('answers random queries exactly as SQL does', () => {
    const { ix, sql, folders, rand } = library(7, 1500);
    const index = currentIndex(ix.db);
    expect(index).not.toBeNull();
    agree(ix, sql, rand, folders, 300);
    // Never found out of step (that would drop it and let SQL answer instead).
    expect(currentIndex(ix.db)).toBe(index);
  });

  it('stays exact through edits made on its own connection, without being rebuilt', () => {
    const { ix, sql, folders, rand } = library(11, 800);
    const index = currentIndex(ix.db);
    agree(ix, sql, rand, folders, 20);
    const db = ix.db;
    const ids = (db.prepare('SELECT id FROM assets ORDER BY id').pluck().all() as number[]);
    const some = (n: number) => Array.from({ length: n }, () => ids[Math.floor(rand() * ids.length)]);
    const edits: [string, () => void][] = [
      ['ratings and flags', () => some(60).forEach((id, i) => db.prepare('UPDATE assets SET rating = ?, flag = ? WHERE id = ?').run(i % 6, i % 3 ? 'pick' : null, id))],
      ['colour labels set and cleared', () => some(60).forEach((id, i) => db.prepare('UPDATE assets SET color_label = ? WHERE id = ?').run([null, 'Blue', 'red', 'Other'][i % 4], id))],
      ['keywords added and removed', () => {
        for (const id of some(80)) {
          const kw = db.prepare('INSERT INTO keywords (name) VALUES (?) ON CONFLICT (name) DO UPDATE SET name = name RETURNING id').pluck().get(WORDS[id % WORDS.length]) as number;
          db.prepare('INSERT OR IGNORE INTO asset_keywords (asset_id, keyword_id, position) VALUES (?, ?, 9)').run(id, kw);
          db.prepare('UPDATE assets SET keyword_count = (SELECT count(*) FROM asset_keywords WHERE asset_id = ?) WHERE id = ?').run(id, id);
        }
        for (const id of some(80)) {
          db.prepare('DELETE FROM asset_keywords WHERE asset_id = ?').run(id);
          db.prepare("UPDATE assets SET keyword_count = 0, keywords_text = '' WHERE id = ?").run(id);
        }
      }],
      ['a keyword deleted', () => db.prepare("DELETE FROM keywords WHERE name = 'dog'").run()],
      ['the newest keyword deleted and its id taken by a new one (its old links must not come back)', () => {
        const newest = db.prepare('SELECT max(id) FROM keywords').pluck().get() as number;
        expect(db.prepare('SELECT count(*) FROM asset_keywords WHERE keyword_id = ?').pluck().get(newest)).toBeGreaterThan(0);
        db.prepare('DELETE FROM keywords WHERE id = ?').run(newest);
        // SQLite hands out max(id) + 1, so a deleted newest id comes back: the same id, explicitly.
        db.prepare("INSERT INTO keywords (id, name) VALUES (?, 'Zebra')").run(newest);
        for (const id of some(5)) db.prepare('INSERT OR IGNORE INTO asset_keywords (asset_id, keyword_id, position) VALUES (?, ?, 0)').run(id, newest);
        expect(searchIds(ix, { keywords: ['zebra'] }, { expandStacks: true })).toEqual(searchIds(sql, { keywords: ['zebra'] }, { expandStacks: true }));
      }],
      ['a keyword merged into another', () => {
        const from = db.prepare("SELECT id FROM keywords WHERE name = 'snow'").pluck().get() as number;
        const to = db.prepare("SELECT id FROM keywords WHERE name = 'night'").pluck().get() as number;
        db.prepare('DELETE FROM asset_keywords WHERE keyword_id = ? AND asset_id IN (SELECT asset_id FROM asset_keywords WHERE keyword_id = ?)').run(from, to);
        db.prepare('UPDATE asset_keywords SET keyword_id = ? WHERE keyword_id = ?').run(to, from);
      }],
      ['files removed and revived', () => {
        some(50).forEach((id) => db.prepare('UPDATE assets SET removed_at = 5 WHERE id = ?').run(id));
        some(30).forEach((id) => db.prepare('UPDATE assets SET removed_at = NULL WHERE id = ?').run(id));
      }],
      ['renames, new dates, sizes (sort keys)', () => some(40).forEach((id, i) =>
        db.prepare("UPDATE assets SET name = ?, taken_at = ?, size = ?, added_at = ? WHERE id = ?").run(`Zed_${i}.jpg`, i % 4 ? `2013-0${1 + (i % 9)}-01T00:00:00` : null, i * 7, 1_800_000_000_000 - i, id))],
      ['contents changed (duplicates)', () => some(40).forEach((id, i) => db.prepare('UPDATE assets SET content_hash = ? WHERE id = ?').run(i % 3 ? `dup${i % 5}` : null, id))],
      ['a scan batch: only new files, placed first, last and between in every order', () => {
        seedAssets(db, Array.from({ length: 30 }, (_, i) => ({
          folderId: folders[i % 3], relPath: `batch/${['!first', 'zzz_last', 'img_1'][i % 3]}${i}.jpg`, size: [0, 10_000_000, 25_000][i % 3],
          takenAt: i % 5 === 4 ? null : ['1990-01-01T00:00:00', '2099-01-01T00:00:00', '2015-05-13T10:00:00'][i % 3], addedAt: [1, 1_900_000_000_000, 1_700_000_000_050][i % 3],
          keywords: ['quoll'],
        })));
        expect(searchIds(ix, { keywords: ['quoll'], sort: 'size' })).toEqual(searchIds(sql, { keywords: ['quoll'], sort: 'size' }));
      }],
      ['files added, some next to existing RAWs and JPEGs', () => {
        const stacks = db.prepare('SELECT folder_id, min(rel_path) AS rel_path FROM assets WHERE is_raw = 1 GROUP BY folder_id, stack_key LIMIT 20').all() as { folder_id: number; rel_path: string }[];
        seedAssets(db, [
          ...stacks.map((s, i) => ({ folderId: s.folder_id, relPath: s.rel_path.replace(/\.[^.]+$/, '.JPG'), keywords: ['sky'], takenAt: '2014-01-01T00:00:00', rating: i % 6 })),
          ...Array.from({ length: 60 }, (_, i) => ({ folderId: folders[i % 3], relPath: `new/${i}.jpg`, keywords: [WORDS[i % WORDS.length].toLowerCase()], caption: 'beach sun', contentHash: `dup${i % 4}`, takenAt: i % 3 ? '2015-05-13T10:00:00' : null })),
        ]);
      }],
      ['files moved between folders and turned into RAW', () => some(30).forEach((id, i) =>
        db.prepare("UPDATE assets SET folder_id = ?, is_raw = ?, stack_key = CASE WHEN ? THEN stack_key ELSE 'moved' || ? END WHERE id = ?").run(folders[i % 3], i % 2, i % 4, i, id))],
      ['rows deleted (folder rows gone)', () => some(40).forEach((id) => db.prepare('DELETE FROM assets WHERE id = ?').run(id))],
      ['kinds, errors and cameras', () => some(40).forEach((id, i) =>
        db.prepare('UPDATE assets SET kind = ?, has_error = ?, camera_model = ?, camera_make = NULL WHERE id = ?').run(['image', 'video', 'audio'][i % 3], i % 2, i % 2 ? 'Leica' : null, id))],
      ['exposure changed', () => some(40).forEach((id, i) =>
        db.prepare('UPDATE assets SET lens = ?, iso = ?, focal_length = ?, aperture = ? WHERE id = ?').run(i % 3 ? 'Noct 58mm' : null, i % 4 ? 3200 : null, i % 2 ? 200 : null, i % 5 ? 0.95 : 2.8, id))],
      ['text changed', () => some(40).forEach((id, i) => db.prepare('UPDATE assets SET caption = ?, title = ? WHERE id = ?').run(i % 2 ? 'sunny beach' : null, 'Café night', id))],
      ['so much text changed that the full-text part is read again', () => {
        currentIndex(db)!.text!.rebuildAt = 50;
        some(200).forEach((id, i) => db.prepare('UPDATE assets SET caption = ? WHERE id = ?').run(i % 2 ? 'Öl painting' : 'img beach', id));
      }],
    ];
    for (const [what, edit] of edits) {
      edit();
      // The seeded similar groups stand (they have no fingerprints to be computed again from).
      db.prepare('UPDATE similarity_state SET grouped = changes').run();
      expect(currentIndex(ix.db), what).toBe(index);
      agree(ix, sql, rand, folders, 25);
    }
  });

  it('is rebuilt after another connection writes, and SQL answers inside a transaction', () => {
    const { ix, sql, folders, rand } = library(23, 600);
    const before = currentIndex(ix.db);
    sql.db.prepare('UPDATE assets SET rating = 5 - rating WHERE id % 2 = 0').run();
    sql.db.prepare("UPDATE assets SET removed_at = 1 WHERE id % 9 = 0").run();
    agree(ix, sql, rand, folders, 40);
    expect(currentIndex(ix.db)).not.toBe(before);
    // A mass of changes on its own connection: built again rather than patched.
    const patched = currentIndex(ix.db);
    indexOptions.rebuildDirty = 100;
    try {
      ix.db.prepare("UPDATE assets SET rating = (rating + 1) % 6, name = 'x' || name WHERE id % 2 = 1").run();
      expect(currentIndex(ix.db)).not.toBe(patched);
    } finally {
      indexOptions.rebuildDirty = 50_000;
    }
    agree(ix, sql, rand, folders, 20);
    const q: SearchQuery = { minRating: 3 };
    const want = searchIds(sql, q);
    try {
      ix.db.transaction(() => {
        ix.db.prepare('UPDATE assets SET rating = 0').run();
        expect(searchIds(ix, q)).toEqual([]);
        throw new Error('roll back');
      })();
    } catch (e) {
      expect((e as Error).message).toBe('roll back');
    }
    expect(searchIds(ix, q)).toEqual(want);
  });

  it('indexes a large catalogue in the background while SQL answers, taking in the edits made meanwhile', async () => {
    const syncMax = indexOptions.syncBuildMax;
    indexOptions.syncBuildMax = 100;
    const tick = () => new Promise((resolve) => setImmediate(resolve));
    try {
      const { ix, sql, folders, rand } = library(31, 900);
      // Started (by library()), building: SQL answers meanwhile.
      expect(currentIndex(ix.db)).toBeNull();
      agree(ix, sql, rand, folders, 10);
      await tick();
      ix.db.prepare('UPDATE assets SET rating = 5 WHERE id % 5 = 0').run();
      await tick();
      await tick();
      ix.db.prepare("UPDATE assets SET caption = 'zebra crossing' WHERE id % 7 = 0").run();
      seedAssets(ix.db, Array.from({ length: 30 }, (_, i) => ({ folderId: folders[i % 3], relPath: `late/${i}.jpg`, keywords: ['zebra'], caption: 'zebra', takenAt: '2016-01-01T00:00:00' })));
      await indexReady(ix.db);
      const index = currentIndex(ix.db);
      expect(index?.text).toBeTruthy();
      // Read by a worker thread over its own connection; this thread only took the arrays in.
      expect(indexBuilds(ix.db)).toEqual({ by: 'worker', count: 1 });
      expect(searchIds(ix, { text: 'zeb' })).toEqual(searchIds(sql, { text: 'zeb' }));
      expect(searchIds(ix, { keywords: ['zebra'], minRating: 0 })).toHaveLength(30);
      agree(ix, sql, rand, folders, 60);
      expect(currentIndex(ix.db)).toBe(index);
    } finally {
      indexOptions.syncBuildMax = syncMax;
    }
  });

  it('folds RAW+JPEG stacks exactly after a worker-built index takes stack changes on its own connection', async () => {
    const syncMax = indexOptions.syncBuildMax;
    indexOptions.syncBuildMax = 100;
    try {
      const { ix, sql, folders, rand } = library(41, 900);
      const f = folders[0];
      // Three shots: a RAW with its JPEG, a RAW alone, and a RAW whose JPEG will be deleted.
      const [raw1, jpg1, raw2, raw3, jpg3] = seedAssets(ix.db, [
        { folderId: f, relPath: 'stk/one.CR2', isRaw: true, format: 'cr2', keywords: ['quoll'] },
        { folderId: f, relPath: 'stk/one.jpg', keywords: ['quoll'] },
        { folderId: f, relPath: 'stk/two.CR2', isRaw: true, format: 'cr2', keywords: ['quoll'] },
        { folderId: f, relPath: 'stk/three.CR2', isRaw: true, format: 'cr2', keywords: ['quoll'] },
        { folderId: f, relPath: 'stk/three.jpg', keywords: ['quoll'] },
      ]);
      await indexReady(ix.db);
      expect(indexBuilds(ix.db)).toEqual({ by: 'worker', count: 1 });
      const index = currentIndex(ix.db);
      // The unfiltered view came from the worker, stacks folded, before any edit.
      unfilteredAgree(ix, sql, rand);
      const quolls = () => searchIds(ix, { keywords: ['quoll'], sort: 'name' });
      expect(new Set(quolls())).toEqual(new Set([jpg1, raw2, jpg3]));
      // The RAW alone gets its JPEG; the third shot's JPEG goes; the first RAW leaves its stack.
      const [jpg2] = seedAssets(ix.db, [{ folderId: f, relPath: 'stk/two.jpg', keywords: ['quoll'] }]);
      ix.db.prepare('DELETE FROM asset_keywords WHERE asset_id = ?').run(jpg3);
      ix.db.prepare('DELETE FROM assets WHERE id = ?').run(jpg3);
      ix.db.prepare("UPDATE assets SET stack_key = 'stk/one-renamed' WHERE id = ?").run(raw1);
      expect(new Set(quolls())).toEqual(new Set([raw1, jpg1, jpg2, raw3]));
      expect(quolls()).toEqual(searchIds(sql, { keywords: ['quoll'], sort: 'name' }));
      expect(searchIds(ix, { keywords: ['quoll'] }, { expandStacks: true })).toEqual(searchIds(sql, { keywords: ['quoll'] }, { expandStacks: true }));
      agree(ix, sql, rand, folders, 40);
      // Taken in where it was, not rebuilt.
      expect(currentIndex(ix.db)).toBe(index);
      expect(indexBuilds(ix.db)).toEqual({ by: 'worker', count: 1 });
    } finally {
      indexOptions.syncBuildMax = syncMax;
    }
  });

  it('is rebuilt in a worker thread after another connection commits, SQL answering until it is in', async () => {
    const syncMax = indexOptions.syncBuildMax;
    indexOptions.syncBuildMax = 100;
    // A worker that fails falls back to reading here, and says so: it must not.
    const errors = vi.spyOn(console, 'error');
    try {
      const { ix, sql, folders, rand } = library(37, 900);
      await indexReady(ix.db);
      expect(indexBuilds(ix.db)).toEqual({ by: 'worker', count: 1 });
      // Every sort order came with it: none is read on this thread at its first use.
      const index = currentIndex(ix.db);
      expect(index?.memoryBytes()).toBeGreaterThan(0);
      sql.db.prepare("UPDATE assets SET rating = 1, name = 'renamed_' || name WHERE id % 3 = 0").run();
      sql.db.prepare("UPDATE assets SET caption = 'quokka' WHERE id % 11 = 0").run();
      // Stale now: dropped, and SQL answers while the worker reads it again.
      expect(currentIndex(ix.db)).toBeNull();
      agree(ix, sql, rand, folders, 10);
      ix.db.prepare('UPDATE assets SET rating = 4 WHERE id % 13 = 0').run();
      await indexReady(ix.db);
      expect(indexBuilds(ix.db)).toEqual({ by: 'worker', count: 2 });
      expect(currentIndex(ix.db)).not.toBe(index);
      expect(searchIds(ix, { text: 'quok' })).toEqual(searchIds(sql, { text: 'quok' }));
      expect(searchIds(ix, { text: 'renamed' })).toEqual(searchIds(sql, { text: 'renamed' }));
      agree(ix, sql, rand, folders, 60);

      // So much text changed on this connection that the full-text part is read again: by a
      // worker too, FTS5 answering text meanwhile, and what changes meanwhile taken in after.
      const rebuilt = currentIndex(ix.db)!;
      rebuilt.text!.rebuildAt = 50;
      ix.db.prepare("UPDATE assets SET caption = 'wombat ' || id WHERE id % 4 = 1").run();
      expect(currentIndex(ix.db)).toBe(rebuilt);
      expect(rebuilt.text).toBeNull();
      expect(searchIds(ix, { text: 'womb' })).toEqual(searchIds(sql, { text: 'womb' }));
      ix.db.prepare("UPDATE assets SET title = 'numbat' WHERE id % 6 = 0").run();
      currentIndex(ix.db);
      await indexReady(ix.db);
      expect(currentIndex(ix.db)).toBe(rebuilt);
      expect(rebuilt.text).not.toBeNull();
      expect(indexBuilds(ix.db)).toEqual({ by: 'worker', count: 2 });
      for (const text of ['womb', 'numbat', 'quokka', 'renamed']) expect(searchIds(ix, { text }), text).toEqual(searchIds(sql, { text }));
      agree(ix, sql, rand, folders, 30);
      expect(errors).not.toHaveBeenCalled();
    } finally {
      errors.mockRestore();
      indexOptions.syncBuildMax = syncMax;
    }
  });
});
