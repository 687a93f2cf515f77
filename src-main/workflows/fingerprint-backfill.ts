import type { BatchView } from '../../src-preload/contract';
import type { JobHandler } from '../jobs/job-handler';
import { LOCAL, LOCAL_LANE_PREFIX } from '../jobs/lanes';
import type { JobQueue } from '../jobs/queue';
import type { LibraryCtx } from '../library/context';
import { fillMissingFingerprints, missingFingerprintIds } from '../library/similarity';
import { ServiceError } from '../service/errors';

// Issue 17: a library catalogued before fingerprints existed gets them in the background.
// When the app opens a library whose pictures lack one, a low-priority batch in the job queue
// computes them from the cached thumbnails (no original is read again): its own local lane,
// one job at a time, so it never holds up a scan, a write or a service call. It shows in
// Activity like any batch; cancelling it stops it; a batch cut short by quitting goes on
// when the app starts again (each fingerprint is committed as it is made, so nothing is done
// twice).

export const FINGERPRINT_KIND = 'fingerprints';
export const FINGERPRINT_LANE = `${LOCAL_LANE_PREFIX}fingerprints`;
export const FINGERPRINT_BATCH_LABEL = 'Fingerprints for similar photos';
/** Pictures per job: a few seconds' work each, so progress moves and a cancel is quick. */
const PER_JOB = 200;

interface Payload {
  assetIds: number[];
}

export function fingerprintHandler(ctx: LibraryCtx): JobHandler<Payload> {
  return {
    describe(p) {
      if (!p || !Array.isArray(p.assetIds) || !p.assetIds.every((id) => Number.isInteger(id) && id > 0)) throw new Error('assetIds: photos of the library are required');
      return { endpoint: LOCAL, lane: FINGERPRINT_LANE, cacheKey: null, billingKey: null };
    },
    async run(job) {
      const filled = await fillMissingFingerprints(ctx, { assetIds: job.payload.assetIds, signal: job.signal });
      if (job.signal.aborted) throw new ServiceError('cancelled', 'The job was stopped.');
      return { filled: filled.length };
    },
  };
}

/**
 * Queue the back-fill when pictures lack a fingerprint and none is under way already (a batch
 * left queued, running or paused by the last session goes on by itself). Returns the batch,
 * or null when there is nothing to do.
 */
export function queueFingerprintBackfill(ctx: LibraryCtx, queue: JobQueue): BatchView | null {
  const pending = ctx.db.prepare<[string], { one: number }>("SELECT 1 AS one FROM jobs WHERE kind = ? AND state IN ('queued', 'running', 'paused') LIMIT 1").get(FINGERPRINT_KIND);
  if (pending) return null;
  const ids = missingFingerprintIds(ctx.db);
  if (!ids.length) return null;
  const specs = [];
  for (let i = 0; i < ids.length; i += PER_JOB) specs.push({ kind: FINGERPRINT_KIND, payload: { assetIds: ids.slice(i, i + PER_JOB) } });
  return queue.enqueueBatch(FINGERPRINT_BATCH_LABEL, specs).batch;
}
