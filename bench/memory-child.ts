import { readFileSync } from 'node:fs';
import { openLibrary } from '../src-main/library/context';
import { indexReady, startCatalogueIndex } from '../src-main/search/catalogue-index';
import { addFolder } from '../src-main/library/folders';
import { closeMetadataReader } from '../src-main/metadata/reader';
import { scanFolder } from '../src-main/library/scan';
import { facets, search, searchIds } from '../src-main/search/search';

// Runs in its own process (bench/memory.ts samples its RSS from outside): the main-side work
// of scanning, or of browsing a big catalogue, reporting its peak RSS (VmHWM) after each phase on stdout.

const [mode, dataDir, ...rest] = process.argv.slice(2);
// VmHWM, not getrusage's maxRSS: on Linux ru_maxrss survives exec, so a child spawned by a
// big parent would report the parent's high-water mark.
const mb = (): number => Math.round((Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? NaN) / 1024) * 10) / 10;
const phases: Record<string, number> = {};
const mark = (name: string): void => {
  phases[name] = mb();
  process.stderr.write(`[memory-child] ${name}: peak RSS ${phases[name]} MB\n`);
};

const ctx = openLibrary(dataDir);
// As the app does (createApi): it keeps the in-memory catalogue index from the start.
startCatalogueIndex(ctx.db);
mark('opened');
if (mode === 'scan') {
  // rest: a tree to scan for the first time, then a tree whose rows are already written.
  const [firstRoot, rescanRoot, rescanFolderId] = rest;
  const folder = addFolder(ctx, firstRoot);
  await scanFolder(ctx, folder.id);
  mark('first scan');
  if (rescanRoot) {
    await scanFolder(ctx, Number(rescanFolderId));
    mark('unchanged rescan');
  }
  await closeMetadataReader();
} else if (mode === 'browse') {
  // The app indexes a large catalogue in the background; browsing once it is ready.
  await indexReady(ctx.db);
  mark('indexed');
  const queries = [{ sort: 'takenAt' as const, order: 'desc' as const }, { sort: 'name' as const }, { text: 'beach' }, { noKeywords: true }];
  for (const q of queries) {
    const total = search(ctx, q, { offset: 0, limit: 200 }).total;
    // Page through everything as a fast scroll from top to bottom would (one page every 5%).
    for (let offset = 0; offset < total; offset += Math.max(200, Math.floor(total / 20))) search(ctx, q, { offset, limit: 200 });
    searchIds(ctx, q);
  }
  facets(ctx);
  mark('browsed');
}
ctx.db.close();
process.stdout.write(JSON.stringify({ phases, maxRssMB: mb() }) + '\n');
