import { useCallback, useEffect, useState } from 'react';
import type { FolderInfo, ScanProgress } from '../../../../src-preload/contract';
import { useClient } from '../../api/ClientContext';
import { useQuery } from '../../api/useQuery';
import { useToast } from '../../ui/Toasts';

/** The library's folders and the actions on them; every failure becomes a readable toast. */
export function useFolders() {
  const { api, cache } = useClient();
  const toast = useToast();
  const folders = useQuery<FolderInfo[]>('folders', ['folders'], (a) => a.listFolders());
  const refresh = useCallback(() => cache.invalidate(new Set(['folders', 'assets', 'facets'])), [cache]);

  const run = useCallback(
    async <T,>(work: () => Promise<T>, done?: string): Promise<T | undefined> => {
      try {
        const value = await work();
        if (done) toast.info(done);
        refresh();
        return value;
      } catch (err) {
        toast.error(err);
        return undefined;
      }
    },
    [toast, refresh],
  );

  return {
    folders,
    addFolder: (path: string) => run(() => api.addFolder({ path }), `Added ${path} — scanning…`),
    removeFolder: (f: FolderInfo) => run(() => api.removeFolder({ id: f.id }), `Removed ${f.path} from the library. No files were touched.`),
    relinkFolder: (f: FolderInfo, path: string) => run(() => api.relinkFolder({ id: f.id, path }), `Relinked to ${path}`),
    rescan: (f?: FolderInfo) => run(() => api.rescan(f ? { folderId: f.id } : {})),
    pickFolder: () => run(() => api.pickFolder()),
  };
}

/** Live scan progress per folder, from 'scanProgress' events. */
export function useScanProgress(): ScanProgress[] {
  const { api, cache } = useClient();
  const [byFolder, setByFolder] = useState<Map<number, ScanProgress>>(new Map());
  useEffect(
    () =>
      api.on('scanProgress', (p) => {
        // A finished scan changes folder counts and scanning state even when no asset changed.
        if (p.phase === 'done' || p.phase === 'cancelled') cache.invalidateSoon(['folders', 'assets', 'facets']);
        setByFolder((m) => {
          const next = new Map(m);
          if (p.phase === 'done' || p.phase === 'cancelled') next.delete(p.folderId);
          else next.set(p.folderId, p);
          return next;
        });
      }),
    [api, cache],
  );
  return [...byFolder.values()];
}
