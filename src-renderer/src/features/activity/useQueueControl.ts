import { useCallback } from 'react';
import type { QueueAction, QueueTarget } from '../../../../src-preload/contract';
import { useClient } from '../../api/ClientContext';
import { useToast } from '../../ui/Toasts';
import { queueStoreOf } from './queueStore';

/** Pause/resume/cancel/retry through the Api; failures become a readable toast, success re-reads the queue. */
export function useQueueControl(): (action: QueueAction, target: QueueTarget) => Promise<boolean> {
  const { api } = useClient();
  const toast = useToast();
  return useCallback(
    async (action, target) => {
      const store = queueStoreOf(api);
      try {
        await api.controlQueue({ action, target });
        await store.refresh();
        return true;
      } catch (err) {
        toast.error(err);
        return false;
      }
    },
    [api, toast],
  );
}
