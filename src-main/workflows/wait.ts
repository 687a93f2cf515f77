import type { JobQueue } from '../jobs/queue';
import type { QueueHold } from '../jobs/types';
import type { LibraryCtx } from '../library/context';
import { getRun, sweepRuns } from './runs';
import type { RunView } from './types';

// Running a workflow to its end, for the CLI and scripts: start the queue, report progress,
// and come back when the run's jobs are all answered — or when the queue is held (no
// credentials, quota, a cap, the service unreachable), so a batch job never hangs.

export interface RunOutcome {
  run: RunView;
  /** Why jobs are still waiting, when they are. */
  hold: QueueHold | null;
}

export async function runToEnd(ctx: LibraryCtx, queue: JobQueue, runId: number, onProgress?: (done: number, total: number) => void): Promise<RunOutcome> {
  const report = (): void => {
    const r = getRun(ctx, runId);
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
  sweepRuns(ctx, queue);
  const run = getRun(ctx, runId)!;
  return { run, hold: run.counts.queued > 0 ? (queue.status().hold ?? offline) : null };
}
