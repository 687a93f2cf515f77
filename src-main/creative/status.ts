import type { JobView } from '../jobs/types';
import { CANCEL_UNCONFIRMED } from '../jobs/cancel';
import type { CreativePartRow, CreativeTaskRow } from './store';

// A creative task's status, read from its parts' queue jobs and the service's answers:
// waiting in Tagsmith's queue, pending or started at the service, downloading, or an end
// (failed, download_failed, cancelled, unknown). The deadline runs from reaching the service.

export interface StatusStep {
  patch: Partial<CreativeTaskRow>;
  /** every part is downloaded: join, stamp, move and index the result */
  finalize: boolean;
  /** one part ended without a result: stop the others */
  cancelParts: boolean;
}

/** `now` stamps the row; `clock` (movable in tests) sets the deadline. */
export function nextStatus(row: CreativeTaskRow, parts: CreativePartRow[], jobs: (JobView | undefined)[], jobOf: (jobId: number) => JobView | undefined, now: number, clock: number): StatusStep {
  const patch: Partial<CreativeTaskRow> = {};
  const failedIdx = jobs.findIndex((j) => j?.state === 'failed');
  if (jobs.every((j) => j?.state === 'done')) {
    patch.status = 'downloading';
    return { patch, finalize: true, cancelParts: false };
  }
  if (failedIdx >= 0) {
    const j = jobs[failedIdx]!;
    const served = parts[failedIdx].remote_status === 'SUCCESS';
    // Accepted by the service (it has a task id) and not reported FAILURE: paid, and maybe
    // still running or done there. Never a failure that offers a billed retry: fetch it again.
    const followable = !served && parts[failedIdx].remote_task_id && !['task_failed', 'task_forgotten'].includes(j.error?.kind ?? '');
    if (followable) {
      Object.assign(patch, {
        status: 'unknown', finished_at: now,
        error: `The service accepted this task (it is paid), but Tagsmith lost track of it: ${j.error?.message ?? 'unknown error'} Fetch again to follow the same task (no new charge).`,
      });
      return { patch, finalize: false, cancelParts: true };
    }
    Object.assign(patch, {
      status: served ? 'download_failed' : 'failed', finished_at: now,
      error: served ? `The result could not be downloaded: ${j.error?.message ?? 'unknown error'} Fetch it again (no new charge).` : (j.error?.message ?? 'The task failed.'),
    });
    return { patch, finalize: false, cancelParts: true };
  }
  if (jobs.some((j) => j?.state === 'cancelled')) {
    const unconfirmed = jobs.find((j) => j?.error?.kind === CANCEL_UNCONFIRMED);
    Object.assign(patch, { status: 'cancelled', finished_at: now, error: unconfirmed ? unconfirmed.error!.message : null });
    return { patch, finalize: false, cancelParts: true };
  }
  if (jobs.some((j) => j?.state === 'unknown')) {
    const j = jobs.find((x) => x?.state === 'unknown')!;
    Object.assign(patch, { status: 'unknown', finished_at: now, error: j.error?.message ?? 'The answer of the service was lost; it may have run (and billed) the task.' });
    return { patch, finalize: false, cancelParts: false };
  }
  const active = parts.find((p) => p.remote_status !== 'SUCCESS');
  const st = active?.remote_status;
  const jobOfActive = active && active.job_id !== null ? jobOf(active.job_id) : undefined;
  patch.status = st === 'STARTED' ? 'started' : st === 'PENDING' ? 'pending' : st === 'SUCCESS' || jobOfActive?.phase === 'download' ? 'downloading' : active?.remote_task_id ? 'pending' : 'waiting';
  if (patch.status !== 'waiting' && row.started_at === null) {
    patch.started_at = now;
    // The deadline runs from the moment the task reached the service.
    if (row.budget_ms !== null) patch.deadline_at = clock + row.budget_ms;
  }
  return { patch, finalize: false, cancelParts: false };
}
