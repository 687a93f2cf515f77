import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import type { Db } from '../src-main/library/db';
import { run } from './common';

// Generators for the benchmark's own data. Nothing is downloaded: photographs are synthesised
// (plasma-like sine fields + gradients + shapes, upscaled, with sensor-like noise, so JPEGs
// have realistic entropy and size), videos come from ffmpeg's testsrc2, and catalogues are
// written straight into SQLite with a few INSERT ... SELECT statements.

/** Marker in every generated JPEG's EXIF ImageDescription; its digits are patched per copy. */
const MARKER = 'TAGSMITH-BENCH-';
const MARKER_DIGITS = 10;

function rng(seed: number): () => number {
  let s = (seed * 2654435761) >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 0x100000000;
  };
}

/** A low-resolution "scene": sky-like gradient, rolling sine terrain, some discs and bars. */
function scene(w: number, h: number, seed: number): Buffer {
  const r = rng(seed);
  const px = Buffer.alloc(w * h * 3);
  const waves = Array.from({ length: 5 }, () => ({ fx: (r() * 12 + 1) / w, fy: (r() * 12 + 1) / h, ph: r() * 6.28, a: 20 + r() * 30, c: Math.floor(r() * 3) }));
  const discs = Array.from({ length: 12 }, () => ({ x: r() * w, y: r() * h, rad: (0.02 + r() * 0.12) * w, col: [r() * 255, r() * 255, r() * 255] }));
  const top = [r() * 120, 80 + r() * 120, 150 + r() * 100];
  const bottom = [60 + r() * 140, 50 + r() * 100, r() * 80];
  for (let y = 0; y < h; y++) {
    const t = y / h;
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 3;
      const c = [top[0] + (bottom[0] - top[0]) * t, top[1] + (bottom[1] - top[1]) * t, top[2] + (bottom[2] - top[2]) * t];
      for (const wv of waves) c[wv.c] += wv.a * Math.sin(x * wv.fx * 6.28 + y * wv.fy * 6.28 + wv.ph);
      for (const d of discs) {
        const dx = x - d.x;
        const dy = y - d.y;
        if (dx * dx + dy * dy < d.rad * d.rad) {
          c[0] = c[0] * 0.3 + d.col[0] * 0.7;
          c[1] = c[1] * 0.3 + d.col[1] * 0.7;
          c[2] = c[2] * 0.3 + d.col[2] * 0.7;
        }
      }
      px[i] = c[0] < 0 ? 0 : c[0] > 255 ? 255 : c[0];
      px[i + 1] = c[1] < 0 ? 0 : c[1] > 255 ? 255 : c[1];
      px[i + 2] = c[2] < 0 ? 0 : c[2] > 255 ? 255 : c[2];
    }
  }
  return px;
}

export interface PhotoSpec {
  width: number;
  height: number;
  seed: number;
  format: 'jpeg' | 'png';
  quality?: number;
}

const CAMERAS: [string, string][] = [['Canon', 'Canon EOS R5'], ['NIKON CORPORATION', 'NIKON Z 6'], ['SONY', 'ILCE-7M3'], ['FUJIFILM', 'X-T4']];

/** A photographic-looking picture with EXIF (camera, dates, GPS, a patchable description). */
export async function makePhoto(spec: PhotoSpec): Promise<Buffer> {
  const sw = Math.max(64, Math.round(spec.width / 8));
  const sh = Math.max(48, Math.round(spec.height / 8));
  const base = await sharp(scene(sw, sh, spec.seed), { raw: { width: sw, height: sh, channels: 3 } })
    .resize(spec.width, spec.height, { kernel: 'cubic' })
    .raw()
    .toBuffer();
  const noise = await sharp({ create: { width: spec.width, height: spec.height, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 22 } } })
    .raw()
    .toBuffer();
  // Blend fine noise in: texture a JPEG encoder has to work for, like foliage or sensor grain.
  for (let i = 0; i < base.length; i++) {
    const v = base[i] + ((noise[i] - 128) >> 1);
    base[i] = v < 0 ? 0 : v > 255 ? 255 : v;
  }
  const [make, model] = CAMERAS[spec.seed % CAMERAS.length];
  const day = String(1 + (spec.seed % 28)).padStart(2, '0');
  const img = sharp(base, { raw: { width: spec.width, height: spec.height, channels: 3 } }).withExif({
    IFD0: { Make: make, Model: model, ImageDescription: MARKER + '0'.repeat(MARKER_DIGITS), DateTime: `2023:06:${day} 10:00:00`, Software: 'tagsmith-bench' },
    IFD2: { DateTimeOriginal: `2023:06:${day} 10:00:00`, ExposureTime: '1/250', FNumber: '8', ISOSpeedRatings: '200' },
  });
  return spec.format === 'png' ? img.png({ compressionLevel: 6 }).toBuffer() : img.jpeg({ quality: spec.quality ?? 90 }).toBuffer();
}

/**
 * A copy of a generated JPEG whose bytes (and so content hash) are unique: the digits of the
 * EXIF description are replaced in place, same length, so the file stays valid. Thumbnails
 * are keyed by content hash, so unique copies are what keeps a scan from reusing one.
 */
export function uniqueCopy(src: Buffer, n: number): Buffer {
  const at = src.indexOf(MARKER, 0, 'latin1');
  if (at < 0) throw new Error('bench photo without its EXIF marker');
  const out = Buffer.from(src);
  out.write(String(n).padStart(MARKER_DIGITS, '0'), at + MARKER.length, 'latin1');
  return out;
}

/** A few short H.264 videos (testsrc2 + a tone), with a creation time. */
export async function makeVideos(dir: string, count: number, seconds = 6): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const f = join(dir, `clip_${String(i).padStart(3, '0')}.mp4`);
    const secs = seconds + (i % 5);
    await run('ffmpeg', [
      '-nostdin', '-v', 'error', '-y', '-f', 'lavfi', '-i', `testsrc2=size=1280x720:rate=30:duration=${secs}`,
      '-f', 'lavfi', '-i', `sine=frequency=${300 + i * 20}:duration=${secs}`,
      '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest',
      '-metadata', `creation_time=2023-07-${String(1 + (i % 28)).padStart(2, '0')}T12:00:00Z`, '-metadata', `comment=bench ${i}`, f,
    ]);
    out.push(f);
  }
  return out;
}

/** How many of each image kind a mixed tree holds. */
export interface MixSpec {
  jpeg24: number;
  jpeg12: number;
  jpeg3: number;
  png: number;
  videos: number;
}

const SIZES = { jpeg24: [6000, 4000], jpeg12: [4240, 2832], jpeg3: [2048, 1536], png: [1600, 1200] } as const;

/**
 * A mixed folder tree (dated sub-folders of 100), every file unique. A handful of base
 * pictures per kind are synthesised; the rest are unique-bytes copies of them.
 */
export async function makeMixedTree(root: string, mix: MixSpec, bases = 6): Promise<{ files: number; bytes: number }> {
  let files = 0;
  let bytes = 0;
  let n = 0;
  const put = async (name: string, data: Buffer): Promise<void> => {
    const dir = join(root, `2023-${String(1 + Math.floor(n / 100)).padStart(3, '0')}`);
    if (!existsSync(dir)) mkdirSync(dir, { recursive: true });
    await writeFile(join(dir, name), data);
    files++;
    bytes += data.length;
    n++;
  };
  for (const kind of ['jpeg24', 'jpeg12', 'jpeg3'] as const) {
    const count = mix[kind];
    if (count === 0) continue;
    const [w, h] = SIZES[kind];
    const pool: Buffer[] = [];
    for (let b = 0; b < Math.min(bases, count); b++) {
      pool.push(await withExifThumbnail(await makePhoto({ width: w, height: h, seed: 1000 + b * 7 + w, format: 'jpeg' }), root));
    }
    for (let i = 0; i < count; i++) await put(`${kind}_${String(i).padStart(5, '0')}.jpg`, uniqueCopy(pool[i % pool.length], n + 1));
  }
  // PNGs carry no patchable marker that keeps the CRC valid, so each is its own picture.
  for (let i = 0; i < mix.png; i++) {
    const [w, h] = SIZES.png;
    await put(`png_${String(i).padStart(5, '0')}.png`, await makePhoto({ width: w, height: h, seed: 5000 + i, format: 'png' }));
  }
  if (mix.videos > 0) {
    const vids = await makeVideos(join(root, 'videos'), mix.videos);
    files += vids.length;
  }
  return { files, bytes };
}

/**
 * The photo with a 160 px EXIF thumbnail (IFD1), as every camera and phone writes one: what
 * the scan shows in the grid before the full thumbnail exists. Written by exiftool, which
 * keeps the rest of the EXIF (and so the marker uniqueCopy patches).
 */
async function withExifThumbnail(photo: Buffer, scratchDir: string): Promise<Buffer> {
  await mkdir(scratchDir, { recursive: true });
  const file = join(scratchDir, `.exif-thumb-${process.pid}.jpg`);
  const thumb = join(scratchDir, `.exif-thumb-${process.pid}.thumb.jpg`);
  await writeFile(file, photo);
  await sharp(photo).resize(160, 160, { fit: 'inside' }).jpeg({ quality: 75 }).toFile(thumb);
  await run('exiftool', ['-q', '-overwrite_original', `-ThumbnailImage<=${thumb}`, file]);
  const out = await readFile(file);
  await rm(file, { force: true });
  await rm(thumb, { force: true });
  return out;
}

/** `count` small unique JPEGs (a few KB each) in folders of 500: fast to write, real to scan. */
export async function makeTinyTree(root: string, count: number, size: { width: number; height: number } = { width: 160, height: 120 }): Promise<void> {
  const base = await makePhoto({ ...size, seed: 77, format: 'jpeg', quality: 80 });
  for (let i = 0; i < count; i++) {
    const dir = join(root, `d${String(Math.floor(i / 500)).padStart(4, '0')}`);
    if (i % 500 === 0) mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `IMG_${String(i).padStart(7, '0')}.jpg`), uniqueCopy(base, i + 1));
  }
}

export async function readAll(paths: string[]): Promise<Buffer[]> {
  return Promise.all(paths.map((p) => readFile(p)));
}

// ---- synthetic catalogues -------------------------------------------------------------

export const WORDS = ['beach', 'sunset', 'mountain', 'city', 'portrait', 'dog', 'cat', 'forest', 'river', 'snow', 'street', 'food',
  'car', 'flower', 'bird', 'night', 'family', 'wedding', 'travel', 'architecture', 'sky', 'sea', 'bridge', 'market'];
export const BENCH_CAMERA = 'Canon EOS R5';

/**
 * `count` catalogue rows in four folders, built inside SQLite by INSERT ... SELECT over a
 * recursive sequence (1M rows in about a minute, versus many with one JS call per row).
 * Deterministic, with the same proportions as tests/helpers/seed.ts: ~5% RAW+JPEG stacks,
 * ~2% exact duplicates, ~25% without keywords, ~3% videos, ~2% with errors, ~8% undated.
 * Keyword links, keywords_text and keyword_count agree; FTS is filled by the insert trigger.
 * `thumb` cycles through `thumbs` relative paths (so a UI run can show real images).
 */
export function seedCatalogue(db: Db, count: number, opts: { thumbs?: number } = {}): { assets: number; seconds: number } {
  const t0 = Date.now();
  const main = Math.round(count / 1.05);
  const h1 = '((n * 2654435761 + 97) % 4294967296)';
  const h2 = '((n * 40503 + 12345) * 69069 % 4294967291)';
  const h3 = '((n * 1664525 + 1013904223) % 4294967296)';
  // About three keywords per asset: a 24-bit mask with ~1/8 density, none for 10%.
  const mask = (x: string): string =>
    `(CASE WHEN (${x} % 10) = 3 THEN 0 ELSE ((${x} >> 3) & (${x} >> 7) & (${x} >> 11) & 16777215) END)`;
  db.transaction(() => {
    db.exec('CREATE TEMP TABLE IF NOT EXISTS bench_words (bit INTEGER PRIMARY KEY, name TEXT NOT NULL)');
    db.exec('DELETE FROM temp.bench_words');
    const insWord = db.prepare('INSERT INTO temp.bench_words (bit, name) VALUES (?, ?)');
    const insKw = db.prepare('INSERT OR IGNORE INTO keywords (name) VALUES (?)');
    WORDS.forEach((w, i) => {
      insWord.run(i, w);
      insKw.run(w);
    });
    const insFolder = db.prepare('INSERT INTO folders (path, added_at, online) VALUES (?, ?, 1)');
    const folderIds = [0, 1, 2, 3].map((i) => Number(insFolder.run(`/synthetic/bench${i}-${t0}`, t0).lastInsertRowid));
    db.exec(`CREATE TEMP TABLE IF NOT EXISTS bench_folders (slot INTEGER PRIMARY KEY, id INTEGER NOT NULL)`);
    db.exec('DELETE FROM temp.bench_folders');
    folderIds.forEach((id, slot) => db.prepare('INSERT INTO temp.bench_folders (slot, id) VALUES (?, ?)').run(slot, id));
    const thumbs = opts.thumbs ?? 256;
    db.prepare(
      `WITH RECURSIVE seq(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM seq WHERE n < ?),
       rows AS (SELECT n, (${h1} >> 9) AS a, (${h2} >> 9) AS b, (${h3} >> 9) AS c, ${mask(h1)} AS m FROM seq)
       INSERT INTO assets (folder_id, rel_path, name, ext, kind, format, is_raw, size, mtime_ms, content_hash, width, height,
         duration_s, taken_at, camera_make, camera_model, rating, caption, keywords_text, keyword_count, thumb, stack_key,
         has_error, added_at, indexed_at)
       SELECT (SELECT id FROM temp.bench_folders WHERE slot = n % 4),
         printf('%d/roll%d/IMG_%07d.%s', 2015 + n % 10, n / 500, n, CASE WHEN b % 33 = 0 THEN 'mp4' ELSE 'jpg' END),
         printf('IMG_%07d.%s', n, CASE WHEN b % 33 = 0 THEN 'mp4' ELSE 'jpg' END),
         CASE WHEN b % 33 = 0 THEN 'mp4' ELSE 'jpg' END,
         CASE WHEN b % 33 = 0 THEN 'video' ELSE 'image' END,
         CASE WHEN b % 33 = 0 THEN 'mp4' ELSE 'jpeg' END,
         0, c % 20000000, 0,
         CASE WHEN n % 100 < 2 THEN 'dup' || (n / 100) ELSE 'h' || n END,
         6000, 4000,
         CASE WHEN b % 33 = 0 THEN 5 + b % 50 ELSE NULL END,
         CASE WHEN a % 100 < 8 THEN NULL ELSE strftime('%Y-%m-%dT%H:%M:00', 1420070400 + (b % 3650) * 86400 + (c % 86400), 'unixepoch') END,
         CASE c % 5 WHEN 0 THEN 'Canon' WHEN 1 THEN 'NIKON CORPORATION' WHEN 2 THEN 'SONY' WHEN 3 THEN 'Apple' ELSE 'FUJIFILM' END,
         CASE c % 5 WHEN 0 THEN '${BENCH_CAMERA}' WHEN 1 THEN 'NIKON Z 6' WHEN 2 THEN 'ILCE-7M3' WHEN 3 THEN 'iPhone 13' ELSE 'X-T4' END,
         (a >> 5) % 6,
         CASE WHEN (c >> 3) % 10 < 3 THEN (SELECT name FROM temp.bench_words WHERE bit = a % 24) || ' and ' || (SELECT name FROM temp.bench_words WHERE bit = c % 24) END,
         coalesce((SELECT group_concat(name, char(10)) FROM (SELECT name FROM temp.bench_words WHERE (m >> bit) & 1 ORDER BY bit)), ''),
         (SELECT count(*) FROM temp.bench_words WHERE (m >> bit) & 1),
         printf('bench/%d.jpg', n % ?),
         lower(printf('%d/roll%d/IMG_%07d', 2015 + n % 10, n / 500, n)),
         CASE WHEN (b >> 4) % 50 = 0 THEN 1 ELSE 0 END,
         1700000000000 + n, 1700000000000 + n
       FROM rows`,
    ).run(main - 1, thumbs);
    // Keyword links from the same mask (asset ids follow n in insertion order).
    db.prepare(
      `WITH base AS (SELECT min(id) AS first FROM assets WHERE folder_id IN (SELECT id FROM temp.bench_folders)),
       rows AS (SELECT a.id, a.id - base.first AS n FROM assets a, base WHERE a.folder_id IN (SELECT id FROM temp.bench_folders))
       INSERT INTO asset_keywords (asset_id, keyword_id, position)
       SELECT r.id, k.id, w.bit FROM (SELECT id, ${mask(h1)} AS m FROM rows) r
         JOIN temp.bench_words w ON (r.m >> w.bit) & 1 JOIN keywords k ON k.name = w.name`,
    ).run();
    // RAW twins for ~5% of the images: same stack key, same date, a .CR2 name.
    db.prepare(
      `INSERT INTO assets (folder_id, rel_path, name, ext, kind, format, is_raw, size, mtime_ms, content_hash, width, height,
         taken_at, camera_make, camera_model, rating, keywords_text, keyword_count, thumb, stack_key, has_error, added_at, indexed_at)
       SELECT folder_id, substr(rel_path, 1, length(rel_path) - 3) || 'CR2', substr(name, 1, length(name) - 3) || 'CR2', 'cr2', 'image', 'cr2', 1,
         size * 2, 0, 'r' || id, width, height, taken_at, camera_make, camera_model, rating, '', 0, thumb, stack_key, 0, added_at, indexed_at
       FROM assets WHERE folder_id IN (SELECT id FROM temp.bench_folders) AND kind = 'image' AND id % 20 = 7`,
    ).run();
  })();
  db.exec('ANALYZE');
  const assets = (db.prepare('SELECT count(*) AS n FROM assets WHERE removed_at IS NULL').get() as { n: number }).n;
  return { assets, seconds: (Date.now() - t0) / 1000 };
}

/** Real thumbnail files for a seeded catalogue's `bench/<i>.jpg` paths under the cache dir. */
export async function seedThumbFiles(cacheDir: string, count = 256): Promise<void> {
  const dir = join(cacheDir, 'bench');
  await mkdir(dir, { recursive: true });
  const base = await makePhoto({ width: 400, height: 267, seed: 3, format: 'jpeg', quality: 80 });
  for (let i = 0; i < count; i++) await writeFile(join(dir, `${i}.jpg`), uniqueCopy(base, i));
}
