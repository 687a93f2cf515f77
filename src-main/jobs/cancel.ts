// Cancelling a job's remote task once its run has stopped: DELETE /v1/tasks/{id} (or the
// handler's own way), through the cancelTask lane, given up after 15 s. The job ends
// 'cancelled' either way; a failed remote cancel is logged.
import { log } from '../core/log';
import type { ServiceClient } from '../service/client';
import type { JobHandler } from './job-handler';
import type { RateLimiter } from './rate';
import { toView, type JobRow } from './store';

export async function cancelRemoteTask(client: ServiceClient, limiter: RateLimiter, handler: JobHandler<never>, row: JobRow & { task_id: string }): Promise<void> {
  try {
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), 15_000);
    const release = await limiter.acquire(ac.signal);
    try {
      if (handler.cancelRemote) await handler.cancelRemote(client, toView(row), ac.signal);
      else await client.cancelTask(row.task_id, { signal: ac.signal });
    } finally {
      release();
      clearTimeout(timer);
    }
  } catch (e) {
    log.warn(`Could not cancel remote task of job ${row.id}: ${(e as Error).message}`);
  }
}
