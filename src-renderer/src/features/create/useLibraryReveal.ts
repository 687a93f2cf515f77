import { useEffect, useRef } from 'react';
import { useRevealListener } from './reveal';

interface RevealTarget {
  allIds(): Promise<number[]>;
}

/**
 * The library's side of "open the result": select the asset; when the current search or
 * filters hide it, clear them and look again (the store changes under us, so read it
 * through a ref) for a few seconds (a result may still be being indexed).
 */
export function useLibraryReveal(store: RevealTarget, focusAt: (index: number, id: number) => void, clearQuery: () => void, onMissing: () => void): void {
  const ref = useRef({ store, focusAt, clearQuery, onMissing });
  useEffect(() => {
    ref.current = { store, focusAt, clearQuery, onMissing };
  });
  useRevealListener((id) => {
    void (async () => {
      let cleared = false;
      for (let attempt = 0; attempt < 30; attempt++) {
        const index = (await ref.current.store.allIds().catch(() => [] as number[])).indexOf(id);
        if (index >= 0) {
          ref.current.focusAt(index, id);
          return;
        }
        if (!cleared) {
          ref.current.clearQuery();
          cleared = true;
        }
        await new Promise((r) => setTimeout(r, 150));
      }
      ref.current.onMissing();
    })();
  });
}
