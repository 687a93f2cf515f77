import type { QueueHold } from '../../src-preload/contract';
import type { JobQueue } from '../jobs/queue';
import { runUntilSettled } from '../jobs/wait';
import type { LibraryCtx } from '../library/context';
import { getAnalysisRun, sweepAnalysisRuns, type AnalysisRunView } from './runs';

/** A measurement run to its end, for the CLI (see jobs/wait.ts). */
export function runAnalysisToEnd(
  ctx: LibraryCtx, queue: JobQueue, runId: number, onProgress?: (done: number, total: number) => void,
): Promise<{ run: AnalysisRunView; hold: QueueHold | null }> {
  return runUntilSettled(queue, () => getAnalysisRun(ctx, runId), () => sweepAnalysisRuns(ctx, queue), onProgress);
}
