import { useCallback, useEffect, useMemo, useSyncExternalStore } from 'react';
import type { SearchQuery } from '../../../../src-preload/contract';
import { useClient } from '../../api/ClientContext';
import { useInvalidation } from '../../api/useQuery';
import { PageStore } from './pageStore';

/** The paged result list for a query; re-renders when pages arrive. */
export function useAssetPages(query: SearchQuery): { store: PageStore; total: number | null; version: number } {
  const { api } = useClient();
  const key = JSON.stringify(query);
  // eslint-disable-next-line react-hooks/exhaustive-deps -- the serialised query is the identity
  const store = useMemo(() => new PageStore(api, query), [api, key]);
  useEffect(() => {
    store.ensureRange(0, 0);
    return () => store.dispose();
  }, [store]);
  useInvalidation(
    useCallback(
      (tags) => {
        if (tags.has('assets')) store.invalidate();
      },
      [store],
    ),
  );
  const version = useSyncExternalStore(store.subscribe, store.getVersion);
  return { store, total: store.total, version };
}
