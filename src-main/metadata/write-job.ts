import type { WriteSummary } from '../../src-preload/contract';
import { ApiError } from '../core/errors';
import { JobOutcome, TryLater, type JobHandler } from '../jobs/job-handler';
import { LOCAL, LOCAL_LANE_PREFIX } from '../jobs/lanes';
import type { JobQueue } from '../jobs/queue';
import { waitForJobs } from '../jobs/wait';
import type { LibraryCtx } from '../library/context';
import { FileBusy } from './file-hold';
import { writeAssetMetadata } from './writer';

// Writing metadata into files is a durable job: a batch survives a restart (a write is
// minimal and verified, so running one again is harmless), shows progress in Activity and can
// be paused or cancelled. It runs in a local lane that no service hold stops.

export const WRITE_KIND = 'writeMetadata';
export const WRITE_LANE = LOCAL_LANE_PREFIX + 'files';

/** How soon a write waits for a file another member is writing is tried again. */
const BUSY_RETRY_MS = 3000;

interface WritePayload {
  assetId: number;
}

export function writeMetadataHandler(ctx: LibraryCtx): JobHandler<WritePayload> {
  return {
    describe(p) {
      if (!p || !Number.isInteger(p.assetId) || p.assetId <= 0) throw new Error('assetId: a photo of the library is required');
      return { endpoint: LOCAL, lane: WRITE_LANE, cacheKey: null, billingKey: null };
    },
    async run(job) {
      let r;
      try {
        r = await writeAssetMetadata(ctx, job.payload.assetId);
      } catch (err) {
        // The photo left the library after the batch was queued: nothing to write.
        if (err instanceof ApiError && err.kind === 'not_found') throw new JobOutcome('failed', err.message);
        // Another member of the studio is writing this file: this one waits its turn.
        if (err instanceof FileBusy) throw new TryLater(err.message, BUSY_RETRY_MS);
        throw err;
      }
      const summary: WriteSummary = {
        assetId: r.assetId, status: r.status, changedFields: r.changedFields.map(String), warnings: r.warnings, error: r.error,
      };
      return summary;
    },
  };
}

/**
 * Queue one batch of writes and wait until it has finished or cannot go on (cancelled, or
 * the user paused the queue or the lane). Jobs that did not run are reported as 'queued' or
 * 'cancelled': they stay in Activity, where the batch can be resumed.
 */
export async function writeThroughQueue(ctx: LibraryCtx, queue: JobQueue, ids: readonly number[], label: string): Promise<{ batchId: string; results: WriteSummary[] }> {
  const live = ctx.db.prepare<[number], { one: number }>('SELECT 1 AS one FROM assets WHERE id = ? AND removed_at IS NULL');
  const missing = ids.filter((id) => !live.get(id));
  if (missing.length) {
    throw new ApiError('not_found', `${missing.length === 1 ? 'One of the selected items is' : `${missing.length} of the selected items are`} no longer in the library. Refresh and try again.`);
  }
  const { batch, jobIds } = await queue.enqueueBatchInSteps(label, ids.map((assetId) => ({ kind: WRITE_KIND, payload: { assetId } })));
  await waitForJobs(queue, jobIds, { lane: WRITE_LANE, batchId: batch.id });
  // The batch's jobs in one read (a thousand reads one by one held the main thread at the end).
  const jobs = new Map(queue.listJobs({ batchId: batch.id, limit: jobIds.length }).map((j) => [j.id, j]));
  const results = jobIds.map((id, i): WriteSummary => {
    const j = jobs.get(id) ?? queue.getJob(id)!;
    if (j.state === 'done' && j.result) return j.result as WriteSummary;
    const error = j.error?.message ?? null;
    const status = j.state === 'failed' ? 'failed' : j.state === 'cancelled' ? 'cancelled' : 'queued';
    return { assetId: ids[i], status, changedFields: [], warnings: [], error };
  });
  return { batchId: batch.id, results };
}
