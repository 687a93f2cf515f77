import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openLibrary } from '../src-main/library/context';
import { addFolder } from '../src-main/library/folders';
import { walkFolder } from '../src-main/library/walk';
import { log, pick, round, type AreaResult, type Figure } from './common';
import { makeTinyTree, seedCatalogue } from './data';

// Peak RSS of the main-side process (everything the Electron main process would run: SQLite,
// the scanner, sharp, exifr, search) while scanning and while browsing 100k assets. The work
// runs in a child process (bench/memory-child.ts); its high-water RSS (VmHWM) is read from /proc
// every 50 ms, and it reports its own VmHWM after each phase.

const FIRST_SCAN = pick(10_000, 300);
const RESCAN = pick(100_000, 2_000);
const BROWSE = pick(100_000, 5_000);
const CHILD = fileURLToPath(new URL('./memory-child.ts', import.meta.url));

interface ChildResult {
  phases: Record<string, number>;
  maxRssMB: number;
  sampledPeakMB: number;
}

function runChild(args: string[]): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    let peak = 0;
    const timer = setInterval(() => {
      try {
        const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (m) peak = Math.max(peak, Number(m[1]) / 1024);
      } catch {
        // gone
      }
    }, 50);
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      clearInterval(timer);
      if (code !== 0) return reject(new Error(`memory child exited with ${code}`));
      const r = JSON.parse(out.trim().split('\n').pop()!) as Omit<ChildResult, 'sampledPeakMB'>;
      resolve({ ...r, sampledPeakMB: round(peak, 1) });
    });
  });
}

export async function benchMemory(workDir: string): Promise<AreaResult> {
  const t0 = Date.now();
  const firstRoot = join(workDir, 'mem-first');
  const rescanRoot = join(workDir, 'mem-rescan');
  log('memory', `writing ${FIRST_SCAN} + ${RESCAN} small files`);
  await makeTinyTree(firstRoot, FIRST_SCAN, { width: 640, height: 480 });
  await makeTinyTree(rescanRoot, RESCAN);
  // The rescan tree's rows as a finished first scan leaves them (see indexing.ts).
  const scanLib = join(workDir, 'mem-lib-scan');
  mkdirSync(scanLib, { recursive: true });
  const ctx = openLibrary(scanLib);
  const folder = addFolder(ctx, rescanRoot);
  const walked = await walkFolder(rescanRoot);
  const ins = ctx.db.prepare(
    `INSERT INTO assets (folder_id, rel_path, name, ext, kind, format, size, mtime_ms, content_hash, stack_key, added_at, indexed_at)
     VALUES (?, ?, ?, 'jpg', 'image', 'jpeg', ?, ?, ?, ?, 0, 0)`,
  );
  ctx.db.transaction(() => walked.files.forEach((f, i) => ins.run(folder.id, f.relPath, f.name, f.size, f.mtimeMs, `m${i}`, f.relPath.toLowerCase())))();
  ctx.db.close();
  const browseLib = join(workDir, 'mem-lib-browse');
  mkdirSync(browseLib, { recursive: true });
  const browseCtx = openLibrary(browseLib);
  seedCatalogue(browseCtx.db, BROWSE);
  browseCtx.db.close();

  log('memory', 'scan child');
  const scan = await runChild(['scan', scanLib, firstRoot, rescanRoot, String(folder.id)]);
  log('memory', 'browse child');
  const browse = await runChild(['browse', browseLib]);
  const figures: Figure[] = [
    {
      area: 'memory', name: `peak RSS while scanning: first scan of ${FIRST_SCAN} files, then an unchanged rescan of a ${RESCAN}-file folder (child's own VmHWM ${scan.maxRssMB} MB)`,
      value: scan.sampledPeakMB, unit: 'MB', reference: { name: 'same process after opening the library', value: scan.phases.opened, unit: 'MB' },
      ratio: round(scan.sampledPeakMB / scan.phases.opened, 2), ratioNote: 'peak/baseline', target: null, status: 'INFO',
    },
    {
      area: 'memory', name: `peak RSS while browsing ${BROWSE} assets: opening, indexing it in memory as the app does, paging through 4 queries top to bottom, searchIds, facets (child's own VmHWM ${browse.maxRssMB} MB)`,
      value: browse.sampledPeakMB, unit: 'MB', reference: { name: 'same process after opening the library', value: browse.phases.opened, unit: 'MB' },
      ratio: round(browse.sampledPeakMB / browse.phases.opened, 2), ratioNote: 'peak/baseline', target: null, status: 'INFO',
    },
  ];
  const notes = [
    'Each workload runs in a child Node process with the app\'s main-side modules (no Electron, no renderer); the peak is the kernel\'s high-water RSS of the child (VmHWM, read from /proc every 50 ms and by the child itself; getrusage maxRSS is not used because on Linux it survives exec and would show the parent\'s peak). The browse catalogue (bench/data.ts seedCatalogue) is built before the child starts; the scan child\'s rescan folder has rows matching its files (as in the indexing area).',
  ];
  return { area: 'memory', figures, notes, detail: { scan, browse }, seconds: (Date.now() - t0) / 1000 };
}
