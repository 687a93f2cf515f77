import type { AnalysisKind, AnalysisRunOptions, RunPreview, RunStarted, RunTarget, SkippedAsset } from '../../src-preload/contract';
import { ApiError } from '../core/errors';
import { log } from '../core/log';
import { inSteps } from '../core/steps';
import type { AnalyzeEndpoint, AnalyzePayload } from '../jobs/handlers';
import type { JobQueue } from '../jobs/queue';
import { canonical } from '../jobs/store';
import type { JobSpec, JobView } from '../jobs/types';
import { assetPath, getAssetRow } from '../library/assets';
import type { LibraryCtx } from '../library/context';
import { prepared } from '../library/db';
import { settleMediaHashes } from '../library/media-hash';
import type { FacesResult, KeywordsResult, QualityResult, UgcQualityResult } from '../service/types';
import { analysisHash, batchedEnded, collectEnded, countSkipped, isTerminal, notStaged, resolveTarget } from '../workflows/runs';
import { derivativeSize, type Size } from './derivative';
import { measured } from './events';
import { storeColors, storeFaces, storeQuality, storeUgc, type RunAssetRow } from './store';

// Quality, faces and colour runs, built like keywording (workflows/runs.ts): a selection or
// a search becomes one queue batch of 'analyze' jobs — the queue prepares the derivative,
// paces the calls and answers repeats from its cache keyed by the media hash — and each
// answer is stored as a measurement when its job ends: by a listener on the queue's job
// events and by a sweep at start-up, so a run resumed after a restart still lands.

export const ANALYSIS_KINDS: readonly AnalysisKind[] = ['quality', 'qualityUgc', 'faces', 'colors'];

const ENDPOINT: Record<AnalysisKind, AnalyzeEndpoint> = { quality: 'quality', qualityUgc: 'qualityUgc', faces: 'faces', colors: 'keywords' };

const NAMES: Record<AnalysisKind, string> = { quality: 'Quality', qualityUgc: 'UGC quality', faces: 'Faces', colors: 'Colours' };

/** The parameters sent to the service. Colours come from keywording with colors=true (lang explicit, as keyword runs send it, so both share cache entries). */
export function serviceParams(o: AnalysisRunOptions): Record<string, unknown> {
  if (!ANALYSIS_KINDS.includes(o.kind)) throw new ApiError('validation', `The measurement is one of ${ANALYSIS_KINDS.join(', ')}.`, 'kind');
  if (o.kind !== 'colors') {
    if (o.numColors !== undefined) throw new ApiError('validation', 'The number of colours applies to colour runs only.', 'numColors');
    return {};
  }
  if (o.numColors !== undefined && (!Number.isInteger(o.numColors) || o.numColors < 1 || o.numColors > 50)) {
    throw new ApiError('validation', 'The number of colours is a whole number from 1 to 50.', 'numColors');
  }
  return { lang: 'en', colors: true, ...(o.numColors !== undefined ? { num_colors: o.numColors } : {}) };
}

interface Plan {
  kind: AnalysisKind;
  params: Record<string, unknown>;
  paramsKey: string;
  label: string;
  specs: JobSpec[];
  items: { assetId: number; hash: string | null; size: Size | null }[];
  skipped: SkippedAsset[];
  total: number;
}

/** What a run over `ids` would send, read a chunk of photos at a time (a large selection never holds the main thread). */
async function plan(ctx: LibraryCtx, ids: number[], options: AnalysisRunOptions): Promise<Plan> {
  const params = serviceParams(options);
  const kind = options.kind;
  const paramsKey = canonical({ kind, ...params });
  const done = prepared(
    ctx.db,
    `SELECT r.id FROM analysis_run_assets ra JOIN analysis_runs r ON r.id = ra.run_id
     WHERE ra.asset_id = ? AND ra.state = 'done' AND r.kind = ? AND r.params_key = ? AND ra.content_hash IS ? ORDER BY r.id DESC LIMIT 1`,
  );
  const specs: JobSpec[] = [];
  const items: Plan['items'] = [];
  const skipped: SkippedAsset[] = [];
  const planOne = (id: number): void => {
    const row = getAssetRow(ctx, id);
    if (!row) return;
    if (row.kind !== 'image') {
      skipped.push({ assetId: id, reason: 'unsupported', message: 'The service measures photos only.' });
      return;
    }
    if (row.online !== 1) {
      skipped.push({ assetId: id, reason: 'offline', message: 'Its folder is offline: reconnect the drive, then run again.' });
      return;
    }
    const hash = analysisHash(row);
    if (!options.force) {
      const prior = done.get(id, kind, paramsKey, hash) as { id: number } | undefined;
      if (prior) {
        skipped.push({ assetId: id, reason: 'already_done', runId: prior.id, message: `Already measured with these settings (run ${prior.id}).` });
        return;
      }
    }
    const payload: AnalyzePayload = { file: assetPath(row), endpoint: ENDPOINT[kind], params, assetId: id, ...(hash ? { contentHash: hash } : {}) };
    specs.push({ kind: 'analyze', payload });
    items.push({ assetId: id, hash, size: null });
  };
  await inSteps(ids, (chunk) => chunk.forEach(planOne));
  const n = items.length;
  return { kind, params, paramsKey, label: `${NAMES[kind]} for ${n} ${n === 1 ? 'photo' : 'photos'}`, specs, items, skipped, total: ids.length };
}

/** How many billable calls a measurement run would make (cache hits and assets already measured excluded). */
export async function previewAnalysisRun(ctx: LibraryCtx, queue: JobQueue, target: RunTarget, options: AnalysisRunOptions): Promise<RunPreview> {
  const p = await plan(ctx, await resolveTarget(ctx, target), options);
  return { ...(await queue.preview(p.specs)), assets: p.total, skipped: p.skipped, skippedCounts: countSkipped(p.skipped) };
}

/**
 * Queue a measurement run. Face runs first read each picture's size (header only) to know
 * the derivative the boxes will refer to. The batch is queued a chunk at a time and the run
 * recorded while the batch is still staged, so no job can end before its run knows it (as
 * keyword runs do: workflows/runs.ts start()).
 */
export async function startAnalysisRun(ctx: LibraryCtx, queue: JobQueue, target: RunTarget, options: AnalysisRunOptions): Promise<RunStarted> {
  const ids = await resolveTarget(ctx, target);
  await settleMediaHashes(ctx, ids);
  const p = await plan(ctx, ids, options);
  if (p.kind === 'faces') {
    for (let i = 0; i < p.items.length; i++) p.items[i].size = await derivativeSize((p.specs[i].payload as AnalyzePayload).file);
  }
  const userParams = Object.fromEntries(Object.entries(options).filter(([k, v]) => v !== undefined && k !== 'force'));
  let runId = 0;
  const { batch, jobIds } = await queue.enqueueBatchInSteps(p.label, p.specs, undefined, async (batchId, jobs) => {
    runId = Number(
      prepared(ctx.db, `INSERT INTO analysis_runs (kind, params, params_key, created_at, batch_id, status) VALUES (?, ?, ?, ?, ?, 'running')`)
        .run(p.kind, JSON.stringify(userParams), p.paramsKey, Date.now(), batchId).lastInsertRowid,
    );
    const add = prepared(
      ctx.db,
      `INSERT INTO analysis_run_assets (run_id, asset_id, job_id, content_hash, derivative_width, derivative_height, state) VALUES (?, ?, ?, ?, ?, ?, 'queued')`,
    );
    await inSteps(p.items, (chunk, at) => ctx.db.transaction(() => chunk.forEach((it, k) => add.run(runId, it.assetId, jobs[at + k], it.hash, it.size?.width ?? null, it.size?.height ?? null)))());
  });
  await collectEnded(queue, jobIds, (jobs) => collectAnalysisJobs(ctx, jobs));
  finishIfDone(ctx, runId);
  return { runId, batchId: batch.id, jobs: jobIds.length, skipped: p.skipped, skippedCounts: countSkipped(p.skipped) };
}

// ---- landing results -------------------------------------------------------------------------

/** Store what ended jobs measured, in one transaction; each run they touched is then looked at once. Idempotent. */
export function collectAnalysisJobs(ctx: LibraryCtx, jobs: readonly JobView[]): void {
  const rowsOf = prepared(
    ctx.db,
    `SELECT ra.run_id, ra.asset_id, r.kind, r.params_key, ra.derivative_width, ra.derivative_height
     FROM analysis_run_assets ra JOIN analysis_runs r ON r.id = ra.run_id WHERE ra.job_id = ? AND ra.state = 'queued'`,
  );
  const runs = new Set<number>();
  const assets: number[] = [];
  ctx.db.transaction(() => {
    const mark = prepared(ctx.db, 'UPDATE analysis_run_assets SET state = ?, error = ?, finished_at = ? WHERE run_id = ? AND asset_id = ?');
    for (const job of jobs) {
      for (const ra of rowsOf.all(job.id) as RunAssetRow[]) {
        runs.add(ra.run_id);
        assets.push(ra.asset_id);
        if (job.state !== 'done') {
          const state = job.state === 'cancelled' ? 'cancelled' : 'failed';
          mark.run(state, job.error?.message ?? (state === 'cancelled' ? 'Cancelled.' : 'The analysis failed.'), Date.now(), ra.run_id, ra.asset_id);
          continue;
        }
        try {
          const params = JSON.parse(ra.params_key) as Record<string, unknown>;
          delete params.kind;
          switch (ra.kind) {
            case 'quality': storeQuality(ctx, ra, params, job.result as QualityResult); break;
            case 'qualityUgc': storeUgc(ctx, ra, params, job.result as UgcQualityResult); break;
            case 'faces': storeFaces(ctx, ra, params, job.result as FacesResult); break;
            case 'colors': storeColors(ctx, ra, params, job.result as KeywordsResult); break;
          }
          mark.run('done', null, Date.now(), ra.run_id, ra.asset_id);
        } catch (err) {
          log.error(`Could not store the measurement of job ${job.id}`, err);
          mark.run('failed', err instanceof ApiError ? err.message : 'The service’s answer could not be read.', Date.now(), ra.run_id, ra.asset_id);
        }
      }
    }
  })();
  if (!assets.length) return;
  for (const runId of runs) finishIfDone(ctx, runId);
  measured(ctx, assets);
}

function finishIfDone(ctx: LibraryCtx, runId: number): void {
  const left = prepared(ctx.db, "SELECT count(*) FROM analysis_run_assets WHERE run_id = ? AND state = 'queued'").pluck().get(runId) as number;
  // A run whose batch is still staged is being recorded: more of its photos are coming.
  if (left === 0) prepared(ctx.db, `UPDATE analysis_runs SET status = 'done' WHERE id = ? AND status = 'running' AND ${notStaged('analysis_runs')}`).run(runId);
}

/** Land measurements as their jobs end, and sweep once for jobs that ended while nobody listened. Returns the unsubscribe function. */
export function attachAnalysis(ctx: LibraryCtx, queue: JobQueue): () => void {
  // After the keyword runs' own listener (attached first) has stored the palettes of the same
  // burst of ended jobs: both collect in a microtask, in the order they were attached.
  const off = queue.on('job', batchedEnded((jobs) => {
    collectAnalysisJobs(ctx, jobs);
    for (const job of jobs) if (job.state === 'done' && job.endpoint === 'keywords') importKeywordColors(ctx, job.id);
  }));
  sweepAnalysisRuns(ctx, queue);
  return off;
}

/**
 * A keyword run with colours (workflows/) keeps the palette in ai_run_assets.colors: it is
 * the same measurement, so it becomes the asset's colours unless a newer one is there.
 * `jobId` null: every keyword run's palette not yet imported (the sweep).
 */
export function importKeywordColors(ctx: LibraryCtx, jobId: number | null): void {
  const rows = prepared(
    ctx.db,
    `SELECT ra.asset_id, ra.run_id, ra.colors, r.params, coalesce(ra.finished_at, r.created_at) AS at FROM ai_run_assets ra JOIN ai_runs r ON r.id = ra.run_id
     WHERE ra.colors IS NOT NULL AND ra.state = 'done' AND (? IS NULL OR ra.job_id = ?)
       AND NOT EXISTS (SELECT 1 FROM asset_color_scans s WHERE s.asset_id = ra.asset_id AND s.measured_at >= coalesce(ra.finished_at, r.created_at))`,
  ).all(jobId, jobId) as { asset_id: number; run_id: number; colors: string; params: string; at: number }[];
  if (!rows.length) return;
  ctx.db.transaction(() => {
    for (const r of rows) {
      const params = { source: 'keywords', keywordRun: r.run_id, ...(JSON.parse(r.params) as object) };
      storeColors(ctx, { run_id: null, asset_id: r.asset_id }, params, { keywords: [], colors: JSON.parse(r.colors) as KeywordsResult['colors'] }, r.at);
    }
  })();
  measured(ctx, rows.map((r) => r.asset_id));
}

export function sweepAnalysisRuns(ctx: LibraryCtx, queue: JobQueue): void {
  importKeywordColors(ctx, null);
  const pending = prepared(ctx.db, "SELECT DISTINCT job_id FROM analysis_run_assets WHERE state = 'queued' AND job_id IS NOT NULL").pluck().all() as number[];
  const ended: JobView[] = [];
  for (const jobId of pending) {
    const job = queue.getJob(jobId);
    if (!job) {
      prepared(ctx.db, "UPDATE analysis_run_assets SET state = 'failed', error = ?, finished_at = ? WHERE job_id = ? AND state = 'queued'")
        .run('The job was removed from the queue before it ran.', Date.now(), jobId);
    } else if (isTerminal(job)) ended.push(job);
  }
  if (ended.length) collectAnalysisJobs(ctx, ended);
  for (const id of prepared(ctx.db, "SELECT id FROM analysis_runs WHERE status = 'running'").pluck().all() as number[]) finishIfDone(ctx, id);
}

// ---- views -------------------------------------------------------------------------------------

export interface AnalysisRunView {
  id: number;
  kind: AnalysisKind;
  params: Record<string, unknown>;
  createdAt: number;
  batchId: string;
  status: 'running' | 'done';
  counts: { queued: number; done: number; failed: number; cancelled: number };
}

export function getAnalysisRun(ctx: LibraryCtx, runId: number): AnalysisRunView | null {
  const r = prepared(ctx.db, 'SELECT * FROM analysis_runs WHERE id = ?').get(runId) as
    | { id: number; kind: AnalysisKind; params: string; created_at: number; batch_id: string; status: 'running' | 'done' }
    | undefined;
  if (!r) return null;
  const counts = { queued: 0, done: 0, failed: 0, cancelled: 0 };
  for (const c of prepared(ctx.db, 'SELECT state, count(*) AS n FROM analysis_run_assets WHERE run_id = ? GROUP BY state').all(runId) as { state: keyof typeof counts; n: number }[]) {
    counts[c.state] = c.n;
  }
  return { id: r.id, kind: r.kind, params: JSON.parse(r.params) as Record<string, unknown>, createdAt: r.created_at, batchId: r.batch_id, status: r.status, counts };
}

/** Per asset of a run: what became of its job. */
export function analysisRunAssets(ctx: LibraryCtx, runId: number): { assetId: number; state: string; error: string | null }[] {
  return (prepared(ctx.db, 'SELECT asset_id, state, error FROM analysis_run_assets WHERE run_id = ? ORDER BY rowid').all(runId) as {
    asset_id: number; state: string; error: string | null;
  }[]).map((r) => ({ assetId: r.asset_id, state: r.state, error: r.error }));
}
