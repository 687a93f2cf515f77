import type { QueueHold } from '../../src-preload/contract';
import type { JobQueue } from '../jobs/queue';
import type { LibraryCtx } from '../library/context';
import { getAnalysisRun, sweepAnalysisRuns, type AnalysisRunView } from './runs';

// Running a measurement run to its end, for the CLI (as workflows/wait.ts does for keywords):
// come back when its jobs are answered, or when the queue is held, so a script never hangs.

export async function runAnalysisToEnd(
  ctx: LibraryCtx, queue: JobQueue, runId: number, onProgress?: (done: number, total: number) => void,
): Promise<{ run: AnalysisRunView; hold: QueueHold | null }> {
  const report = (): void => {
    const r = getAnalysisRun(ctx, runId);
    if (!r || !onProgress) return;
    const total = r.counts.queued + r.counts.done + r.counts.failed + r.counts.cancelled;
    onProgress(total - r.counts.queued, total);
  };
  let offline: QueueHold | null = null;
  let wake: (() => void) | null = null;
  const offJob = queue.on('job', () => report());
  const offStatus = queue.on('status', (s) => {
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
  sweepAnalysisRuns(ctx, queue);
  const run = getAnalysisRun(ctx, runId)!;
  return { run, hold: run.counts.queued > 0 ? (queue.status().hold ?? offline) : null };
}
