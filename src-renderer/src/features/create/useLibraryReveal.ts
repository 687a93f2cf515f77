import { useCallback, useEffect, useRef } from 'react';
import { useInvalidation } from '../../api/useQuery';
import { useRevealListener } from './reveal';

interface RevealTarget {
  allIds(): Promise<number[]>;
}

interface RevealHandlers {
  /** Select the asset at its place in the current results. */
  focusAt(index: number, id: number): void;
  /** Whether a search or filter narrows the results (and could hide the asset). */
  hasQuery: boolean;
  /** Clear the search and filters (and go back to the grid). */
  clearQuery(): void;
  /** Tell the user the asset is not in the library yet (once per request). */
  onMissing(): void;
}

/**
 * The library's side of "open the result": select the asset; when the current search or
 * filters hide it, clear them and look again once the new results are there. An asset that
 * is not in the library yet (still being indexed) is selected when the catalogue next
 * changes with it in, however long that takes: the request waits on the library, not a clock.
 * A newer request replaces an older one.
 */
export function useLibraryReveal(store: RevealTarget, handlers: RevealHandlers): void {
  const ref = useRef({ store, ...handlers });
  useEffect(() => {
    ref.current = { store, ...handlers };
  });
  const pending = useRef<{ id: number; told: boolean } | null>(null);

  const attempt = useCallback(async () => {
    const want = pending.current;
    if (!want) return;
    const { store: target } = ref.current;
    const ids = await target.allIds().catch(() => null);
    const now = ref.current;
    // Superseded by a newer request, or the results changed while we asked: the next attempt decides.
    if (pending.current !== want || ids === null || now.store !== target) return;
    const index = ids.indexOf(want.id);
    if (index >= 0) {
      pending.current = null;
      now.focusAt(index, want.id);
    } else if (now.hasQuery) {
      now.clearQuery(); // new results, new store: the effect below tries again
    } else if (!want.told) {
      want.told = true;
      now.onMissing();
    }
  }, []);

  useRevealListener((id) => {
    pending.current = { id, told: false };
    void attempt();
  });
  useEffect(() => {
    if (pending.current) void attempt();
  }, [store, attempt]);
  useInvalidation(
    useCallback(
      (tags) => {
        if (tags.has('assets') && pending.current) void attempt();
      },
      [attempt],
    ),
  );
}
