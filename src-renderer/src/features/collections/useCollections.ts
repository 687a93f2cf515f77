import { useCallback } from 'react';
import type { CollectionInfo, CollectionKind, SmartQuery } from '../../../../src-preload/contract';
import { useClient } from '../../api/ClientContext';
import { useQuery } from '../../api/useQuery';
import { useToast } from '../../ui/Toasts';
import { useEdits } from '../inspector/useEdits';

const noun = (n: number): string => `${n.toLocaleString()} photo${n === 1 ? '' : 's'}`;

/** The collections with their live counts, and what can be done with them (errors become toasts). */
export function useCollections() {
  const { api, cache } = useClient();
  const toast = useToast();
  const { undo } = useEdits();
  // Counts follow every edit and scan: libraryChanged invalidates 'assets'.
  const list = useQuery<CollectionInfo[]>('collections', ['assets'], (c) => c.listCollections());
  const refresh = useCallback(() => cache.invalidate(new Set(['assets'])), [cache]);

  const run = useCallback(
    async <T,>(work: () => Promise<T>): Promise<T | undefined> => {
      try {
        const value = await work();
        refresh();
        return value;
      } catch (err) {
        toast.error(err);
        return undefined;
      }
    },
    [refresh, toast],
  );

  const reorder = useCallback((c: CollectionInfo, ids: number[], beforeId: number | null) => run(() => api.reorderCollection({ id: c.id, ids, beforeId })), [api, run]);

  return {
    list,
    reorder,
    create: (name: string, kind: CollectionKind, parentId: number | null, query?: SmartQuery) => run(() => api.createCollection({ name, kind, parentId, ...(query ? { query } : {}) })),
    rename: (c: CollectionInfo, name: string) => run(() => api.updateCollection({ id: c.id, name })),
    move: (c: CollectionInfo, parentId: number | null) => run(() => api.updateCollection({ id: c.id, parentId })),
    setQuery: (c: CollectionInfo, query: SmartQuery) => run(() => api.updateCollection({ id: c.id, query })),
    remove: (c: CollectionInfo) => run(() => api.deleteCollection({ id: c.id })),
    add: async (c: CollectionInfo, ids: number[]) => {
      if (!ids.length) return;
      const r = await run(() => api.addToCollection({ id: c.id, ids }));
      if (r) toast.info(r.added ? `Added ${noun(r.added)} to “${c.name}”.` : `Already in “${c.name}”.`, r.added ? { undo: () => void undo() } : undefined);
    },
    takeOut: async (c: CollectionInfo, ids: number[]) => {
      if (!ids.length) return;
      const r = await run(() => api.removeFromCollection({ id: c.id, ids }));
      if (r) toast.info(`Removed ${noun(r.removed)} from “${c.name}”. The files were not touched.`, { undo: () => void undo() });
    },
  };
}

export type Collections = ReturnType<typeof useCollections>;
