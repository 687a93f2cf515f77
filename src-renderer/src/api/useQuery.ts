import { useCallback, useEffect, useSyncExternalStore } from 'react';
import type { Client } from './client';
import { useClient } from './ClientContext';
import { EMPTY, type QueryState, type Tag } from './queryCache';

// The hooks views use to read server state through the client's query cache.

/**
 * Server state for one key. `fetcher` may change identity freely; the key says when the
 * data is a different question. Pass key null to skip.
 */
export function useQuery<T>(key: string | null, tags: readonly Tag[], fetcher: (api: Client) => Promise<T>): QueryState<T> {
  const { api, cache } = useClient();
  const subscribe = useCallback(
    (listener: () => void) => (key === null ? () => {} : cache.subscribe(key, tags, () => fetcher(api), listener)),
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the key identifies the question
    [cache, key],
  );
  const getSnapshot = useCallback(() => (key === null ? EMPTY : cache.snapshot(key)), [cache, key]);
  return useSyncExternalStore(subscribe, getSnapshot) as QueryState<T>;
}

/** Run `listener` whenever the catalogue changes (after coalescing). */
export function useInvalidation(listener: (tags: ReadonlySet<Tag>) => void): void {
  const { cache } = useClient();
  useEffect(() => cache.onInvalidate(listener), [cache, listener]);
}
