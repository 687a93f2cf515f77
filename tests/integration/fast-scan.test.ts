import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScanProgress } from '../../src-preload/contract';
import { openLibrary, type LibraryCtx } from '../../src-main/library/context';
import { addFolder } from '../../src-main/library/folders';
import { decodeHeif } from '../../src-main/library/media/heif';
import { mediaHashOfFile } from '../../src-main/library/media-hash';
import { closeMetadataReader } from '../../src-main/metadata/reader';
import { scanFolder } from '../../src-main/library/scan';
import { search } from '../../src-main/search/search';
import { usableAsItIs } from '../../src-main/library/preview-thumbs';
import { ThumbQueue } from '../../src-main/library/thumb-queue';
import { thumbAbsPath, thumbRelPath } from '../../src-main/library/thumbs';
import { until } from '../helpers/until';

// Issue 18 part 2: a new folder shows at the speed of its metadata. The scan records each
// file with the preview already inside it (a JPEG's EXIF thumbnail, a DNG's PreviewImage,
// HEIC's thumbnail item), oriented, as a 'preview' thumbnail; the full thumbnails follow in
// the background, the cells on screen first, and replace the previews. Files made here with
// sharp, Debian's exiftool and heif-enc; the embedded previews are given their own colour so
// that the picture shown says where it came from.

type Rgb = [number, number, number];
const isBlue = ([r, g, b]: Rgb): boolean => b > 160 && r < 100 && g < 110;
const isGreen = ([r, g, b]: Rgb): boolean => g > 160 && r < 100 && b < 100;

let root: string;
let photos: string;
let ctx: LibraryCtx;
let folderId: number;

interface Row {
  id: number;
  rel_path: string;
  thumb: string | null;
  thumb_state: string | null;
  media_hash: string | null;
  width: number | null;
  height: number | null;
}
const rows = (c: LibraryCtx): Map<string, Row> =>
  new Map(c.db.prepare<[], Row>('SELECT id, rel_path, thumb, thumb_state, media_hash, width, height FROM assets').all().map((r) => [r.rel_path, r]));

async function centre(file: string): Promise<{ rgb: Rgb; width: number; height: number }> {
  const { data, info } = await sharp(file).raw().toBuffer({ resolveWithObject: true });
  const at = (Math.floor(info.height / 2) * info.width + Math.floor(info.width / 2)) * info.channels;
  return { rgb: [data[at], data[at + 1], data[at + 2]], width: info.width, height: info.height };
}

const flat = (w: number, h: number, colour: string) => sharp({ create: { width: w, height: h, channels: 3, background: colour } });

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tagsmith-fastscan-')));
  photos = join(root, 'photos');
  const src = join(root, 'src');
  mkdirSync(photos);
  mkdirSync(src);
  // JPEG: blue 1200x800 picture whose EXIF thumbnail is a green 160x120, Orientation 6.
  await flat(1200, 800, '#2040d0').jpeg().toFile(join(photos, 'exif-thumb.jpg'));
  await flat(160, 120, '#20c020').jpeg().toFile(join(src, 'green-thumb.jpg'));
  execFileSync('exiftool', ['-q', '-overwrite_original', '-Orientation#=6', `-ThumbnailImage<=${join(src, 'green-thumb.jpg')}`, join(photos, 'exif-thumb.jpg')]);
  // An upright JPEG (no Orientation) with the same green EXIF thumbnail: stored as it is.
  await flat(1200, 800, '#2040d0').jpeg().toFile(join(photos, 'upright-thumb.jpg'));
  execFileSync('exiftool', ['-q', '-overwrite_original', `-ThumbnailImage<=${join(src, 'green-thumb.jpg')}`, join(photos, 'upright-thumb.jpg')]);
  // DNG (TIFF + DNGVersion) with a green 640x480 PreviewImage.
  await flat(1200, 800, '#2040d0').tiff().toFile(join(photos, 'camera.dng'));
  await flat(640, 480, '#20c020').jpeg().toFile(join(src, 'green-preview.jpg'));
  execFileSync('exiftool', ['-q', '-overwrite_original', '-DNGVersion=1.4.0.0', '-EXIF:Make=Nikon', `-PreviewImage<=${join(src, 'green-preview.jpg')}`, join(photos, 'camera.dng')]);
  // HEIC from heif-enc with a 240 px thumbnail item (thmb), the picture 1200x800.
  await flat(1200, 800, '#2040d0').png().toFile(join(src, 'blue.png'));
  execFileSync('heif-enc', ['-q', '60', '-t', '240', '-o', join(photos, 'phone.heic'), join(src, 'blue.png')]);
  // Without any embedded preview: the placeholder until the full thumbnail.
  await flat(900, 600, '#2040d0').png().toFile(join(photos, 'plain.png'));
  // A few more plain files, for the order of the background queue.
  for (let i = 0; i < 8; i++) await flat(700, 500, '#2040d0').png({ compressionLevel: i % 9 }).toFile(join(photos, `more-${i}.png`));
  const dataDir = join(root, 'data');
  ctx = openLibrary(dataDir);
  folderId = addFolder(ctx, photos).id;
}, 300_000);

afterAll(async () => {
  await closeMetadataReader();
  ctx?.db.close();
  await rm(root, { recursive: true, force: true });
});

describe('a first scan', () => {
  // What the grid has when each batch is first shown: read at the moment the scan announces
  // it (before any full thumbnail of that batch can be queued).
  const firstSeen = new Map<string, Row>();
  /** The number of the scan's announcement in which each file was first in the grid. */
  const seenAt = new Map<string, number>();
  let summaryErrors: unknown[] = [];
  const progress: ScanProgress[] = [];

  beforeAll(async () => {
    let announcements = 0;
    const off = ctx.events.on('libraryChanged', (e) => {
      if (e.reason !== 'scan') return;
      announcements++;
      for (const [rel, row] of rows(ctx)) {
        if (firstSeen.has(rel)) continue;
        firstSeen.set(rel, { ...row });
        seenAt.set(rel, announcements);
      }
    });
    try {
      const summary = await scanFolder(ctx, folderId, { onProgress: (p) => progress.push(p) });
      summaryErrors = summary.errors;
    } finally {
      off();
    }
  }, 300_000);

  it('shows a JPEG at once with its EXIF thumbnail, turned by its orientation', async () => {
    const first = firstSeen.get('exif-thumb.jpg')!;
    expect(first.thumb_state).toBe('preview');
    expect(first.thumb).toMatch(/\.embedded\.jpg$/);
    const pic = await centre(thumbAbsPath(ctx, first.thumb!));
    expect(isGreen(pic.rgb)).toBe(true);
    // 160x120 stored, Orientation 6: shown 120x160.
    expect([pic.width, pic.height]).toEqual([120, 160]);
    expect([first.width, first.height]).toEqual([800, 1200]);
  });

  it("shows an upright JPEG's EXIF thumbnail as the camera stored it (no decode, no re-encode)", async () => {
    const first = firstSeen.get('upright-thumb.jpg')!;
    expect(first.thumb_state).toBe('preview');
    const stored = readFileSync(thumbAbsPath(ctx, first.thumb!));
    const embedded = execFileSync('exiftool', ['-b', '-ThumbnailImage', join(photos, 'upright-thumb.jpg')]);
    expect(stored.equals(embedded)).toBe(true);
    const pic = await centre(thumbAbsPath(ctx, first.thumb!));
    expect(isGreen(pic.rgb)).toBe(true);
    expect([pic.width, pic.height]).toEqual([160, 120]);
  });

  it('catalogues the files that carry no picture first, so their thumbnails start while the rest is read', () => {
    const plain = [...seenAt].filter(([rel]) => rel.endsWith('.png'));
    const pictured = [...seenAt].filter(([rel]) => !rel.endsWith('.png'));
    expect(plain).toHaveLength(9);
    expect(pictured).toHaveLength(4);
    // The walk lists the JPEGs, the DNG and the HEIC among the PNGs; the grid got a PNG first,
    // alone (its thumbnail was the queue's next job), and every PNG before any other file.
    expect(plain.filter(([, n]) => n === 1).length).toBeGreaterThanOrEqual(1);
    expect(pictured.every(([, n]) => n > 1)).toBe(true);
    expect(Math.max(...plain.map(([, n]) => n))).toBeLessThanOrEqual(Math.min(...pictured.map(([, n]) => n)));
  });

  it("takes a shown picture's media hash with its full thumbnail: each byte is hashed once while the grid fills", async () => {
    // Shown (with its preview, or none yet) before its media hash was taken...
    for (const [rel, row] of firstSeen) expect(row.media_hash, rel).toBeNull();
    // ...and when the scan returns, every picture has the one a whole read of the file gives.
    for (const [rel, row] of rows(ctx)) {
      const file = join(photos, rel);
      const format = rel.endsWith('.png') ? 'png' : rel.endsWith('.jpg') ? 'jpeg' : rel.endsWith('.dng') ? 'dng' : 'heic';
      expect(row.media_hash, rel).toBe(await mediaHashOfFile(file, format, readFileSync(file)));
      expect(row.media_hash, rel).toMatch(/^m:[0-9a-f]{64}$/);
    }
  });

  it('says when every file is in the grid and only the full thumbnails are still coming', () => {
    const firstThumbs = progress.findIndex((p) => p.phase === 'thumbnails');
    expect(firstThumbs).toBeGreaterThan(0);
    // Files are recorded first ('indexing'), then only thumbnails are reported, then 'done'.
    expect(progress.slice(0, firstThumbs).every((p) => p.phase !== 'thumbnails' && p.phase !== 'done')).toBe(true);
    const thumbsPhase = progress.slice(firstThumbs, -1);
    expect(thumbsPhase.every((p) => p.phase === 'thumbnails' && p.done === p.found && p.found === 13)).toBe(true);
    expect(thumbsPhase.every((p) => p.thumbnails!.total === 13)).toBe(true);
    const counts = thumbsPhase.map((p) => p.thumbnails!.done);
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    expect(counts[counts.length - 1]).toBe(13);
    expect(progress[progress.length - 1].phase).toBe('done');
  });

  it('shows a DNG at once with its embedded PreviewImage', async () => {
    const first = firstSeen.get('camera.dng')!;
    expect(first.thumb_state).toBe('preview');
    const pic = await centre(thumbAbsPath(ctx, first.thumb!));
    expect(isGreen(pic.rgb)).toBe(true);
    expect(pic.width).toBe(400); // the 640x480 preview, fitted in the 400 px box
  });

  it("shows a HEIC at once with its thumbnail item (not the decoded picture)", async () => {
    const first = firstSeen.get('phone.heic')!;
    expect(first.thumb_state).toBe('preview');
    const pic = await centre(thumbAbsPath(ctx, first.thumb!));
    expect(isBlue(pic.rgb)).toBe(true);
    // The thumbnail item is 240x160: a decode of the 1200x800 picture would give 400x267.
    expect([pic.width, pic.height]).toEqual([240, 160]);
  });

  it('shows a file without an embedded preview as a placeholder first', () => {
    const first = firstSeen.get('plain.png')!;
    expect(first.thumb).toBeNull();
    expect(first.thumb_state).toBe('pending');
  });

  it('returns only when every full thumbnail exists, each replacing its preview', async () => {
    expect(summaryErrors).toEqual([]);
    const now = rows(ctx);
    expect(now.size).toBe(13);
    for (const [rel, row] of now) {
      expect(row.thumb_state, rel).toBe('full');
      expect(row.thumb, rel).not.toMatch(/\.embedded\.jpg$/);
      expect(existsSync(thumbAbsPath(ctx, row.thumb!)), rel).toBe(true);
    }
    // The full thumbnails are the pictures themselves: blue, upright.
    const jpeg = await centre(thumbAbsPath(ctx, now.get('exif-thumb.jpg')!.thumb!));
    expect(isBlue(jpeg.rgb)).toBe(true);
    expect([jpeg.width, jpeg.height]).toEqual([267, 400]);
    const heic = await centre(thumbAbsPath(ctx, now.get('phone.heic')!.thumb!));
    expect([heic.width, heic.height]).toEqual([400, 267]);
    // Every picture has its fingerprint once the scan returns (similar-photo grouping).
    const fps = ctx.db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM asset_fingerprints WHERE phash_hi IS NOT NULL').get()!.n;
    expect(fps).toBe(13);
  });

  it('lists every cell with its own picture and says which one it is', () => {
    const page = search(ctx, { sort: 'name' }, { offset: 0, limit: 100 });
    const byId = new Map([...rows(ctx).values()].map((r) => [r.id, r]));
    for (const item of page.items) {
      const row = byId.get(item.id)!;
      expect(item.thumb).toBe(`m/${encodeURIComponent(thumbAbsPath(ctx, row.thumb!))}`);
      expect(item.thumbState).toBe('full');
    }
    // No two assets of different content share a thumbnail URL.
    expect(new Set(page.items.map((i) => i.thumb)).size).toBe(page.items.length);
  });
});

describe('the background queue', () => {
  /** The scan's thumbnails forgotten, as if a scan had stopped after showing the files; a new queue that notes what it starts. */
  async function forgetThumbnails(): Promise<{ ids: number[]; queue: ThumbQueue; started: number[]; inFlight: number[] }> {
    const all = [...rows(ctx).values()].sort((a, b) => a.rel_path.localeCompare(b.rel_path));
    for (const r of all) await rm(thumbAbsPath(ctx, r.thumb!), { force: true });
    ctx.db.prepare("UPDATE assets SET thumb = NULL, thumb_state = 'pending'").run();
    const started: number[] = [];
    /** At each start, how many thumbnails started before it were still being made. */
    const inFlight: number[] = [];
    const queue: ThumbQueue = new ThumbQueue(ctx, {
      onStart: (id) => {
        inFlight.push(started.filter((s) => queue.owes(s)).length);
        started.push(id);
      },
    });
    return { ids: all.map((r) => r.id), queue, started, inFlight };
  }

  it('makes the thumbnails of the cells on screen first, then those of cells without any picture', async () => {
    const { ids, queue, started } = await forgetThumbnails();
    const onScreen = [ids[ids.length - 1], ids[ids.length - 3], ids[ids.length - 5]];
    // Two files whose cells show no picture yet (no embedded preview) come next.
    const bare = [ids[0], ids[1]];
    queue.setVisible(onScreen);
    queue.add(ids.filter((id) => !bare.includes(id)));
    queue.add(bare, undefined, { bare: true });
    await queue.idle();
    expect(started.slice(0, 5)).toEqual([...onScreen, ...bare]);
    expect([...started].sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b));
    for (const r of rows(ctx).values()) expect(r.thumb_state).toBe('full');
  });

  it('while a scan is still cataloguing, only cells without any picture (or on screen) get theirs', async () => {
    const { ids, queue, started, inFlight } = await forgetThumbnails();
    const bare = [ids[2], ids[4]];
    const release = queue.hold();
    queue.add(ids.filter((id) => !bare.includes(id)));
    queue.add(bare, undefined, { bare: true });
    const state = ctx.db.prepare<[number], { thumb_state: string | null }>('SELECT thumb_state FROM assets WHERE id = ?');
    await until(() => bare.every((id) => state.get(id)!.thumb_state === 'full'), 'the bare cells to get their thumbnails');
    expect(started).toEqual(bare); // nothing else while held
    // Cells with no picture at all are what a new folder still lacks: two of them at a time.
    expect(inFlight).toEqual([0, 1]);
    release();
    await queue.idle();
    expect(started.length).toBe(ids.length);
    for (const r of rows(ctx).values()) expect(r.thumb_state).toBe('full');
  });

  it('while a scan is still cataloguing, the cells on screen that show a preview get theirs one at a time', async () => {
    const { ids, queue, started, inFlight } = await forgetThumbnails();
    const onScreen = [ids[1], ids[3], ids[5]];
    const release = queue.hold();
    queue.setVisible(onScreen);
    queue.add(ids);
    await until(() => started.length === onScreen.length && onScreen.every((id) => !queue.owes(id)), 'the cells on screen to get their thumbnails');
    expect(started).toEqual(onScreen);
    expect(inFlight).toEqual([0, 0, 0]);
    release();
    await queue.idle();
    expect(started.length).toBe(ids.length);
  });

  it('a cell with no picture gets it before its file is hashed, and keeps that picture once hashed (decoded once)', async () => {
    const { ids, queue, started } = await forgetThumbnails();
    const plain = rows(ctx).get('plain.png')!;
    ctx.db.prepare('UPDATE assets SET content_hash = NULL, media_hash = NULL WHERE id = ?').run(plain.id);
    const read = ctx.db.prepare<[number], { content_hash: string | null; media_hash: string | null; thumb: string | null; thumb_state: string | null }>(
      'SELECT content_hash, media_hash, thumb, thumb_state FROM assets WHERE id = ?',
    );
    const release = queue.hold();
    queue.add([plain.id], undefined, { bare: true });
    await until(() => read.get(plain.id)!.thumb !== null, 'the cell to get its picture');
    // In the grid, not hashed yet, still owed the rest of its job.
    const shown = read.get(plain.id)!;
    expect(shown.content_hash).toBeNull();
    expect(shown.thumb_state).toBe('preview');
    expect(queue.owes(plain.id)).toBe(true);
    const picture = readFileSync(thumbAbsPath(ctx, shown.thumb!));
    expect(isBlue((await centre(thumbAbsPath(ctx, shown.thumb!))).rgb)).toBe(true);
    release();
    await queue.idle();
    // After the grid: hashed, and the same picture now named by its content hash.
    const file = join(photos, 'plain.png');
    const done = read.get(plain.id)!;
    const sha = createHash('sha256').update(readFileSync(file)).digest('hex');
    expect(done.content_hash).toBe(sha);
    expect(done.media_hash).toBe(await mediaHashOfFile(file, 'png', readFileSync(file)));
    expect(done.thumb_state).toBe('full');
    expect(done.thumb).toBe(thumbRelPath(sha));
    expect(readFileSync(thumbAbsPath(ctx, done.thumb!)).equals(picture)).toBe(true);
    expect(existsSync(thumbAbsPath(ctx, shown.thumb!))).toBe(false);
    expect(started.filter((id) => id === plain.id)).toEqual([plain.id, plain.id]);
    queue.add(ids.filter((id) => id !== plain.id));
    await queue.idle();
  });

  it('a stopped scan leaves thumbnails owed, and the next scan makes them', async () => {
    ctx.db.prepare("UPDATE assets SET thumb_state = 'pending' WHERE rel_path = 'plain.png'").run();
    const thumb = ctx.db.prepare<[], { thumb: string }>("SELECT thumb FROM assets WHERE rel_path = 'plain.png'").get()!.thumb;
    await rm(thumbAbsPath(ctx, thumb), { force: true });
    const summary = await scanFolder(ctx, folderId);
    expect(summary.added + summary.updated).toBe(0);
    const row = rows(ctx).get('plain.png')!;
    expect(row.thumb_state).toBe('full');
    expect(existsSync(thumbAbsPath(ctx, row.thumb!))).toBe(true);
  });
});

describe('HEIC decoding', () => {
  it("runs in a worker thread: the main thread's console.log is never swapped while it decodes", async () => {
    const { readFile } = await import('node:fs/promises');
    const buf = await readFile(join(photos, 'phone.heic'));
    const log = console.log;
    const decoding = decodeHeif(buf, 100_000_000);
    // libheif-js reports errors through console.log; it used to be replaced across the
    // decode's await, racing every other log line of the process.
    expect(console.log).toBe(log);
    const px = await decoding;
    expect(console.log).toBe(log);
    expect([px.width, px.height]).toEqual([1200, 800]);
    expect(px.data.length).toBe(1200 * 800 * px.channels);
    // A damaged file is refused with a reason, and the decoder keeps working after it.
    await expect(decodeHeif(buf.subarray(0, 400), 100_000_000)).rejects.toThrow();
    expect((await decodeHeif(buf, 100_000_000)).width).toBe(1200);
  });
});

describe('an embedded thumbnail stored as it is', () => {
  // Read from its header in JavaScript (a scan asks it of every photo): the same answer as
  // libvips' own reading, on JPEGs libvips and exiftool write.
  const small = (w = 160, h = 120) => sharp({ create: { width: w, height: h, channels: 3, background: { r: 20, g: 200, b: 40 } } });
  const usable = (input: Buffer, orientation = 1): boolean => usableAsItIs({ input, orientation });

  it('takes an upright 8-bit baseline or progressive JPEG, colour or grey, up to the grid size', async () => {
    expect(usable(await small().jpeg().toBuffer())).toBe(true);
    expect(usable(await small().jpeg({ progressive: true }).toBuffer())).toBe(true);
    expect(usable(await small().greyscale().jpeg().toBuffer())).toBe(true);
    expect(usable(await small(400, 300).jpeg().toBuffer())).toBe(true);
    const camera = execFileSync('exiftool', ['-b', '-ThumbnailImage', join(photos, 'upright-thumb.jpg')]);
    expect(usable(camera)).toBe(true);
  });

  it('re-encodes one that is turned, larger than a grid cell, CMYK, cut short or no JPEG', async () => {
    const jpeg = await small().jpeg().toBuffer();
    expect(usable(jpeg, 6)).toBe(false);
    expect(usable(await small(401, 300).jpeg().toBuffer())).toBe(false);
    const cmyk = await small().toColourspace('cmyk').jpeg().toBuffer();
    expect((await sharp(cmyk).metadata()).space).toBe('cmyk');
    expect(usable(cmyk)).toBe(false);
    const sos = jpeg.indexOf(Buffer.from([0xff, 0xda]));
    expect(usable(jpeg.subarray(0, sos))).toBe(false);
    expect(usable(await small().png().toBuffer())).toBe(false);
  });
});
