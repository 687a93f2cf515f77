import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { log, run, SMALL, type AreaResult } from './common';
import { writeReports } from './report';

// `npm run bench [-- --only a,b] [-- --keep]`: runs every area (or the chosen ones) in one
// process, each against data it generates under one temp dir, then writes bench/report.md
// and bench/report.json. BENCH_SCALE=small shrinks every dataset; BENCH_TMP picks the disk.

const AREAS = ['thumbnails', 'indexing', 'queries', 'service', 'ui', 'memory', 'fidelity', 'similarity', 'studio'] as const;
type Area = (typeof AREAS)[number];

async function runArea(area: Area, workDir: string): Promise<AreaResult> {
  switch (area) {
    case 'thumbnails': return (await import('./thumbnails')).benchThumbnails(workDir);
    case 'indexing': return (await import('./indexing')).benchIndexing(workDir);
    case 'queries': return (await import('./queries')).benchQueries(workDir);
    case 'service': return (await import('./service')).benchService(workDir);
    case 'ui': return (await import('./ui')).benchUi(workDir);
    case 'memory': return (await import('./memory')).benchMemory(workDir);
    case 'fidelity': return (await import('./fidelity')).benchFidelity(workDir);
    case 'similarity': return (await import('./similarity')).benchSimilarity(workDir);
    case 'studio': return (await import('./studio')).benchStudio(workDir);
  }
}

async function toolVersion(cmd: string, args: string[], pattern: RegExp): Promise<string> {
  try {
    const { stdout, stderr } = await run(cmd, args);
    return pattern.exec(stdout + stderr)?.[1] ?? 'unknown';
  } catch {
    return 'missing';
  }
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const onlyIdx = argv.indexOf('--only');
  const only = onlyIdx >= 0 ? argv[onlyIdx + 1]?.split(',') ?? [] : [...AREAS];
  const unknown = only.filter((a) => !(AREAS as readonly string[]).includes(a));
  if (unknown.length) {
    console.error(`Unknown area(s): ${unknown.join(', ')}. Areas: ${AREAS.join(', ')}.`);
    process.exit(2);
  }
  const keep = argv.includes('--keep');
  const startedAt = new Date();
  const workDir = mkdtempSync(join(process.env.BENCH_TMP ?? tmpdir(), 'tagsmith-bench-'));
  log('run', `scale ${SMALL ? 'small' : 'full'}, data under ${workDir}`);
  const tools = {
    vipsthumbnail: await toolVersion('vipsthumbnail', ['--vips-version'], /libvips ([\d.]+)/),
    ImageMagick: await toolVersion('convert', ['-version'], /ImageMagick ([\d.-]+)/),
    exiftool: await toolVersion('exiftool', ['-ver'], /([\d.]+)/),
    ffmpeg: await toolVersion('ffmpeg', ['-version'], /ffmpeg version (\S+)/),
  };
  const results: AreaResult[] = [];
  let failed = false;
  try {
    for (const area of AREAS.filter((a) => only.includes(a))) {
      log('run', `--- ${area}`);
      try {
        // Each area starts with the disk quiet: what the ones before it wrote is flushed first
        // (a page cache full of their dirty pages would slow this one's writes, not theirs).
        await run('sync', []);
        results.push(await runArea(area, workDir));
        // What an area leaves on the heap taxes every later one (each collection marks it all).
        (globalThis as { gc?: () => void }).gc?.();
        log('run', `${area} done: ${Math.round(process.memoryUsage().heapUsed / 2 ** 20)} MB of heap in use`);
      } catch (err) {
        failed = true;
        console.error(err);
        results.push({ area, figures: [], notes: [`The ${area} benchmark failed: ${err instanceof Error ? err.message : String(err)}`], seconds: 0 });
      }
    }
  } finally {
    if (!keep) rmSync(workDir, { recursive: true, force: true });
  }
  const here = fileURLToPath(new URL('.', import.meta.url));
  const cmd = `${SMALL ? 'BENCH_SCALE=small ' : ''}npm run bench${onlyIdx >= 0 ? ` -- --only ${only.join(',')}` : ''}`;
  writeReports(results, { mdPath: join(here, 'report.md'), jsonPath: join(here, 'report.json'), command: cmd, startedAt, tools });
  log('run', `wrote ${join(here, 'report.md')} and report.json`);
  process.exit(failed ? 1 : 0);
}

await main();
