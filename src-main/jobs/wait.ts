import type { QueueHold } from '../../src-preload/contract';
import type { JobQueue } from './queue';
import { TERMINAL_STATES, type JobView } from './types';

// Running a batch of some workflow to its end, for the CLI and scripts: start the queue,
// report progress, and come back when the batch's jobs are all answered — or when the queue
// is held (no credentials, quota, a cap, the service unreachable), so a script never hangs.

interface RunCounts {
  counts: { queued: number; done: number; failed: number; cancelled: number };
}

export async function runUntilSettled<R extends RunCounts>(
  queue: JobQueue,
  read: () => R | null,
  sweep: () => void,
  onProgress?: (done: number, total: number) => void,
): Promise<{ run: R; hold: QueueHold | null }> {
  const report = (): void => {
    const r = read();
    if (!r || !onProgress) return;
    const total = r.counts.queued + r.counts.done + r.counts.failed + r.counts.cancelled;
    onProgress(total - r.counts.queued, total);
  };
  let offline: QueueHold | null = null;
  let wake: (() => void) | null = null;
  const offJob = queue.on('job', () => report());
  const offStatus = queue.on('status', (s) => {
    // An unreachable service makes the queue probe with backoff indefinitely: a script should
    // hear about it instead of waiting. The run stays queued and resumes on the next start.
    if (s.hold?.reason === 'offline') {
      offline = s.hold;
      wake?.();
    }
  });
  try {
    report();
    queue.start();
    await Promise.race([queue.waitForIdle(), new Promise<void>((resolve) => (wake = resolve))]);
  } finally {
    offJob();
    offStatus();
  }
  sweep();
  const run = read()!;
  return { run, hold: run.counts.queued > 0 ? (queue.status().hold ?? offline) : null };
}

/**
 * Resolves when every one of the jobs has ended, or when none of them runs and the user has
 * stopped the rest (their lane or batch paused, the batch cancelled, the whole queue paused):
 * those stay in Activity to be resumed. `onCheck` sees the jobs at each look, for progress.
 * A pause arrives as a setting, not always as a job event, so it also looks twice a second.
 */
export function waitForJobs(
  queue: JobQueue,
  jobIds: readonly number[],
  opts: { lane: string; batchId?: string | null; onCheck?: (jobs: JobView[]) => void },
): Promise<void> {
  const settled = (): boolean => {
    const jobs = jobIds.map((id) => queue.getJob(id)).filter((j) => j !== undefined);
    opts.onCheck?.(jobs);
    if (jobs.every((j) => TERMINAL_STATES.includes(j.state))) return true;
    if (jobs.some((j) => j.state === 'running')) return false;
    const batch = opts.batchId ? queue.getBatch(opts.batchId) : undefined;
    const lane = queue.lanes().find((l) => l.name === opts.lane);
    return !!(batch?.paused || batch?.cancelled || lane?.paused || queue.status().hold?.reason === 'user');
  };
  return new Promise<void>((resolve) => {
    const check = (): void => {
      if (!settled()) return;
      offJob();
      offStatus();
      clearInterval(timer);
      resolve();
    };
    const offJob = queue.on('job', check);
    const offStatus = queue.on('status', check);
    const timer = setInterval(check, 500);
    check();
  });
}
