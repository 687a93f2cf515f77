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
 * The jobs are read once, then kept current from the queue's job events (reading a batch of
 * thousands back on every event stalled the main thread); a pause arrives as a setting, not
 * always as a job event, so twice a second it reads their states (one statement) and looks.
 */
export function waitForJobs(
  queue: JobQueue,
  jobIds: readonly number[],
  opts: { lane: string; batchId?: string | null; onCheck?: (jobs: JobView[]) => void },
): Promise<void> {
  const views = new Map<number, JobView>();
  const readAll = (): void => {
    // A batch's jobs in one statement (a thousand reads one by one held the main thread).
    const ofBatch = opts.batchId ? new Map(queue.listJobs({ batchId: opts.batchId, limit: jobIds.length }).map((j) => [j.id, j])) : null;
    for (const id of jobIds) {
      const j = ofBatch?.get(id) ?? queue.getJob(id);
      if (j) views.set(id, j);
      else views.delete(id);
    }
  };
  // The look twice a second: every job's state in one read; only a job whose state moved
  // without an event is read in full.
  const reread = (): void => {
    const states = queue.jobStates(jobIds);
    for (const id of jobIds) {
      const state = states.get(id);
      if (state === undefined) views.delete(id);
      else if (views.get(id)?.state !== state) {
        const j = queue.getJob(id);
        if (j) views.set(id, j);
      }
    }
  };
  const settled = (): boolean => {
    const jobs = [...views.values()];
    opts.onCheck?.(jobs);
    let ended = true;
    for (const j of jobs) {
      if (j.state === 'running') return false;
      if (!TERMINAL_STATES.includes(j.state)) ended = false;
    }
    if (ended) return true;
    const batch = opts.batchId ? queue.getBatch(opts.batchId) : undefined;
    const lane = queue.lanes().find((l) => l.name === opts.lane);
    return !!(batch?.paused || batch?.cancelled || lane?.paused || queue.status().hold?.reason === 'user');
  };
  readAll();
  return new Promise<void>((resolve) => {
    const check = (): void => {
      if (!settled()) return;
      offJob();
      offStatus();
      clearInterval(timer);
      resolve();
    };
    const offJob = queue.on('job', (j) => {
      if (!views.has(j.id)) return;
      views.set(j.id, j);
      check();
    });
    const offStatus = queue.on('status', check);
    const timer = setInterval(() => {
      reread();
      check();
    }, 500);
    check();
  });
}
