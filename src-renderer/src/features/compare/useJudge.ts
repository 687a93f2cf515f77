import { useCallback } from 'react';
import type { ColorLabel, Flag } from '../../../../src-preload/contract';
import { useClient } from '../../api/ClientContext';
import { useEdits } from '../inspector/useEdits';
import { useToast } from '../../ui/Toasts';

/** Flag, rate and label one photo from compare or survey (ratings and labels are undoable edits). */
export function useJudge() {
  const { api, cache } = useClient();
  const edits = useEdits();
  const toast = useToast();
  const setFlag = useCallback(
    async (id: number, flag: Flag | null) => {
      try {
        await api.setFlag({ ids: [id], flag });
        cache.invalidate(new Set(['assets', 'facets']));
      } catch (err) {
        toast.error(err);
      }
    },
    [api, cache, toast],
  );
  return {
    setFlag,
    rate: (id: number, stars: number) => void edits.setRating([id], stars),
    /** The same label again takes it off (Lightroom). */
    label: (id: number, label: ColorLabel, current: ColorLabel | null) => void edits.setLabel([id], current === label ? null : label),
    undo: () => void edits.undo(),
  };
}
