import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';

// The layering of the source tree, read from its imports (type-only imports count):
// inside src-main, core -> catalogue (the one door for every change to the catalogue, and its
// change log) -> library/metadata/search (the library, searching it, and the metadata engine that reads, reconciles,
// merges and writes a file's fields: one floor, the scan asks the engine what a file holds and the
// engine keeps its file state in the library) -> service/jobs/credentials and the metadata jobs
// (metadata/write-job.ts), upload/ -> workflows/analysis/creative ->
// api -> cli -> the entry files; a lower layer never imports a
// higher one, no two files import each other (directly or round a loop), and src-main,
// src-preload and src-renderer reach each other with `import type` only.

const ROOT = join(__dirname, '..', '..');

const RANK: Record<string, number> = {
  core: 0,
  catalogue: 1,
  library: 2,
  metadata: 2,
  // Searching the catalogue (search, the in-memory catalogue index, the full-text index, tallies):
  // the library's floor, whose edits and removals keep the index up to date.
  search: 2,
  service: 3,
  jobs: 3,
  credentials: 3,
  // Sending files to agencies (FTP, SFTP), their host keys and what was sent: on the job queue.
  upload: 3,
  workflows: 4,
  analysis: 4,
  creative: 4,
  studio: 4,
  api: 5,
  cli: 6,
};
const ENTRY_RANK = 7;

/** Files and folders inside a src-main folder that sit on another floor than their folder (longest path wins). */
const RANK_OF_PATH: Record<string, number> = {
  // The write job runs on the job queue.
  'metadata/write-job.ts': 3,
  // The service's cached answers are keyed again by the scan when a photo's media hash changes.
  'jobs/result-cache.ts': 2,
};

/** Runtime values shared across the process line: the Api's method names and channel names, and the wording of a field's error (no code that runs in preload). */
const SHARED_RUNTIME = new Set(['src-preload/api-methods.ts', 'src-preload/field-messages.ts']);

interface Edge {
  from: string;
  to: string;
  typeOnly: boolean;
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(ROOT, dir))) {
    const rel = `${dir}/${name}`;
    if (statSync(join(ROOT, rel)).isDirectory()) out.push(...sourceFiles(rel));
    else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}

function resolveImport(from: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null;
  const base = normalize(join(dirname(from), spec)).split('\\').join('/');
  for (const c of [`${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`, base]) {
    if (existsSync(join(ROOT, c)) && statSync(join(ROOT, c)).isFile()) return c;
  }
  throw new Error(`${from}: cannot resolve '${spec}'`);
}

// import … from '…' / export … from '…' (type-only or not, over several lines), import('…'), import '…'.
const STATIC = /(?:^|\n)\s*(import|export)\s+(type\s+)?([^'";]*?)\s*from\s*['"]([^'"]+)['"]/g;
const DYNAMIC = /import\(\s*['"]([^'"]+)['"]\s*\)/g;
const BARE = /(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g;

function edgesOf(file: string): Edge[] {
  const text = readFileSync(join(ROOT, file), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/[^\n]*/g, '$1');
  const edges: Edge[] = [];
  const add = (spec: string, typeOnly: boolean) => {
    const to = resolveImport(file, spec);
    if (to) edges.push({ from: file, to, typeOnly });
  };
  for (const m of text.matchAll(STATIC)) {
    // `import { type A, type B } from` is type-only too.
    const names = m[3].replace(/^\{|\}$/g, '').split(',').map((s) => s.trim()).filter(Boolean);
    const allTypes = m[3].trim().startsWith('{') && names.length > 0 && names.every((n) => n.startsWith('type '));
    add(m[4], Boolean(m[2]) || allTypes);
  }
  for (const m of text.matchAll(DYNAMIC)) add(m[1], false);
  for (const m of text.matchAll(BARE)) add(m[1], false);
  return edges;
}

const files = [...sourceFiles('src-main'), ...sourceFiles('src-preload'), ...sourceFiles('src-renderer/src')];
const edges = files.flatMap(edgesOf);

function layerOf(file: string): { name: string; rank: number } | null {
  const parts = file.split('/');
  if (parts[0] !== 'src-main') return null;
  if (parts.length === 2) return { name: 'entry', rank: ENTRY_RANK };
  const inner = parts.slice(1).join('/');
  const path = Object.keys(RANK_OF_PATH)
    .filter((p) => inner === p || inner.startsWith(`${p}/`))
    .sort((a, b) => b.length - a.length)[0];
  if (path) return { name: path, rank: RANK_OF_PATH[path] };
  return { name: parts[1], rank: RANK[parts[1]] ?? -1 };
}

const processOf = (file: string): string => (file.startsWith('src-renderer/') ? 'src-renderer' : file.split('/')[0]);

/** Strongly connected groups of more than one file (Tarjan). */
function cycles(nodes: string[], next: (n: string) => string[]): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next(v)) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) found.push(group.sort());
    }
  };
  for (const n of nodes) if (!index.has(n)) visit(n);
  return found;
}

describe('source layering', () => {
  it('reads the imports of every source file', () => {
    // A parser that found nothing would pass every rule below.
    expect(files.length).toBeGreaterThan(100);
    expect(edges.length).toBeGreaterThan(files.length);
    expect(edges).toContainEqual({ from: 'src-main/library/db.ts', to: 'src-main/library/migrations/index.ts', typeOnly: false });
    expect(edges).toContainEqual({ from: 'src-main/jobs/types.ts', to: 'src-preload/contract.ts', typeOnly: true });
    expect(edges).toContainEqual({ from: 'src-main/library/edit-log-writer.ts', to: 'src-main/catalogue/edit-log.ts', typeOnly: false });
  });

  it('gives every src-main folder a layer', () => {
    const unknown = [...new Set(files.map(layerOf).filter((l) => l && l.rank < 0).map((l) => l!.name))];
    expect(unknown, 'add the new folder to RANK in this test').toEqual([]);
  });

  it('has no import from a lower layer of src-main into a higher one', () => {
    const upward = edges
      .filter((e) => {
        const a = layerOf(e.from);
        const b = layerOf(e.to);
        return a && b && a.rank < b.rank;
      })
      .map((e) => `${e.from} -> ${e.to}`);
    expect(upward).toEqual([]);
  });

  it('has no cycle between files (type-only imports count)', () => {
    const next = new Map<string, string[]>();
    for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
    expect(cycles(files, (f) => next.get(f) ?? [])).toEqual([]);
  });

  it('crosses between src-main, src-preload and src-renderer with import type only', () => {
    const crossing = edges
      .filter((e) => processOf(e.from) !== processOf(e.to) && !e.typeOnly && !SHARED_RUNTIME.has(e.to))
      .map((e) => `${e.from} -> ${e.to}`);
    expect(crossing).toEqual([]);
  });

  it('keeps one command per cli/commands/ file: shared CLI helpers live in cli/', () => {
    const between = edges
      .filter((e) => e.from.startsWith('src-main/cli/commands/') && e.to.startsWith('src-main/cli/commands/'))
      .map((e) => `${e.from} -> ${e.to}`);
    expect(between).toEqual([]);
  });

  it('fails on an upward arrow and on a cycle (the checks themselves)', () => {
    const sample: Edge[] = [
      { from: 'src-main/library/a.ts', to: 'src-main/api/b.ts', typeOnly: true },
      { from: 'src-main/api/b.ts', to: 'src-main/library/a.ts', typeOnly: false },
    ];
    expect(sample.filter((e) => layerOf(e.from)!.rank < layerOf(e.to)!.rank)).toHaveLength(1);
    // The catalogue is below the library: it may not reach up into it.
    expect(layerOf('src-main/catalogue/x.ts')!.rank).toBeLessThan(layerOf('src-main/library/db.ts')!.rank);
    expect(layerOf('src-main/catalogue/x.ts')!.rank).toBeGreaterThan(layerOf('src-main/core/steps.ts')!.rank);
    // The metadata engine is on the library's floor; its jobs sit on the queue's.
    expect(layerOf('src-main/metadata/reader.ts')!.rank).toBe(layerOf('src-main/library/scan.ts')!.rank);
    expect(layerOf('src-main/metadata/write-job.ts')!.rank).toBe(layerOf('src-main/jobs/queue.ts')!.rank);
    expect(layerOf('src-main/upload/transport.ts')!.rank).toBe(layerOf('src-main/jobs/queue.ts')!.rank);
    const next = (n: string) => sample.filter((e) => e.from === n).map((e) => e.to);
    expect(cycles(['src-main/library/a.ts', 'src-main/api/b.ts'], next)).toEqual([['src-main/api/b.ts', 'src-main/library/a.ts']]);
  });
});
