import { EventEmitter } from 'node:events';
import { extname } from 'node:path';
import { addCaptionSuggestion, addKeywordSuggestions, type KeywordSuggestion } from '../catalogue/suggestions';
import { ApiError } from '../core/errors';
import { log } from '../core/log';
import { inSteps } from '../core/steps';
import type { AnalyzeEndpoint, AnalyzePayload } from '../jobs/handlers';
import type { JobQueue } from '../jobs/queue';
import { canonical } from '../jobs/store';
import { TERMINAL_STATES, type JobSpec, type JobView } from '../jobs/types';
import { assetPath, getAssetRow, type AssetRow } from '../library/assets';
import type { LibraryCtx } from '../library/context';
import { prepared } from '../library/db';
import { settleMediaHashes } from '../library/media-hash';
import { searchIds } from '../search/search';
import { liveSelection } from '../library/selection';
import { findGroups } from '../library/similarity';
import { ServiceError } from '../service/errors';
import { VIDEO_KEYWORD_EXTS, videoDurationWarning } from '../service/prepare';
import type { CaptionResult, KeywordParams, KeywordsResult } from '../service/types';
import * as v from '../service/validate';
import { Vocabulary, cleanKeyword, getKeywordSettings } from './hygiene';
import {
  CAPTION_LENGTHS, KEYWORD_LANGS, type CaptionRunOptions, type KeywordLang, type KeywordRunOptions, type PerGroupSaving, type RunKind, type RunPreview,
  type RunStarted, type RunTarget, type RunView, type SkippedAsset, type SkippedCounts,
} from './types';

// AI runs: a selection or a search becomes one queue batch of 'analyze' jobs (the queue
// prepares the ~300 px derivative, paces the calls and answers repeats from its cache keyed
// by content hash + endpoint + parameters). Each answer is stored as suggestions when its job
// ends — by a listener on the queue's job events, and by a sweep at start-up for answers that
// arrived while nobody listened — so a run resumed after a restart still lands its results
// and nothing is ever paid for twice.

interface ServiceParams {
  image: Record<string, unknown>;
  video: Record<string, unknown> | null;
}

interface Plan {
  kind: RunKind;
  options: KeywordRunOptions | CaptionRunOptions;
  lang: KeywordLang | null;
  paramsKey: string;
  label: string;
  specs: JobSpec[];
  /** spec: index of the job in specs (a group's members share its representative's); from: that representative. */
  items: { assetId: number; hash: string | null; spec: number; from?: number }[];
  skipped: SkippedAsset[];
  perGroup?: PerGroupSaving;
  total: number;
  warnings: { assetId: number; message: string }[];
}

// ---- events ------------------------------------------------------------------------------

export interface WorkflowEvents {
  /** A run's counts changed (a job ended, the run finished or was reverted). */
  run: RunView;
  /** Suggestions of these assets were stored or decided. */
  suggestions: { runId: number | null; assetIds: number[] };
}

const emitters = new WeakMap<LibraryCtx, EventEmitter>();

function emitterOf(ctx: LibraryCtx): EventEmitter {
  let e = emitters.get(ctx);
  if (!e) {
    e = new EventEmitter();
    e.setMaxListeners(50);
    emitters.set(ctx, e);
  }
  return e;
}

/** Listen to workflow events of one library (proposed Api events: aiRun, suggestionsChanged). */
export function onWorkflowEvent<E extends keyof WorkflowEvents>(ctx: LibraryCtx, event: E, listener: (payload: WorkflowEvents[E]) => void): () => void {
  const e = emitterOf(ctx);
  e.on(event, listener);
  return () => e.off(event, listener);
}

export function emitWorkflowEvent<E extends keyof WorkflowEvents>(ctx: LibraryCtx, event: E, payload: WorkflowEvents[E]): void {
  try {
    emitterOf(ctx).emit(event, payload);
  } catch (err) {
    log.error(`A ${event} listener failed`, err);
  }
}

// ---- planning ----------------------------------------------------------------------------

const invalid = (message: string, field: string): ApiError => new ApiError('validation', message, field);

function serviceError(e: unknown): never {
  if (e instanceof ServiceError) throw new ApiError('validation', e.message, (e as ServiceError & { field?: string }).field);
  throw e;
}

/** The parameters sent to the service, validated; lang is always explicit so 'en' and "no lang" share one cache entry. */
function keywordParams(o: KeywordRunOptions): ServiceParams {
  if (o.lang !== undefined && !KEYWORD_LANGS.includes(o.lang)) throw invalid(`The keyword language is one of ${KEYWORD_LANGS.join(', ')}.`, 'lang');
  const image: KeywordParams = { lang: o.lang ?? 'en' };
  if (o.numKeywords !== undefined) image.num_keywords = o.numKeywords;
  if (o.threshold !== undefined) image.threshold = o.threshold;
  if (o.colors) {
    image.colors = true;
    if (o.numColors !== undefined) image.num_colors = o.numColors;
  } else if (o.numColors !== undefined) throw invalid('The number of colours applies only when colours are asked for.', 'numColors');
  let checked: KeywordParams;
  try {
    checked = v.checkKeywordParams(image);
  } catch (e) {
    serviceError(e);
  }
  const video: Record<string, unknown> = {};
  if (checked.num_keywords !== undefined) video.num_keywords = checked.num_keywords;
  if (checked.threshold !== undefined) video.threshold = checked.threshold;
  return { image: { ...checked }, video };
}

function captionParams(o: CaptionRunOptions): ServiceParams {
  const len = o.length ?? 'normal';
  if (!CAPTION_LENGTHS.includes(len)) throw invalid('The caption length is short, normal or long.', 'length');
  return { image: { caption_len: len }, video: null };
}

/**
 * Assets of the target, live ones only, in order, de-duplicated; a selection that names an
 * asset no longer in the library is refused (checked in steps: library/selection.ts).
 */
export async function resolveTarget(ctx: LibraryCtx, target: RunTarget): Promise<number[]> {
  return 'query' in target ? searchIds(ctx, target.query) : liveSelection(ctx, target.assetIds);
}

/** The hash the queue's cache is keyed by: the media hash (content without metadata) when the library has one. */
export function analysisHash(row: AssetRow): string | null {
  return row.media_hash ?? row.content_hash;
}

/** What a run over `ids` would send, read a chunk of photos at a time (a large selection never holds the main thread). */
async function plan(ctx: LibraryCtx, kind: RunKind, ids: number[], options: KeywordRunOptions | CaptionRunOptions): Promise<Plan> {
  const params = kind === 'keywords' ? keywordParams(options as KeywordRunOptions) : captionParams(options as CaptionRunOptions);
  const paramsKey = canonical({ kind, ...params });
  const done = prepared(
    ctx.db,
    `SELECT r.id FROM ai_run_assets ra JOIN ai_runs r ON r.id = ra.run_id
     WHERE ra.asset_id = ? AND ra.state = 'done' AND r.kind = ? AND r.params_key = ? AND r.status <> 'reverted'
       AND ra.content_hash IS ? ORDER BY r.id DESC LIMIT 1`,
  );
  const specs: JobSpec[] = [];
  const items: Plan['items'] = [];
  const skipped: SkippedAsset[] = [];
  const warnings: Plan['warnings'] = [];
  const planOne = (id: number): void => {
    const row = getAssetRow(ctx, id);
    if (!row) return;
    const hash = analysisHash(row);
    const endpoint: AnalyzeEndpoint | null =
      row.kind === 'image' ? (kind === 'keywords' ? 'keywords' : 'caption') : row.kind === 'video' && kind === 'keywords' ? 'videoKeywords' : null;
    if (!endpoint) {
      skipped.push({
        assetId: id, reason: 'unsupported',
        message: kind === 'caption' ? 'The captioning service describes photos only.' : 'Only photos and videos can be keyworded.',
      });
      return;
    }
    if (row.online !== 1) {
      skipped.push({ assetId: id, reason: 'offline', message: 'Its folder is offline: reconnect the drive, then run again.' });
      return;
    }
    if (!options.force) {
      const prior = done.get(id, kind, paramsKey, hash) as { id: number } | undefined;
      if (prior) {
        skipped.push({ assetId: id, reason: 'already_done', runId: prior.id, message: `Already done with these settings (run ${prior.id}).` });
        return;
      }
    }
    const payload: AnalyzePayload = {
      file: assetPath(row), endpoint, params: endpoint === 'videoKeywords' ? params.video! : params.image, assetId: id,
      ...(hash ? { contentHash: hash } : {}),
    };
    specs.push({ kind: 'analyze', payload });
    items.push({ assetId: id, hash, spec: specs.length - 1 });
    if (endpoint === 'videoKeywords') {
      const long = videoDurationWarning(row.duration_s);
      if (long) warnings.push({ assetId: id, message: long });
      const ext = extname(row.name).toLowerCase();
      if (!VIDEO_KEYWORD_EXTS.includes(ext)) {
        warnings.push({ assetId: id, message: `${ext.slice(1).toUpperCase() || row.format.toUpperCase()} is not a format the service takes (MP4, MPEG, MOV, AVI): an MP4 copy is made and sent (the file itself is unchanged).` });
      }
    }
  };
  await inSteps(ids, (chunk) => chunk.forEach(planOne));
  const perGroup = options.perGroup ? shareWithinGroups(ctx, specs, items) : undefined;
  const lang = kind === 'keywords' ? ((params.image.lang as KeywordLang | undefined) ?? 'en') : null;
  const n = items.length;
  const what = `${n} ${n === 1 ? 'file' : 'files'}`;
  const label = kind === 'keywords' ? `Keywords for ${what} (${lang})` : `Captions for ${what} (${(options as CaptionRunOptions).length ?? 'normal'})`;
  return { kind, options, lang, paramsKey, label, specs: perGroup ? perGroup.specs : specs, items, skipped, total: ids.length, warnings, ...(perGroup ? { perGroup: perGroup.saving } : {}) };
}

/**
 * Pay per scene: among the photos about to be sent, each group of similar ones (bursts,
 * near-duplicates; library/similarity) sends one representative — the user's pick in the
 * group, else its suggested best frame — and its other members share that job, so they
 * receive its suggestions (marked as coming from it) and cost nothing. Videos and photos in
 * no group are sent as they are. Rewrites items' spec indexes; returns the specs to send.
 */
function shareWithinGroups(ctx: LibraryCtx, specs: JobSpec[], items: Plan['items']): { specs: JobSpec[]; saving: PerGroupSaving } {
  const photos = items.filter((it) => (specs[it.spec].payload as AnalyzePayload).endpoint !== 'videoKeywords').map((it) => it.assetId);
  const groups = photos.length > 1 ? findGroups(ctx.db, photos) : [];
  const picked = prepared(ctx.db, "SELECT 1 FROM assets WHERE id = ? AND flag = 'pick'");
  const repOf = new Map<number, number>();
  for (const g of groups) {
    const rep = g.members.find((id) => picked.get(id)) ?? g.best;
    for (const id of g.members) repOf.set(id, rep);
  }
  const byAsset = new Map(items.map((it) => [it.assetId, it]));
  const kept: JobSpec[] = [];
  const newIndex = new Map<number, number>();
  // Representatives and ungrouped photos keep their own job, in the original order.
  for (const it of items) {
    const rep = repOf.get(it.assetId);
    if (rep !== undefined && rep !== it.assetId) continue;
    newIndex.set(it.assetId, kept.length);
    kept.push(specs[it.spec]);
  }
  for (const it of items) {
    const rep = repOf.get(it.assetId);
    if (rep !== undefined && rep !== it.assetId) {
      it.spec = newIndex.get(byAsset.get(rep)!.assetId)!;
      it.from = rep;
    } else it.spec = newIndex.get(it.assetId)!;
  }
  const grouped = groups.reduce((n, g) => n + g.members.length, 0);
  const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;
  const message = groups.length === 0
    ? `No similar photos among these ${plural(items.length, 'file', 'files')}: ${plural(kept.length, 'call', 'calls')}, one each.`
    : `${plural(grouped, 'photo', 'photos')} in ${plural(groups.length, 'group', 'groups')}: ${plural(kept.length - (items.length - grouped), 'billed call', 'billed calls')} instead of ${grouped}` +
      (items.length > grouped ? `, plus ${plural(items.length - grouped, 'file', 'files')} in no group.` : '.');
  return { specs: kept, saving: { groups: groups.length, grouped, calls: kept.length, instead: items.length, message } };
}

/** How many were skipped for each reason. */
export function countSkipped(skipped: readonly SkippedAsset[]): SkippedCounts {
  const counts: SkippedCounts = {};
  for (const s of skipped) counts[s.reason] = (counts[s.reason] ?? 0) + 1;
  return counts;
}

/** The most skipped assets, and warnings, a run's answer to the window lists (skippedCounts counts every one). */
export const LISTED_IN_WINDOW = 100;

/**
 * A run's preview or start as the window gets it: its lists cut to the first LISTED_IN_WINDOW.
 * A run over a million photos already done listed a million: 170 ms of serialising on the
 * main process, and more to take apart in the window, for a dialog that shows counts.
 */
export function forWindow<T extends { skipped: SkippedAsset[]; warnings?: RunPreview['warnings'] }>(r: T): T {
  return { ...r, skipped: r.skipped.slice(0, LISTED_IN_WINDOW), ...(r.warnings ? { warnings: r.warnings.slice(0, LISTED_IN_WINDOW) } : {}) };
}

async function previewOf(queue: JobQueue, p: Plan): Promise<RunPreview> {
  return { ...(await queue.preview(p.specs)), assets: p.total, skipped: p.skipped, skippedCounts: countSkipped(p.skipped), ...(p.warnings.length ? { warnings: p.warnings } : {}), ...(p.perGroup ? { perGroup: p.perGroup } : {}) };
}

function cleanOptions<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([k, val]) => val !== undefined && k !== 'force')) as T;
}

async function start(ctx: LibraryCtx, queue: JobQueue, p: Plan): Promise<RunStarted> {
  let runId = 0;
  // The batch is queued a chunk at a time, and the run recorded (a chunk of photos at a time)
  // while the batch is still staged: no job of it can end before its run knows it. Should
  // the queueing be cut short (a crash, another process's start), the staged batch goes and
  // the run with it (migration 030). The sweep below lands the cache hits, done at once.
  const { batch, jobIds } = await queue.enqueueBatchInSteps(p.label, p.specs, undefined, async (batchId, ids) => {
    runId = Number(
      prepared(ctx.db, `INSERT INTO ai_runs (kind, params, params_key, lang, created_at, batch_id, status) VALUES (?, ?, ?, ?, ?, ?, 'running')`)
        .run(p.kind, JSON.stringify(cleanOptions(p.options)), p.paramsKey, p.lang, Date.now(), batchId).lastInsertRowid,
    );
    const add = prepared(ctx.db, `INSERT INTO ai_run_assets (run_id, asset_id, job_id, content_hash, state, from_asset_id) VALUES (?, ?, ?, ?, 'queued', ?)`);
    await inSteps(p.items, (chunk) => ctx.db.transaction(() => chunk.forEach((it) => add.run(runId, it.assetId, ids[it.spec], it.hash, it.from ?? null)))());
  });
  await collectEnded(queue, jobIds, (jobs) => collectJobs(ctx, jobs));
  finishRunIfDone(ctx, runId);
  return { runId, batchId: batch.id, jobs: jobIds.length, skipped: p.skipped, skippedCounts: countSkipped(p.skipped) };
}

/** Land what the jobs that ended already brought (answers from the cache are done at once), a chunk at a time. */
export async function collectEnded(queue: JobQueue, jobIds: readonly number[], collect: (jobs: JobView[]) => void): Promise<void> {
  await inSteps(jobIds, (chunk) => {
    const ended = chunk.map((id) => queue.getJob(id)).filter((job): job is JobView => !!job && isTerminal(job));
    if (ended.length) collect(ended);
  });
}

/** How many billable calls a keyword run would make (cache hits and assets already done excluded) and what they cost under the caps. */
export async function previewKeywordRun(ctx: LibraryCtx, queue: JobQueue, target: RunTarget, options: KeywordRunOptions = {}): Promise<RunPreview> {
  return previewOf(queue, await plan(ctx, 'keywords', await resolveTarget(ctx, target), options));
}

export async function startKeywordRun(ctx: LibraryCtx, queue: JobQueue, target: RunTarget, options: KeywordRunOptions = {}): Promise<RunStarted> {
  const ids = await resolveTarget(ctx, target);
  await settleMediaHashes(ctx, ids);
  return start(ctx, queue, await plan(ctx, 'keywords', ids, options));
}

export async function previewCaptionRun(ctx: LibraryCtx, queue: JobQueue, target: RunTarget, options: CaptionRunOptions = {}): Promise<RunPreview> {
  return previewOf(queue, await plan(ctx, 'caption', await resolveTarget(ctx, target), options));
}

export async function startCaptionRun(ctx: LibraryCtx, queue: JobQueue, target: RunTarget, options: CaptionRunOptions = {}): Promise<RunStarted> {
  const ids = await resolveTarget(ctx, target);
  await settleMediaHashes(ctx, ids);
  return start(ctx, queue, await plan(ctx, 'caption', ids, options));
}

// ---- landing results -----------------------------------------------------------------------

/** SQL: the run's batch (`runs`: its table) is not staged; a staged batch's run is still being recorded. */
export const notStaged = (runs: 'ai_runs' | 'analysis_runs'): string => `NOT EXISTS (SELECT 1 FROM job_batches b WHERE b.id = ${runs}.batch_id AND b.staged = 1)`;

/** The job has ended (done, failed, cancelled, or its outcome unknown): nothing more of it will come. */
export const isTerminal = (j: Pick<JobView, 'state'>): boolean => TERMINAL_STATES.includes(j.state);

interface RunAssetRow {
  run_id: number;
  asset_id: number;
  state: string;
  kind: RunKind;
  lang: string | null;
  params: string;
}

function storeKeywords(ctx: LibraryCtx, ra: RunAssetRow, result: KeywordsResult, endpoint: string): void {
  const settings = getKeywordSettings(ctx);
  const vocab = new Vocabulary(ctx);
  // Video keywording has no lang parameter: its keywords come in English.
  const lang = endpoint === 'videoKeywords' ? 'en' : ra.lang ?? 'en';
  const seen = new Set<string>();
  const suggested: KeywordSuggestion[] = [];
  const list = [...(result.keywords ?? [])].map((k, i) => ({ ...k, i })).sort((a, b) => b.score - a.score || a.i - b.i);
  for (const k of list) {
    if (typeof k.keyword !== 'string' || !cleanKeyword(k.keyword)) continue;
    const spelled = vocab.spell(k.keyword, settings.casing, lang);
    const key = spelled.toLocaleLowerCase();
    if (seen.has(key)) continue; // the strongest of two spellings of one word
    seen.add(key);
    const score = Number.isFinite(k.score) ? Math.max(0, Math.min(1, k.score)) : 0;
    suggested.push({ keyword: spelled, raw: k.keyword, score, position: k.i });
  }
  addKeywordSuggestions(ctx.db, { assetId: ra.asset_id, runId: ra.run_id, lang }, suggested);
  if (result.colors) prepared(ctx.db, 'UPDATE ai_run_assets SET colors = ? WHERE run_id = ? AND asset_id = ?').run(JSON.stringify(result.colors), ra.run_id, ra.asset_id);
}

function storeCaption(ctx: LibraryCtx, ra: RunAssetRow, result: CaptionResult): void {
  const text = typeof result.caption === 'string' ? result.caption.normalize('NFC').replace(/\s+/g, ' ').trim() : '';
  if (!text) return;
  const len = (JSON.parse(ra.params) as CaptionRunOptions).length ?? 'normal';
  addCaptionSuggestion(ctx.db, { assetId: ra.asset_id, runId: ra.run_id }, text, result.caption, len);
}

/**
 * Store what ended jobs brought, in one transaction; then each run they touched is looked at
 * (finished? its counts) once, not once per job: a run of 10,000 photos answered from the
 * cache was 10,000 recounts of itself. Idempotent.
 */
export function collectJobs(ctx: LibraryCtx, jobs: readonly JobView[]): void {
  const touched = new Map<number, number[]>();
  const rowsOf = prepared(
    ctx.db,
    `SELECT ra.run_id, ra.asset_id, ra.state, r.kind, r.lang, r.params FROM ai_run_assets ra JOIN ai_runs r ON r.id = ra.run_id
     WHERE ra.job_id = ? AND ra.state <> 'done'`,
  );
  ctx.db.transaction(() => {
    const mark = prepared(ctx.db, 'UPDATE ai_run_assets SET state = ?, error = ?, finished_at = ? WHERE run_id = ? AND asset_id = ?');
    for (const job of jobs) {
      for (const ra of rowsOf.all(job.id) as RunAssetRow[]) {
        if (job.state === 'done') {
          try {
            if (ra.kind === 'keywords') storeKeywords(ctx, ra, job.result as KeywordsResult, job.endpoint);
            else storeCaption(ctx, ra, job.result as CaptionResult);
            mark.run('done', null, Date.now(), ra.run_id, ra.asset_id);
          } catch (err) {
            log.error(`Could not store the answer of job ${job.id}`, err);
            mark.run('failed', 'The service’s answer could not be read.', Date.now(), ra.run_id, ra.asset_id);
          }
        } else {
          const state = job.state === 'cancelled' ? 'cancelled' : 'failed';
          const message = job.error?.message ?? (state === 'cancelled' ? 'Cancelled.' : 'The analysis failed.');
          mark.run(state, message, Date.now(), ra.run_id, ra.asset_id);
        }
        const assets = touched.get(ra.run_id) ?? [];
        assets.push(ra.asset_id);
        touched.set(ra.run_id, assets);
      }
    }
  })();
  for (const [runId, assetIds] of touched) {
    finishRunIfDone(ctx, runId);
    emitWorkflowEvent(ctx, 'suggestions', { runId, assetIds });
  }
}

function finishRunIfDone(ctx: LibraryCtx, runId: number): void {
  const left = prepared(ctx.db, "SELECT count(*) FROM ai_run_assets WHERE run_id = ? AND state = 'queued'").pluck().get(runId) as number;
  // A run whose batch is still staged is being recorded: more of its photos are coming.
  if (left === 0) prepared(ctx.db, `UPDATE ai_runs SET status = 'done' WHERE id = ? AND status = 'running' AND ${notStaged('ai_runs')}`).run(runId);
  const view = getRun(ctx, runId);
  if (view) emitWorkflowEvent(ctx, 'run', view);
}

/**
 * Land answers as their jobs end: listen to the queue, and sweep once for jobs that ended
 * while nobody listened (the app closed mid-run, another process ran the queue). Returns
 * the unsubscribe function.
 */
export function attachWorkflows(ctx: LibraryCtx, queue: JobQueue): () => void {
  const off = queue.on('job', batchedEnded((jobs) => collectJobs(ctx, jobs)));
  sweepRuns(ctx, queue);
  return off;
}

/**
 * A job listener that hands the ended 'analyze' jobs of one burst of events (the queue tells
 * of a batch's jobs a chunk at a time) to `collect` together, once the burst is over (a
 * microtask, before anything else runs).
 */
export function batchedEnded(collect: (jobs: JobView[]) => void): (job: JobView) => void {
  let pending: JobView[] = [];
  const flush = (): void => {
    const jobs = pending;
    pending = [];
    try {
      collect(jobs);
    } catch (err) {
      log.error('Could not store what ended jobs brought', err);
    }
  };
  return (job) => {
    if (job.kind !== 'analyze' || !isTerminal(job)) return;
    if (!pending.length) queueMicrotask(flush);
    pending.push(job);
  };
}

/** Store the answers of every ended job whose run has not seen it yet. */
export function sweepRuns(ctx: LibraryCtx, queue: JobQueue): void {
  const pending = prepared(ctx.db, "SELECT DISTINCT job_id FROM ai_run_assets WHERE state = 'queued' AND job_id IS NOT NULL").pluck().all() as number[];
  const ended: JobView[] = [];
  for (const jobId of pending) {
    const job = queue.getJob(jobId);
    if (!job) {
      prepared(ctx.db, "UPDATE ai_run_assets SET state = 'failed', error = ?, finished_at = ? WHERE job_id = ? AND state = 'queued'")
        .run('The job was removed from the queue before it ran.', Date.now(), jobId);
    } else if (isTerminal(job)) ended.push(job);
  }
  if (ended.length) collectJobs(ctx, ended);
  const running = prepared(ctx.db, "SELECT id FROM ai_runs WHERE status = 'running'").pluck().all() as number[];
  for (const id of running) finishRunIfDone(ctx, id);
}

// ---- views -------------------------------------------------------------------------------

interface RunRow {
  id: number;
  kind: RunKind;
  params: string;
  lang: string | null;
  created_at: number;
  batch_id: string;
  status: RunView['status'];
}

function toRunView(ctx: LibraryCtx, r: RunRow): RunView {
  const counts = { queued: 0, done: 0, failed: 0, cancelled: 0 };
  for (const c of prepared(ctx.db, 'SELECT state, count(*) AS n FROM ai_run_assets WHERE run_id = ? GROUP BY state').all(r.id) as { state: keyof typeof counts; n: number }[]) {
    counts[c.state] = c.n;
  }
  const suggestions = { pending: 0, accepted: 0, rejected: 0 };
  const table = r.kind === 'keywords' ? 'suggestions' : 'caption_suggestions';
  for (const c of prepared(ctx.db, `SELECT state, count(*) AS n FROM ${table} WHERE run_id = ? GROUP BY state`).all(r.id) as { state: keyof typeof suggestions; n: number }[]) {
    suggestions[c.state] = c.n;
  }
  return {
    id: r.id, kind: r.kind, params: JSON.parse(r.params) as RunView['params'], lang: r.lang as KeywordLang | null, createdAt: r.created_at,
    batchId: r.batch_id, status: r.status, counts, suggestions,
  };
}

export function getRun(ctx: LibraryCtx, runId: number): RunView | null {
  const r = prepared(ctx.db, 'SELECT * FROM ai_runs WHERE id = ?').get(runId) as RunRow | undefined;
  return r ? toRunView(ctx, r) : null;
}

export function listRuns(ctx: LibraryCtx, opts: { limit?: number; assetId?: number } = {}): RunView[] {
  const limit = Math.max(1, Math.min(opts.limit ?? 50, 1000));
  const rows = (
    opts.assetId !== undefined
      ? prepared(ctx.db, 'SELECT r.* FROM ai_runs r JOIN ai_run_assets ra ON ra.run_id = r.id WHERE ra.asset_id = ? ORDER BY r.id DESC LIMIT ?').all(opts.assetId, limit)
      : prepared(ctx.db, 'SELECT * FROM ai_runs ORDER BY id DESC LIMIT ?').all(limit)
  ) as RunRow[];
  return rows.map((r) => toRunView(ctx, r));
}

/** Per asset of a run: what became of its job. */
export function runAssets(ctx: LibraryCtx, runId: number): { assetId: number; state: string; error: string | null; colors: unknown }[] {
  return (
    prepared(ctx.db, 'SELECT asset_id, state, error, colors FROM ai_run_assets WHERE run_id = ? ORDER BY rowid').all(runId) as {
      asset_id: number; state: string; error: string | null; colors: string | null;
    }[]
  ).map((r) => ({ assetId: r.asset_id, state: r.state, error: r.error, colors: r.colors ? JSON.parse(r.colors) : null }));
}
