import { watch, type FSWatcher } from 'node:fs';
import type { LibraryCtx } from './context';
import { listFolders, refreshOnline } from './folders';
import { formatForName, isSidecarName } from './formats';
import type { Scanner } from './scan';
import { isSkippedDirName } from './walk';

// While the app runs, changes in library folders show up without a manual rescan: a burst of
// file events (a card import writes hundreds of files) is debounced into one incremental
// rescan of that folder, which is cheap because unchanged files are skipped by size+mtime.
// A periodic reachability check turns unplugged drives offline (and back online).

export interface WatchOptions {
  debounceMs?: number;
  onlineCheckMs?: number;
}

/** Would a change to this folder-relative path matter to the catalogue? */
function relevant(rel: string): boolean {
  const parts = rel.split(/[\\/]/);
  if (parts.slice(0, -1).some(isSkippedDirName)) return false;
  const name = parts[parts.length - 1];
  if (name.startsWith('.')) return false;
  // A directory event (no extension) may hide a moved folder full of photos: rescan.
  return !name.includes('.') || formatForName(name) !== null || isSidecarName(name);
}

export function startWatching(ctx: LibraryCtx, scanner: Scanner, opts: WatchOptions = {}): () => void {
  const debounceMs = opts.debounceMs ?? 1000;
  const watchers = new Map<number, { path: string; watcher: FSWatcher }>();
  const timers = new Map<number, NodeJS.Timeout>();
  let stopped = false;

  const schedule = (folderId: number): void => {
    clearTimeout(timers.get(folderId));
    const t = setTimeout(() => {
      timers.delete(folderId);
      if (!stopped) scanner.enqueue(folderId).catch(() => undefined);
    }, debounceMs);
    t.unref();
    timers.set(folderId, t);
  };

  /** One recursive watcher per online folder; re-synced when folders change. */
  const sync = (): void => {
    if (stopped) return;
    const folders = listFolders(ctx).filter((f) => f.online);
    const wanted = new Map(folders.map((f) => [f.id, f.path]));
    for (const [id, w] of watchers) {
      if (wanted.get(id) !== w.path) {
        w.watcher.close();
        watchers.delete(id);
      }
    }
    for (const [id, path] of wanted) {
      if (watchers.has(id)) continue;
      try {
        const watcher = watch(path, { recursive: true, persistent: false }, (_event, filename) => {
          if (filename === null || relevant(String(filename))) schedule(id);
        });
        // The root vanishing (drive pulled) surfaces here; the online check handles it.
        watcher.on('error', () => {
          watcher.close();
          watchers.delete(id);
        });
        watchers.set(id, { path, watcher });
      } catch {
        // Not reachable right now: the periodic check will bring it back.
      }
    }
  };

  const checkOnline = (): void => {
    if (stopped) return;
    const before = new Set(listFolders(ctx).filter((f) => f.online).map((f) => f.id));
    if (refreshOnline(ctx)) {
      ctx.events.emit('foldersChanged', {});
      ctx.events.emit('libraryChanged', { reason: 'watch' });
      // A drive that came back may have changed while away.
      for (const f of listFolders(ctx)) if (f.online && !before.has(f.id)) schedule(f.id);
    }
    sync();
  };

  sync();
  const offFolders = ctx.events.on('foldersChanged', () => sync());
  const interval = setInterval(checkOnline, opts.onlineCheckMs ?? 10_000);
  interval.unref();

  return () => {
    stopped = true;
    clearInterval(interval);
    offFolders();
    for (const t of timers.values()) clearTimeout(t);
    for (const w of watchers.values()) w.watcher.close();
    watchers.clear();
  };
}
