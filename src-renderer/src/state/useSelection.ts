import { useCallback, useState } from 'react';
import type { PageStore } from '../features/grid/pageStore';

// Lightroom-style selection over a result list: click selects one, Shift extends from the
// anchor, Ctrl/Cmd toggles, Ctrl/Cmd+A selects everything that matches. The focused cell
// (the one the inspector and loupe show) is tracked by position in the list.

export interface Selection {
  ids: ReadonlySet<number>;
  anchor: number | null;
  focus: number | null;
}

export interface Modifiers {
  shift: boolean;
  toggle: boolean;
}

const EMPTY: Selection = { ids: new Set(), anchor: null, focus: null };

export function useSelection(store: PageStore, onError: (err: unknown) => void) {
  const [sel, setSel] = useState<Selection>(EMPTY);
  const [storeSeen, setStoreSeen] = useState(store);
  if (storeSeen !== store) {
    // A new query: the old positions mean nothing any more.
    setStoreSeen(store);
    setSel(EMPTY);
  }

  const select = useCallback(
    async (index: number, mods: Modifiers) => {
      const item = store.get(index);
      if (!item) return;
      if (mods.shift && sel.anchor !== null) {
        try {
          const range = await store.idsInRange(sel.anchor, index);
          setSel((s) => ({ ids: new Set(mods.toggle ? [...s.ids, ...range] : range), anchor: s.anchor, focus: index }));
        } catch (err) {
          onError(err);
        }
        return;
      }
      if (mods.toggle) {
        setSel((s) => {
          const ids = new Set(s.ids);
          if (ids.has(item.id)) ids.delete(item.id);
          else ids.add(item.id);
          return { ids, anchor: index, focus: index };
        });
        return;
      }
      setSel({ ids: new Set([item.id]), anchor: index, focus: index });
    },
    [store, sel.anchor, onError],
  );

  const selectAll = useCallback(async () => {
    try {
      const ids = await store.allIds();
      setSel((s) => ({ ids: new Set(ids), anchor: s.anchor ?? 0, focus: s.focus ?? (ids.length ? 0 : null) }));
    } catch (err) {
      onError(err);
    }
  }, [store, onError]);

  const clear = useCallback(() => setSel(EMPTY), []);

  /** Select and focus the asset at a known position (its page may not be loaded yet). */
  const focusAt = useCallback((index: number, id: number) => setSel({ ids: new Set([id]), anchor: index, focus: index }), []);

  return { sel, select, selectAll, clear, focusAt };
}
