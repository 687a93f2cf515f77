// Cancelling a job's remote task once its run has stopped: DELETE /v1/tasks/{id} (or the
// handler's own way), through the cancelTask lane, given up after 15 s. The job ends
// 'cancelled' either way; a failed remote cancel is logged and said (CANCEL_UNCONFIRMED): the
// service may still run, and bill, the task.
import { log } from '../core/log';
import type { ServiceClient } from '../service/client';
import type { JobHandler } from './job-handler';
import type { RateLimiter } from './rate';
import { toView, type JobRow } from './store';

/** error_kind of a job cancelled here whose remote cancel failed */
export const CANCEL_UNCONFIRMED = 'cancel_unconfirmed';
export const CANCEL_UNCONFIRMED_MESSAGE = 'Cancel not confirmed — the service may still run and bill it.';

/** error_kind of a job whose cancel the service answered 409: it keeps being followed, its result lands */
export const NOT_CANCELLABLE = 'not_cancellable';
export const NOT_CANCELLABLE_MESSAGE = 'The service could no longer cancel this task: it finishes and is paid. Tagsmith keeps following it and saves the result.';

export type RemoteCancel = { outcome: 'cancelled' } | { outcome: 'final' } | { outcome: 'unconfirmed'; reason: string };

/**
 * 'cancelled' when the service confirmed, 'final' when it answered that the task can no
 * longer be cancelled (409: it will finish and bill), else 'unconfirmed' with the reason.
 */
export async function cancelRemoteTask(client: ServiceClient, limiter: RateLimiter, handler: JobHandler<never>, row: JobRow & { task_id: string }): Promise<RemoteCancel> {
  try {
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), 15_000);
    const release = await limiter.acquire(ac.signal);
    try {
      const r = handler.cancelRemote ? await handler.cancelRemote(client, toView(row), ac.signal) : await client.cancelTask(row.task_id, { signal: ac.signal });
      return r === 'final' ? { outcome: 'final' } : { outcome: 'cancelled' };
    } finally {
      release();
      clearTimeout(timer);
    }
  } catch (e) {
    log.warn(`Could not cancel remote task of job ${row.id}: ${(e as Error).message}`);
    return { outcome: 'unconfirmed', reason: (e as Error).message || 'the service did not answer' };
  }
}
