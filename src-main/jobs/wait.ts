import type { QueueHold } from '../../src-preload/contract';
import type { JobQueue } from './queue';

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
