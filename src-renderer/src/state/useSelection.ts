import { useCallback, useEffect, useState } from 'react';
import type { PageStore } from '../features/grid/pageStore';

// Lightroom-style selection over a result list: click selects one, Shift extends from the
// anchor, Ctrl/Cmd toggles, Ctrl/Cmd+A selects everything that matches. The focused cell
// (the one the inspector and loupe show) is the asset `focusId`; `focus` is its position in
// the list, a hint that is looked up again when the list changes under it (a file indexed
// ahead of it, a re-sort), so the inspector never jumps to whatever now sits at that place.

export interface Selection {
  ids: ReadonlySet<number>;
  anchor: number | null;
  focus: number | null;
  focusId: number | null;
}

export interface Modifiers {
  shift: boolean;
  toggle: boolean;
}

const EMPTY: Selection = { ids: new Set(), anchor: null, focus: null, focusId: null };

export function useSelection(store: PageStore, version: number, onError: (err: unknown) => void) {
  const [sel, setSel] = useState<Selection>(EMPTY);
  const [storeSeen, setStoreSeen] = useState(store);
  if (storeSeen !== store) {
    // A new query: the old positions mean nothing any more.
    setStoreSeen(store);
    setSel(EMPTY);
  }

  // The list changed (pages re-fetched): if another asset now sits at the focused place, find
  // where the focused asset went. If it left the results, focus what took its place.
  const { focus, focusId } = sel;
  useEffect(() => {
    if (focus === null || focusId === null) return;
    const here = store.get(focus);
    if (!here || here.id === focusId) return;
    let current = true;
    store.allIds().then(
      (all) => {
        if (!current) return;
        const index = all.indexOf(focusId);
        setSel((s) => {
          if (s.focus !== focus || s.focusId !== focusId) return s; // the user moved on meanwhile
          if (index >= 0) return { ...s, focus: index, anchor: s.anchor === focus ? index : s.anchor };
          const ids = new Set(s.ids);
          ids.delete(focusId);
          const now = store.get(focus);
          if (now && s.ids.size <= 1) ids.add(now.id);
          return { ...s, ids, focusId: now?.id ?? null };
        });
      },
      (err: unknown) => onError(err),
    );
    return () => {
      current = false;
    };
  }, [store, version, focus, focusId, onError]);

  const select = useCallback(
    async (index: number, mods: Modifiers) => {
      const item = store.get(index);
      if (!item) return;
      if (mods.shift && sel.anchor !== null) {
        try {
          const range = await store.idsInRange(sel.anchor, index);
          setSel((s) => ({ ids: new Set(mods.toggle ? [...s.ids, ...range] : range), anchor: s.anchor, focus: index, focusId: item.id }));
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
          return { ids, anchor: index, focus: index, focusId: item.id };
        });
        return;
      }
      setSel({ ids: new Set([item.id]), anchor: index, focus: index, focusId: item.id });
    },
    [store, sel.anchor, onError],
  );

  const selectAll = useCallback(async () => {
    try {
      const ids = await store.allIds();
      setSel((s) => {
        const focus = s.focus ?? (ids.length ? 0 : null);
        return { ids: new Set(ids), anchor: s.anchor ?? 0, focus, focusId: s.focusId ?? (focus !== null ? ids[focus] : null) };
      });
    } catch (err) {
      onError(err);
    }
  }, [store, onError]);

  const clear = useCallback(() => setSel(EMPTY), []);

  /** Select and focus the asset at a known position (its page may not be loaded yet). */
  const focusAt = useCallback((index: number, id: number) => setSel({ ids: new Set([id]), anchor: index, focus: index, focusId: id }), []);

  return { sel, select, selectAll, clear, focusAt };
}
