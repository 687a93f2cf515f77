import type { JobQueue } from '../jobs/queue';
import type { QueueHold } from '../jobs/types';
import { runUntilSettled } from '../jobs/wait';
import type { LibraryCtx } from '../library/context';
import { getRun, sweepRuns } from './runs';
import type { RunView } from './types';

export interface RunOutcome {
  run: RunView;
  /** Why jobs are still waiting, when they are. */
  hold: QueueHold | null;
}

/** A keywording or captioning run to its end (see jobs/wait.ts). */
export function runToEnd(ctx: LibraryCtx, queue: JobQueue, runId: number, onProgress?: (done: number, total: number) => void): Promise<RunOutcome> {
  return runUntilSettled(queue, () => getRun(ctx, runId), () => sweepRuns(ctx, queue), onProgress);
}
