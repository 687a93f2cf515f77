import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import type { LibraryCtx } from '../src-main/library/context';
import { makeImageThumb } from '../src-main/library/thumbs';
import { prepareImage } from '../src-main/service/prepare';
import { check, log, median, p95, pick, pool, round, run, type AreaResult, type Figure } from './common';
import { makePhoto, uniqueCopy } from './data';
import { gridHeic } from '../tests/fixtures/heif-grid';

// 24 MP JPEG -> grid thumbnail (thumbs.ts makeImageThumb, 400 px box, fed the way the
// background thumbnail queue feeds it: the file's path, libvips reads it) and -> service derivative (prepare.ts prepareImage,
// 300 px short side), one at a time with one libvips thread, and 4 in flight with the app's
// defaults (the scan's concurrency), beside vipsthumbnail and ImageMagick on the same files.

const FILES = pick(16, 3);
const IN_FLIGHT = 4;
const W = 6000;
const H = 4000;

interface Timing {
  /** per-image latency of each call */
  each: number[];
  /** wall time / images: the throughput cost per image */
  perImageMs: number;
}

async function measure(files: string[], inFlight: number, one: (file: string, i: number) => Promise<unknown>): Promise<Timing> {
  // Warm-up (page cache, code paths, process start-up caches) at the concurrency measured: the
  // app's scan work starts its worker threads (media/pixel-pool.ts) as concurrency needs them,
  // once per process, as a scan does on its first files, not on every 16 of them.
  await Promise.all(files.slice(0, inFlight).map((f) => one(f, -1)));
  const r = await pool(inFlight, files.map((f, i) => () => one(f, i)));
  return { each: r.each, perImageMs: r.wallMs / files.length };
}

export async function benchThumbnails(workDir: string): Promise<AreaResult> {
  const t0 = Date.now();
  const dir = join(workDir, 'thumbs-src');
  const out = join(workDir, 'thumbs-out');
  mkdirSync(dir, { recursive: true });
  mkdirSync(out, { recursive: true });
  log('thumbnails', `generating ${FILES} x 24 MP JPEGs`);
  const files: string[] = [];
  for (let i = 0; i < FILES; i++) {
    // A few distinct pictures, unique bytes each (nothing can be served from a cache).
    const base = i < 4 ? await makePhoto({ width: W, height: H, seed: 24_000 + i, format: 'jpeg', quality: 92 }) : await readFile(files[i % 4]);
    const f = join(dir, `p24_${i}.jpg`);
    writeFileSync(f, uniqueCopy(base, 9000 + i));
    files.push(f);
  }
  const sizes = await Promise.all(files.map(async (f) => (await readFile(f)).length));
  const ctx = { paths: { cacheDir: out } } as unknown as LibraryCtx;
  let serial = 0;
  const appGrid = async (file: string): Promise<void> => {
    const r = await makeImageThumb(ctx, { path: file, format: 'jpeg', isRaw: false, hash: `bench${serial++}x${Date.now()}`, buf: null, orientation: 1 });
    if (!r.thumb) throw new Error(`no thumbnail for ${file}: ${r.problem}`);
  };
  const appService = async (file: string): Promise<void> => {
    const r = await prepareImage(file, 'keywords');
    if (Math.min(r.width, r.height) !== 300) throw new Error(`unexpected derivative size ${r.width}x${r.height}`);
  };
  const sharpFromPath = async (file: string, i: number): Promise<void> => {
    await sharp(file, { sequentialRead: true }).rotate().resize(400, 400, { fit: 'inside' }).jpeg({ quality: 80 }).toFile(join(out, `s${i}.jpg`));
  };
  const tool = (cmd: string, args: (f: string, o: string) => string[], env: NodeJS.ProcessEnv) => async (file: string, i: number) =>
    run(cmd, args(file, join(out, `${cmd}-${i}-${serial++}.jpg`)), { env: { ...process.env, ...env } });
  const vipsGrid = (env: NodeJS.ProcessEnv) => tool('vipsthumbnail', (f, o) => [f, '-s', '400', '-o', `${o}[Q=80,strip]`], env);
  const vipsService = (env: NodeJS.ProcessEnv) => tool('vipsthumbnail', (f, o) => [f, '-s', `${Math.round((W / H) * 300)}x300`, '-o', `${o}[Q=85,strip]`], env);
  const imGrid = (env: NodeJS.ProcessEnv) => tool('convert', (f, o) => [f, '-auto-orient', '-thumbnail', '400x400', '-quality', '80', o], env);
  const imService = (env: NodeJS.ProcessEnv) => tool('convert', (f, o) => [f, '-auto-orient', '-thumbnail', `${Math.round((W / H) * 300)}x300`, '-strip', '-quality', '85', o], env);

  const single = { VIPS_CONCURRENCY: '1', MAGICK_THREAD_LIMIT: '1', OMP_NUM_THREADS: '1' };
  const results: Record<string, Timing> = {};
  const modes = [
    { mode: 'single-threaded', inFlight: 1, env: single as NodeJS.ProcessEnv, sharpConcurrency: 1 },
    { mode: 'multi-threaded', inFlight: IN_FLIGHT, env: {} as NodeJS.ProcessEnv, sharpConcurrency: 1 },
  ];
  const figures: Figure[] = [];
  for (const m of modes) {
    // The app sets sharp.concurrency(1) in thumbs.ts (one libvips thread per image, several
    // images in flight); single-threaded runs them one at a time, multi-threaded 4 at a time.
    sharp.concurrency(m.sharpConcurrency);
    for (const target of ['grid thumbnail', 'service derivative'] as const) {
      const key = `${target}, ${m.mode}`;
      log('thumbnails', key);
      const app = await measure(files, m.inFlight, target === 'grid thumbnail' ? appGrid : appService);
      const vips = await measure(files, m.inFlight, target === 'grid thumbnail' ? vipsGrid(m.env) : vipsService(m.env));
      const im = await measure(files, m.inFlight, target === 'grid thumbnail' ? imGrid(m.env) : imService(m.env));
      results[`app ${key}`] = app;
      results[`vipsthumbnail ${key}`] = vips;
      results[`ImageMagick ${key}`] = im;
      // Single-threaded: the median call. Multi-threaded: wall time per image (throughput).
      const val = (t: Timing): number => (m.inFlight === 1 ? median(t.each) : t.perImageMs);
      const unit = m.inFlight === 1 ? 'ms median' : `ms/image (${m.inFlight} in flight)`;
      const a = round(val(app), 1);
      const v = round(val(vips), 1);
      const im6 = round(val(im), 1);
      figures.push({
        area: 'thumbnails', name: `24 MP -> ${target}, ${m.mode} vs vipsthumbnail (app p95 ${round(p95(app.each), 1)} ms)`, value: a, unit,
        reference: { name: `vipsthumbnail, p95 ${round(p95(vips.each), 1)} ms`, value: v, unit }, ratio: round(a / v, 2), ratioNote: 'app/vips',
        target: 'app/vips <= 1.25', status: check(a / v <= 1.25),
      });
      figures.push({
        area: 'thumbnails', name: `24 MP -> ${target}, ${m.mode} vs ImageMagick`, value: a, unit,
        reference: { name: `convert -thumbnail, p95 ${round(p95(im.each), 1)} ms`, value: im6, unit }, ratio: round(im6 / a, 2), ratioNote: 'IM/app (speed-up)',
        target: 'IM/app >= 4', status: check(im6 / a >= 4),
      });
    }
  }
  // Diagnostic: sharp alone, from the path (no metadata pre-read, no Buffer, no temp+rename).
  sharp.concurrency(1);
  const bare = await measure(files, 1, sharpFromPath);
  results['sharp from path (diagnostic)'] = bare;
  figures.push({
    area: 'thumbnails', name: '24 MP -> 400 px, bare sharp pipeline from the path (diagnostic, one thread)', value: round(median(bare.each), 1), unit: 'ms median',
    reference: { name: 'app grid thumbnail, single-threaded', value: round(median(results['app grid thumbnail, single-threaded'].each), 1), unit: 'ms median' },
    ratio: round(median(bare.each) / median(results['app grid thumbnail, single-threaded'].each), 2), ratioNote: 'bare/app', target: null, status: 'INFO',
  });
  sharp.concurrency(1);
  const heic = await benchHeic(dir, files[0], ctx);
  figures.push(heic.figure);
  results['app grid thumbnail from HEIC'] = heic.heic;
  results['app grid thumbnail from the same picture as JPEG'] = heic.jpeg;
  const phone = await benchPhoneHeic(dir, ctx);
  figures.push(phone.figure);
  results['app grid thumbnails of phone-like tiled HEICs'] = phone.heic;
  results['app grid thumbnails of the same pictures as JPEG'] = phone.jpeg;
  rmSync(out, { recursive: true, force: true });
  rmSync(dir, { recursive: true, force: true });
  const notes = [
    heic.note,
    phone.note,
    `${FILES} unique 24 MP (6000x4000) synthetic JPEGs with EXIF, ${round(median(sizes) / 1e6, 1)} MB median, generated in this run. Every tool writes a JPEG: grid thumbnails 400 px box q80, service derivatives 450x300 q85 without metadata.`,
    'App timings include reading the file (the grid thumbnail from its path, as the background thumbnail queue makes it after the scan has shown the file; the service derivative likewise) and the atomic temp-file + rename; reference timings are whole-process wall times (vipsthumbnail / convert start-up included, ~10-30 ms), which flatters the app slightly.',
    `Single-threaded: one image at a time, sharp.concurrency(1), VIPS_CONCURRENCY=1, MAGICK_THREAD_LIMIT=1; median of per-image times. Multi-threaded: ${IN_FLIGHT} images in flight (the scan's concurrency), each tool with its default threading (the app keeps one libvips thread per image); wall time / images.`,
  ];
  const detail = Object.fromEntries(Object.entries(results).map(([k, t]) => [k, { median: round(median(t.each), 1), p95: round(p95(t.each), 1), perImageMs: round(t.perImageMs, 1) }]));
  return { area: 'thumbnails', figures, notes, detail, seconds: (Date.now() - t0) / 1000 };
}

/**
 * Phone-like HEICs (12 MP, 4032x3024, a grid of 512 px tiles as iPhones write them; made by
 * tests/fixtures/heif-grid.ts from heif-enc tiles) -> every grid thumbnail of a batch, the
 * thumbnail queue's concurrency, vs the same pictures as JPEG. Peak RSS sampled meanwhile.
 */
async function benchPhoneHeic(dir: string, ctx: LibraryCtx): Promise<{ figure: Figure; heic: Timing; jpeg: Timing; note: string }> {
  const distinct = pick(4, 2);
  const count = pick(200, 20);
  const heics: string[] = [];
  const jpegs: string[] = [];
  log('thumbnails', `encoding ${distinct} phone-like tiled HEICs (12 MP, 512 px tiles)`);
  for (let i = 0; i < distinct; i++) {
    const jpeg = join(dir, `phone_${i}.jpg`);
    writeFileSync(jpeg, await makePhoto({ width: 4032, height: 3024, seed: 12_000 + i, format: 'jpeg', quality: 90 }));
    const heic = join(dir, `phone_${i}.heic`);
    await gridHeic(jpeg, heic, { tile: 512, quality: 80 });
    jpegs.push(jpeg);
    heics.push(heic);
  }
  let serial = 0;
  const thumb = (format: 'heic' | 'jpeg') => async (file: string): Promise<void> => {
    const r = await makeImageThumb(ctx, { path: file, format, isRaw: false, hash: `phone-bench${serial++}x${Date.now()}`, buf: null, orientation: 1 });
    if (!r.thumb) throw new Error(`no thumbnail for ${file}: ${r.problem}`);
  };
  const peakDuring = async <T>(work: () => Promise<T>): Promise<{ value: T; peak: number }> => {
    let peak = process.memoryUsage().rss;
    const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
    try {
      const value = await work();
      return { value, peak: Math.max(peak, process.memoryUsage().rss) };
    } finally {
      clearInterval(timer);
    }
  };
  const list = (files: string[]) => Array.from({ length: count }, (_, i) => files[i % files.length]);
  const heic = await peakDuring(() => measure(list(heics), IN_FLIGHT, thumb('heic')));
  const jpeg = await peakDuring(() => measure(list(jpegs), IN_FLIGHT, thumb('jpeg')));
  const h = round(heic.value.perImageMs, 1);
  const j = round(jpeg.value.perImageMs, 1);
  const mb = (await Promise.all(heics.map(async (f) => (await readFile(f)).length))).reduce((a, b) => a + b, 0) / heics.length / 1e6;
  const total = (ms: number) => round((ms * count) / 1000, 1);
  return {
    heic: heic.value,
    jpeg: jpeg.value,
    figure: {
      area: 'thumbnails',
      name: `phone-like tiled HEIC (12 MP, 512 px tiles) -> every grid thumbnail of ${count} files (${total(h)} s, peak RSS ${round(heic.peak / 1e6, 0)} MB) vs the same pictures as JPEG (${total(j)} s, peak RSS ${round(jpeg.peak / 1e6, 0)} MB)`,
      value: h, unit: 'ms/image',
      reference: { name: `the JPEGs they were encoded from, ${IN_FLIGHT} in flight`, value: j, unit: 'ms/image' }, ratio: round(h / j, 2), ratioNote: 'HEIC/JPEG',
      target: 'HEIC/JPEG <= 10', status: check(h / j <= 10),
    },
    note: `Phone-like HEIC row: ${distinct} pictures of 4032x3024 (${round(mb, 1)} MB per HEIC, x265 ultrafast q80), each a grid of 8x6 tiles of 512 px with the last row cut (as iPhones write them; the container is written by tests/fixtures/heif-grid.ts around heif-enc's tiles, since Debian's heif-enc cannot write grids), cycled over ${count} thumbnails with ${IN_FLIGHT} in flight (the thumbnail queue's concurrency); wall time / images, after a warm-up. Decoded by the bundled ffmpeg's native HEVC decoder, one process per picture with one thread (the tiles as frames, no stream probe), each tile shrunk inside ffmpeg by a factor that divides it (libheif in WebAssembly only for what that path does not take: alpha, a crop, no ffmpeg). Peak RSS: the whole bench process, sampled every 50 ms during each batch.`,
  };
}

/**
 * 24 MP HEIC -> grid thumbnail (the bundled ffmpeg's HEVC decoder, shrunk inside ffmpeg, then sharp) vs
 * the same picture as a JPEG (libvips). heif-enc (Debian libheif-examples) makes the HEIC
 * from the first JPEG; x265's ultrafast preset keeps that encode to seconds.
 */
async function benchHeic(dir: string, jpegFile: string, ctx: LibraryCtx): Promise<{ figure: Figure; heic: Timing; jpeg: Timing; note: string }> {
  const heicFile = join(dir, 'p24.heic');
  log('thumbnails', 'encoding a 24 MP HEIC with heif-enc');
  await run('heif-enc', ['-q', '80', '-p', 'preset=ultrafast', '-o', heicFile, jpegFile]);
  const runs = pick(5, 2);
  let serial = 0;
  const thumb = (format: 'heic' | 'jpeg') => async (file: string): Promise<void> => {
    const buf = await readFile(file);
    const r = await makeImageThumb(ctx, { path: file, format, isRaw: false, hash: `heic-bench${serial++}x${Date.now()}`, buf, orientation: 1 });
    if (!r.thumb) throw new Error(`no thumbnail for ${file}: ${r.problem}`);
  };
  const rssBefore = process.memoryUsage().rss;
  const heic = await measure(Array(runs).fill(heicFile), 1, thumb('heic'));
  const rssAfter = process.memoryUsage().rss;
  const jpeg = await measure(Array(runs).fill(jpegFile), 1, thumb('jpeg'));
  const h = round(median(heic.each), 1);
  const j = round(median(jpeg.each), 1);
  const mb = (await readFile(heicFile)).length / 1e6;
  return {
    heic,
    jpeg,
    figure: {
      area: 'thumbnails', name: `24 MP HEIC -> grid thumbnail (ffmpeg HEVC decode + sharp, p95 ${round(p95(heic.each), 1)} ms) vs the same picture as JPEG`, value: h, unit: 'ms median',
      reference: { name: `the JPEG it was encoded from, p95 ${round(p95(jpeg.each), 1)} ms`, value: j, unit: 'ms median' }, ratio: round(h / j, 2), ratioNote: 'HEIC/JPEG',
      target: 'HEIC/JPEG <= 10', status: check(h / j <= 10),
    },
    note: `HEIC row: one 24 MP HEIC (${round(mb, 1)} MB, heif-enc -q 80, x265 ultrafast) made from the first JPEG, ${runs} thumbnails one at a time after a warm-up; the process RSS grew by ${round((rssAfter - rssBefore) / 1e6, 0)} MB over the HEIC runs (ffmpeg runs as its own process per picture; libheif's WebAssembly threads, used only for files ffmpeg does not take, are not started). heif-enc writes it as one HEVC picture, not tiled: one ffmpeg decode (no stream probe, which decoded the picture a second time), its rows of coding blocks shared between the cores as x265's wavefronts allow.`,
  };
}
