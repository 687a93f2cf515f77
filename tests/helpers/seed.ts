import type { Db } from '../../src-main/library/db';

// Inserts catalogue rows directly, without files or the indexer, so query and edit tests
// (and the search benchmark) can build exactly the library they need. Keyword links are
// written straight into asset_keywords so 100k synthetic rows take seconds, not minutes.

export interface SeedAsset {
  folderId: number;
  relPath: string;
  kind?: 'image' | 'video' | 'audio';
  format?: string;
  isRaw?: boolean;
  size?: number;
  contentHash?: string | null;
  width?: number | null;
  height?: number | null;
  durationS?: number | null;
  takenAt?: string | null;
  cameraMake?: string | null;
  cameraModel?: string | null;
  gps?: { lat: number; lon: number } | null;
  rating?: number;
  caption?: string | null;
  title?: string | null;
  keywords?: string[];
  thumb?: string | null;
  hasError?: boolean;
  addedAt?: number;
  removedAt?: number | null;
}

export function seedFolder(db: Db, path: string, opts: { online?: boolean } = {}): number {
  const info = db.prepare('INSERT INTO folders (path, added_at, online) VALUES (?, ?, ?)').run(path, Date.now(), opts.online === false ? 0 : 1);
  return Number(info.lastInsertRowid);
}

/** Prepared statements for one db, so bulk seeding does not re-prepare per row. */
function seeder(db: Db) {
  const insert = db.prepare(
    `INSERT INTO assets (folder_id, rel_path, name, ext, kind, format, is_raw, size, mtime_ms, content_hash,
       width, height, duration_s, taken_at, camera_make, camera_model, gps_lat, gps_lon, rating, caption, title,
       keywords_text, keyword_count, thumb, stack_key, has_error, added_at, indexed_at, removed_at)
     VALUES (@folderId, @relPath, @name, @ext, @kind, @format, @isRaw, @size, 0, @contentHash,
       @width, @height, @durationS, @takenAt, @cameraMake, @cameraModel, @lat, @lon, @rating, @caption, @title,
       @keywordsText, @keywordCount, @thumb, @stackKey, @hasError, @addedAt, @addedAt, @removedAt)`,
  );
  const findKeyword = db.prepare<[string], { id: number; name: string }>('SELECT id, name FROM keywords WHERE name = ?');
  const insertKeyword = db.prepare<[string]>('INSERT INTO keywords (name) VALUES (?)');
  const link = db.prepare('INSERT INTO asset_keywords (asset_id, keyword_id, position) VALUES (?, ?, ?)');
  const keywordIds = new Map<string, { id: number; name: string }>();

  return (a: SeedAsset): number => {
    const name = a.relPath.slice(a.relPath.lastIndexOf('/') + 1);
    const dot = name.lastIndexOf('.');
    const ext = dot >= 0 ? name.slice(dot + 1).toLowerCase() : '';
    const keywords: { id: number; name: string }[] = [];
    for (const k of a.keywords ?? []) {
      const key = k.toLowerCase();
      let row = keywordIds.get(key) ?? findKeyword.get(k);
      if (!row) row = { id: Number(insertKeyword.run(k).lastInsertRowid), name: k };
      keywordIds.set(key, row);
      keywords.push(row);
    }
    const info = insert.run({
      folderId: a.folderId,
      relPath: a.relPath,
      name,
      ext,
      kind: a.kind ?? 'image',
      format: a.format ?? (ext === 'jpg' ? 'jpeg' : ext),
      isRaw: a.isRaw ? 1 : 0,
      size: a.size ?? 1000,
      contentHash: a.contentHash ?? null,
      width: a.width ?? null,
      height: a.height ?? null,
      durationS: a.durationS ?? null,
      takenAt: a.takenAt ?? null,
      cameraMake: a.cameraMake ?? null,
      cameraModel: a.cameraModel ?? null,
      lat: a.gps?.lat ?? null,
      lon: a.gps?.lon ?? null,
      rating: a.rating ?? 0,
      caption: a.caption ?? null,
      title: a.title ?? null,
      keywordsText: keywords.map((k) => k.name).join('\n'),
      keywordCount: keywords.length,
      thumb: a.thumb ?? null,
      stackKey: (dot >= 0 ? a.relPath.slice(0, a.relPath.length - name.length + dot) : a.relPath).toLowerCase(),
      hasError: a.hasError ? 1 : 0,
      addedAt: a.addedAt ?? Date.now(),
      removedAt: a.removedAt ?? null,
    });
    const id = Number(info.lastInsertRowid);
    keywords.forEach((k, i) => link.run(id, k.id, i));
    return id;
  };
}

/** Insert assets in one transaction; returns their ids in order. */
export function seedAssets(db: Db, assets: SeedAsset[]): number[] {
  const put = seeder(db);
  return db.transaction(() => assets.map(put))();
}

export function seedAsset(db: Db, asset: SeedAsset): number {
  return seedAssets(db, [asset])[0];
}

const WORDS = ['beach', 'sunset', 'mountain', 'city', 'portrait', 'dog', 'cat', 'forest', 'river', 'snow', 'street', 'food',
  'car', 'flower', 'bird', 'night', 'family', 'wedding', 'travel', 'architecture', 'sky', 'sea', 'bridge', 'market'];
const CAMERAS: [string, string][] = [['Canon', 'Canon EOS R5'], ['NIKON CORPORATION', 'NIKON Z 6'], ['SONY', 'ILCE-7M3'], ['Apple', 'iPhone 13'], ['FUJIFILM', 'X-T4']];

/**
 * A synthetic library of `count` assets across `folders` folders, deterministic (seeded
 * PRNG): ~5% RAW+JPEG stacks, ~1% exact duplicates, ~10% without keywords, ~3% videos,
 * ~2% with errors, ~8% without a capture date.
 */
export function seedSyntheticLibrary(db: Db, count: number, folders = 4): { folderIds: number[] } {
  let s = 42;
  const rand = (): number => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s / 0x7fffffff;
  };
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)];
  const folderIds = Array.from({ length: folders }, (_, i) => seedFolder(db, `/synthetic/folder${i}`));
  const put = seeder(db);
  db.transaction(() => {
    let n = 0;
    while (n < count) {
      const folderId = folderIds[n % folders];
      const base = `${2015 + (n % 10)}/roll${Math.floor(n / 500)}/IMG_${String(n).padStart(6, '0')}`;
      const day = new Date(Date.UTC(2015, 0, 1) + Math.floor(rand() * 3650) * 86_400_000).toISOString().slice(0, 10);
      const [make, model] = pick(CAMERAS);
      const kw = rand() < 0.1 ? [] : Array.from(new Set(Array.from({ length: 1 + Math.floor(rand() * 8) }, () => pick(WORDS))));
      const video = rand() < 0.03;
      const common: Omit<SeedAsset, 'relPath'> = {
        folderId,
        kind: video ? 'video' : 'image',
        size: Math.floor(rand() * 20_000_000),
        takenAt: rand() < 0.08 ? null : `${day}T${String(Math.floor(rand() * 24)).padStart(2, '0')}:00:00`,
        cameraMake: make,
        cameraModel: model,
        rating: Math.floor(rand() * 6),
        keywords: kw,
        caption: rand() < 0.3 ? `${pick(WORDS)} and ${pick(WORDS)}` : null,
        hasError: rand() < 0.02,
        contentHash: rand() < 0.01 ? 'dup' + Math.floor(n / 100) : 'h' + n,
        thumb: `thumbs/${n}.jpg`,
        addedAt: 1_700_000_000_000 + n,
      };
      put({ ...common, relPath: base + (video ? '.mp4' : '.jpg') });
      n++;
      if (!video && rand() < 0.05 && n < count) {
        put({ ...common, relPath: base + '.CR2', format: 'cr2', isRaw: true, contentHash: 'r' + n });
        n++;
      }
    }
  })();
  return { folderIds };
}
