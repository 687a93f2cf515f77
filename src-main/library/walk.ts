import type { Dirent, Stats } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import { isInside } from '../core/media';
import { formatForName, isSidecarName, type FormatInfo } from './formats';

// The walk lists a folder's media files with their size and mtime, and nothing else: it
// never opens a file, so an unchanged rescan of 100k files costs 100k stat calls (run a few
// dozen at a time on libuv's thread pool) and one in-memory comparison each.

/** Folders no photo library wants indexed: VCS data, NAS/OS thumbnail caches, trash. */
const SKIPPED_DIRS = new Set([
  '@eadir', '#recycle', '#snapshot', '$recycle.bin', 'system volume information', 'lost+found',
  'node_modules', '__macosx', 'recycler', '.git', '.thumbnails', '.trashes', '.spotlight-v100', '.fseventsd',
]);

export function isSkippedDirName(name: string): boolean {
  return name.startsWith('.') || SKIPPED_DIRS.has(name.toLowerCase());
}

export interface WalkedFile {
  absPath: string;
  /** '/'-separated, relative to the folder root. */
  relPath: string;
  name: string;
  size: number;
  mtimeMs: number;
  format: FormatInfo;
}

export interface WalkProblem {
  /** Absolute path as best it can be shown (invalid bytes appear as U+FFFD). */
  path: string;
  reason: string;
}

export interface WalkResult {
  files: WalkedFile[];
  /** Lower-cased relative paths of every .xmp sidecar seen. */
  sidecars: Map<string, string>;
  problems: WalkProblem[];
  /** Relative paths ('' = root) of folders that could not be listed: their rows are left alone. */
  unreadableDirs: string[];
}

export interface WalkOptions {
  signal?: AbortSignal;
  /** Called now and then with the number of media files found so far. */
  onFound?: (found: number) => void;
}

const STAT_CONCURRENCY = 32;

const join = (dir: string, name: string): string => (dir.endsWith('/') ? dir + name : `${dir}/${name}`);
const joinRel = (rel: string, name: string): string => (rel ? `${rel}/${name}` : name);

function errCode(err: unknown): string {
  return typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : '';
}

function dirReason(err: unknown): string {
  const code = errCode(err);
  if (code === 'EACCES' || code === 'EPERM') return 'Tagsmith is not allowed to open this folder, so its contents were skipped. Check the folder’s permissions.';
  return 'This folder could not be read, so its contents were skipped.';
}

/** A name that does not survive a UTF-8 round trip cannot be stored or shown faithfully. */
function decodeName(raw: Buffer): string | null {
  const s = raw.toString('utf8');
  return Buffer.from(s, 'utf8').equals(raw) ? s : null;
}

export async function walkFolder(rootPath: string, opts: WalkOptions = {}): Promise<WalkResult> {
  const realRoot = await realpath(rootPath);
  const result: WalkResult = { files: [], sidecars: new Map(), problems: [], unreadableDirs: [] };
  const visitedDirs = new Set<string>([realRoot]);
  const seenRealFiles = new Set<string>();
  let lastReport = 0;

  const walkDir = async (abs: string, rel: string): Promise<void> => {
    opts.signal?.throwIfAborted();
    let entries: Dirent<Buffer>[];
    try {
      entries = await readdir(abs, { withFileTypes: true, encoding: 'buffer' });
    } catch (err) {
      result.problems.push({ path: abs, reason: dirReason(err) });
      result.unreadableDirs.push(rel);
      return;
    }
    const subdirs: [string, string][] = [];
    const candidates: { abs: string; rel: string; name: string; format: FormatInfo; link: boolean }[] = [];
    for (const entry of entries) {
      const name = decodeName(entry.name);
      if (name === null) {
        const shown = join(abs, entry.name.toString('utf8'));
        if (entry.isDirectory() || formatForName(entry.name.toString('utf8'))) {
          result.problems.push({
            path: shown,
            reason: 'This name contains characters that are not valid text (not UTF-8), so it was skipped. Rename it to include it in the library.',
          });
        }
        continue;
      }
      const childAbs = join(abs, name);
      const childRel = joinRel(rel, name);
      if (entry.isDirectory()) {
        if (!isSkippedDirName(name)) subdirs.push([childAbs, childRel]);
        continue;
      }
      if (name.startsWith('.')) continue; // hidden files, macOS '._' resource forks
      if (entry.isSymbolicLink()) {
        // Resolved below: may be a file or a directory, inside or outside the tree.
        candidates.push({ abs: childAbs, rel: childRel, name, format: formatForName(name)!, link: true });
        continue;
      }
      if (!entry.isFile()) continue; // FIFOs, sockets, devices: never open them
      if (isSidecarName(name)) {
        result.sidecars.set(childRel.toLowerCase(), childRel);
        continue;
      }
      const format = formatForName(name);
      if (format) candidates.push({ abs: childAbs, rel: childRel, name, format, link: false });
    }

    for (let i = 0; i < candidates.length; i += STAT_CONCURRENCY) {
      opts.signal?.throwIfAborted();
      const slice = candidates.slice(i, i + STAT_CONCURRENCY);
      const stats = await Promise.all(slice.map((c) => stat(c.abs).then((s): Stats | Error => s, (e: Error) => e)));
      for (let j = 0; j < slice.length; j++) {
        const c = slice[j];
        const st = stats[j];
        if (st instanceof Error) {
          // A dangling symlink is not a problem worth reporting; anything else is.
          if (!c.link) result.problems.push({ path: c.abs, reason: 'This file could not be read. Check its permissions.' });
          continue;
        }
        if (c.link) {
          const target = await realpath(c.abs).catch(() => null);
          if (!target) continue;
          if (st.isDirectory()) {
            // A link back into the tree is either a loop or a second route to files we
            // index anyway; only links leading outside are followed, each place once.
            if (!isSkippedDirName(c.name) && !isInside(target, realRoot) && !visitedDirs.has(target)) subdirs.push([c.abs, c.rel]);
            continue;
          }
          if (!st.isFile() || !c.format || isInside(target, realRoot)) continue;
          if (seenRealFiles.has(target)) continue;
          seenRealFiles.add(target);
        }
        if (!st.isFile() || !c.format) continue;
        result.files.push({ absPath: c.abs, relPath: c.rel, name: c.name, size: st.size, mtimeMs: Math.floor(st.mtimeMs), format: c.format });
      }
      if (opts.onFound && result.files.length - lastReport >= 200) {
        lastReport = result.files.length;
        opts.onFound(result.files.length);
      }
    }

    for (const [childAbs, childRel] of subdirs) {
      const real = await realpath(childAbs).catch(() => null);
      if (real === null) {
        result.problems.push({ path: childAbs, reason: 'This folder could not be read, so its contents were skipped.' });
        result.unreadableDirs.push(childRel);
        continue;
      }
      if (visitedDirs.has(real)) continue; // a loop (or a second route to the same folder)
      visitedDirs.add(real);
      await walkDir(childAbs, childRel);
    }
  };

  await walkDir(rootPath, '');
  opts.onFound?.(result.files.length);
  return result;
}
