import { useCallback } from 'react';
import type { ColorLabel } from '../../../../src-preload/contract';
import { useClient } from '../../api/ClientContext';
import { undoneText, useToast } from '../../ui/Toasts';

/**
 * Every edit goes through here: the Api commits it (a large selection a chunk at a time) before
 * the promise resolves, then views re-query. Resolves true when committed, false after showing
 * why not; views re-query then too (an edit or undo stopped part-way changed what it reached).
 */
export function useEdits() {
  const { api, cache } = useClient();
  const toast = useToast();
  const commit = useCallback(
    async (work: () => Promise<unknown>): Promise<boolean> => {
      try {
        await work();
        return true;
      } catch (err) {
        toast.error(err);
        return false;
      } finally {
        cache.invalidate(new Set(['assets', 'keywords', 'facets', 'review']));
      }
    },
    [cache, toast],
  );
  return {
    addKeywords: (ids: number[], add: string[]) => commit(() => api.editKeywords({ ids, add })),
    removeKeywords: (ids: number[], remove: string[]) => commit(() => api.editKeywords({ ids, remove })),
    setCaption: (ids: number[], caption: string | null) => commit(() => api.setCaption({ ids, caption })),
    setTitle: (ids: number[], title: string | null) => commit(() => api.setTitle({ ids, title })),
    setRating: (ids: number[], rating: number) => commit(() => api.setRating({ ids, rating })),
    setLabel: (ids: number[], label: ColorLabel | null) => commit(() => api.setLabel({ ids, label })),
    moveKeyword: (assetId: number, from: number, to: number) => commit(() => api.moveKeyword({ assetId, from, to })),
    /** Any other committed change (review decisions, vocabulary edits): run it, then re-query. */
    commit,
    undo: async () => {
      try {
        const what = await api.undo();
        // The Api describes the undo ("Undo: rate 2 photos 3 stars"): said as what was done.
        toast.info(undoneText(what));
      } catch (err) {
        toast.error(err);
      } finally {
        cache.invalidate(new Set(['assets', 'keywords', 'facets', 'review', 'runs']));
      }
    },
  };
}
