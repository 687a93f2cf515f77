import { join } from 'node:path';
import type { JobAsset } from '../../src-preload/contract';
import { mediaToken } from '../core/media';
import type { LibraryCtx } from '../library/context';
import { prepared } from '../library/db';

/**
 * The photo each job works on, by job id: jobs on a library asset carry its id in their
 * payload (`assetId`: keywording, captioning, analysis, writing into files). One query for
 * a page of jobs; jobs on no asset (creative tasks) are absent from the map.
 */
export function jobAssets(ctx: LibraryCtx, jobIds: readonly number[]): Map<number, JobAsset> {
  if (!jobIds.length) return new Map();
  const rows = prepared(
    ctx.db,
    `SELECT j.id AS job, a.id AS id, a.name AS name, a.thumb AS thumb FROM jobs j
     JOIN assets a ON a.id = json_extract(j.payload, '$.assetId')
     WHERE j.id IN (SELECT value FROM json_each(?)) AND json_valid(j.payload)`,
  ).all(JSON.stringify(jobIds)) as { job: number; id: number; name: string; thumb: string | null }[];
  return new Map(rows.map((r) => [r.job, { id: r.id, name: r.name, thumb: r.thumb ? mediaToken(join(ctx.paths.cacheDir, r.thumb)) : null }]));
}
