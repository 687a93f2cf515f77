import { stat } from 'node:fs/promises';
import { basename, extname, isAbsolute, join } from 'node:path';
import type {
  CreativeKind, CreativeSettings, CreativeTaskView, EditRequest, FaceSwapRequest, GenerateRequest, ImageJobArgs, ImageJobPreview, LipsyncRequest,
  SpeechPreview, SpeechRequest, VectorizeRequest,
} from '../../src-preload/contract';
import { ApiError } from '../core/errors';
import { log } from '../core/log';
import { NOT_CANCELLABLE } from '../jobs/cancel';
import type { JobQueue } from '../jobs/queue';
import type { TaskEndpoint } from '../jobs/handlers';
import type { JobView } from '../jobs/types';
import type { LibraryCtx } from '../library/context';
import type { Scanner } from '../library/scan';
import type { ServiceClient } from '../service/client';
import { DEFAULT_EDIT_MODEL, EDIT_ALIASES } from '../service/endpoints';
import { ServiceError } from '../service/errors';
import type { ImageGenerateParams } from '../service/types';
import * as v from '../service/validate';
import { CREATIVE_JOB, creativeHandler, remoteStatus, saveInline, type CreativePayload, type CreativeProgress } from './handler';
import { resultOf } from './result';
import { budgetFor, durationOf } from './deadlines';
import { finishTask, placedResult } from './finalize';
import { checkMediaType, inputsDir, isVideoPath, prepareEditSource, resolveRef, strippedImage, strippedMedia } from './media';
import { editParams, fail, generateParams, previewImageJob, previewSpeech, rolesOf, speechParts } from './requests';
import { nextStatus } from './status';
import * as store from './store';

// Creative tasks: requests become rows (creative_tasks) and queue jobs of kind 'creative'
// (one per billed service task); job events and the handler's progress are mirrored into the
// rows; when every part is downloaded the result is joined, stamped, moved into the
// creations folder and indexed (finalize.ts). Restart-safe: attach() sweeps what ended while
// nobody listened. Requests become service parameters in requests.ts; a task's status is
// read from its jobs in status.ts.

export interface CreativeOptions {
  client: () => ServiceClient;
  /** the app's Scanner (one scan at a time); the CLI scans directly */
  scanner?: Scanner;
  /** the clock deadlines are judged by (tests move it instead of waiting) */
  now?: () => number;
}

const TERMINAL_JOB = new Set(['done', 'failed', 'cancelled', 'unknown']);
export class CreativeService {
  private readonly finalizing = new Map<number, Promise<void>>();
  private readonly offs: (() => void)[] = [];

  private readonly now: () => number;

  constructor(private readonly ctx: LibraryCtx, private readonly queue: JobQueue, private readonly opts: CreativeOptions) {
    this.now = opts.now ?? Date.now;
  }

  // ---- wiring ------------------------------------------------------------------------------

  /** Register the job kind, listen to job events, sweep; returns the detach function. */
  attach(): () => void {
    this.queue.registerHandler(CREATIVE_JOB, creativeHandler((p, prog) => this.progress(p, prog)));
    this.offs.push(this.queue.on('job', (job) => {
      if (job.kind === CREATIVE_JOB) this.onJob(job);
    }));
    this.sweep();
    return () => this.offs.splice(0).forEach((off) => off());
  }

  /** Wait for any finalisation in flight (tests, CLI exit). */
  async settle(): Promise<void> {
    while (this.finalizing.size) await Promise.allSettled([...this.finalizing.values()]);
  }

  private sweep(): void {
    for (const row of store.listTaskRows(this.ctx.db, { active: true, limit: 10_000 })) {
      for (const part of store.partsOf(this.ctx.db, row.id)) {
        const job = part.job_id !== null ? this.queue.getJob(part.job_id) : undefined;
        // A job that ran before this kind was registered (the queue starts with the built-in
        // kinds): re-attach it. With a task id it only polls; without one nothing was sent.
        if (job && job.state === 'failed' && job.error?.kind === 'internal' && /cannot run 'creative' jobs/.test(job.error.message)) {
          const payload = this.payloadOf(job);
          if (payload) {
            const again = this.queue.enqueue({ kind: CREATIVE_JOB, payload: { ...payload, resumeTaskId: job.taskId ?? part.remote_task_id ?? undefined } });
            store.updatePart(this.ctx.db, row.id, part.part, { job_id: again.id });
          }
        }
      }
      this.refresh(row.id);
    }
  }

  private payloadOf(job: JobView): CreativePayload | null {
    const r = this.ctx.db.prepare<[number], { payload: string }>('SELECT payload FROM jobs WHERE id = ?').get(job.id);
    return r ? (JSON.parse(r.payload) as CreativePayload) : null;
  }

  private progress(p: CreativePayload, prog: CreativeProgress): void {
    const patch: Partial<store.CreativePartRow> = {};
    if (prog.remoteTaskId !== undefined) patch.remote_task_id = prog.remoteTaskId;
    if (prog.remoteStatus !== undefined) patch.remote_status = prog.remoteStatus;
    if (prog.queue !== undefined) patch.queue = prog.queue;
    if (prog.eta !== undefined) patch.eta = prog.eta;
    if (prog.resultUrl) patch.result_url = prog.resultUrl;
    if (prog.file) patch.file = prog.file;
    store.updatePart(this.ctx.db, p.creativeTaskId, p.part, patch);
    this.refresh(p.creativeTaskId);
  }

  private onJob(job: JobView): void {
    const part = store.partOfJob(this.ctx.db, job.id);
    if (!part) return;
    // The service answered 409 to the cancel: the task finishes and is paid; say so until the end.
    if (job.error?.kind === NOT_CANCELLABLE) {
      const row = store.getTaskRow(this.ctx.db, part.task_id);
      if (row && row.error !== store.NOT_CANCELLABLE_TASK) store.updateTask(this.ctx.db, part.task_id, { error: store.NOT_CANCELLABLE_TASK, ...(store.FINAL_STATUSES.includes(row.status) ? { status: 'pending', finished_at: null } : {}) });
    }
    if (job.state === 'done') {
      const r = job.result as { file?: string | null; resultUrl?: string | null; taskId?: string } | null;
      store.updatePart(this.ctx.db, part.task_id, part.part, {
        file: r?.file ?? part.file, result_url: r?.resultUrl ?? part.result_url, remote_task_id: r?.taskId ?? part.remote_task_id, remote_status: 'SUCCESS', queue: 0,
      });
    }
    this.refresh(part.task_id);
  }

  // ---- state ----------------------------------------------------------------------------

  private localQueue = (jobId: number): number | null => {
    const job = this.queue.getJob(jobId);
    if (!job || TERMINAL_JOB.has(job.state)) return null;
    if (job.state === 'running') return job.taskId ? null : 0;
    const ahead = this.queue.listJobs({ states: ['queued', 'running', 'paused'], limit: 100_000 })
      .filter((j) => j.lane === job.lane && j.id < jobId && (j.state !== 'paused')).length;
    return Math.max(1, ahead);
  };

  view(id: number): CreativeTaskView {
    const row = store.getTaskRow(this.ctx.db, id);
    if (!row) throw new ApiError('not_found', 'That creative task was not found.');
    return store.toTaskView(row, store.partsOf(this.ctx.db, id), this.localQueue, this.now());
  }

  private emit(id: number): void {
    try {
      this.ctx.events.emit('creativeTask', this.view(id));
    } catch (e) {
      log.error('creativeTask listener failed', e);
    }
  }

  /** Recompute a task's status from its parts' jobs; finalise when all are downloaded. */
  private refresh(id: number): void {
    const row = store.getTaskRow(this.ctx.db, id);
    if (!row) return;
    if (store.FINAL_STATUSES.includes(row.status) || this.finalizing.has(id)) {
      this.emit(id);
      return;
    }
    const parts = store.partsOf(this.ctx.db, id);
    const jobs = parts.map((p) => (p.job_id !== null ? this.queue.getJob(p.job_id) : undefined));
    const next = nextStatus(row, parts, jobs, (jobId) => this.queue.getJob(jobId), Date.now(), this.now());
    if (next.finalize) {
      store.updateTask(this.ctx.db, id, next.patch);
      this.startFinalize(id);
    }
    if (next.cancelParts) this.cancelParts(parts);
    store.updateTask(this.ctx.db, id, next.patch);
    this.emit(id);
  }

  private cancelParts(parts: store.CreativePartRow[]): void {
    for (const p of parts) {
      const j = p.job_id !== null ? this.queue.getJob(p.job_id) : undefined;
      if (j && !TERMINAL_JOB.has(j.state)) this.queue.cancelJob(j.id);
    }
  }

  private startFinalize(id: number): void {
    if (this.finalizing.has(id)) return;
    const p = this.finalize(id)
      .catch((e: unknown) => {
        log.error(`creative task ${id}: finishing failed`, e);
        store.updateTask(this.ctx.db, id, {
          status: 'download_failed', finished_at: Date.now(),
          error: `The result could not be saved into the library: ${(e as Error).message} Fetch it again (no new charge).`,
        });
      })
      .finally(() => {
        this.finalizing.delete(id);
        this.emit(id);
      });
    this.finalizing.set(id, p);
  }

  private async finalize(id: number): Promise<void> {
    await finishTask(this.ctx, id, { staging: this.stagingDir(), creations: this.creationsDir() }, this.opts.scanner);
  }

  // ---- settings ---------------------------------------------------------------------------

  stagingDir(): string {
    return join(this.ctx.paths.cacheDir, 'creative');
  }

  creationsDir(): string {
    return store.getSetting<string | null>(this.ctx.db, 'creationsDir', null) ?? join(this.ctx.paths.dataDir, 'Creations');
  }

  settings(): CreativeSettings {
    return { textLimit: store.getSetting<number | null>(this.ctx.db, 'textLimit', null), creationsDir: this.creationsDir() };
  }

  setSettings(s: Partial<CreativeSettings>): CreativeSettings {
    if (s.creationsDir !== undefined && !isAbsolute(s.creationsDir)) throw new ApiError('validation', 'The creations folder must be an absolute path.', 'creationsDir');
    if (s.textLimit !== undefined && s.textLimit !== null && (!Number.isInteger(s.textLimit) || s.textLimit < 20)) {
      throw new ApiError('validation', 'The text limit is a whole number of at least 20 characters, or none.', 'textLimit');
    }
    store.setSetting(this.ctx.db, 'textLimit', s.textLimit);
    store.setSetting(this.ctx.db, 'creationsDir', s.creationsDir);
    return this.settings();
  }

  // ---- starting ----------------------------------------------------------------------------

  private enqueue(kind: CreativeKind, endpoint: TaskEndpoint, request: unknown, sourceAssetIds: number[], paramsList: CreativePayload['params'][], retryOf?: number, budgetMs: number = budgetFor(endpoint)): CreativeTaskView {
    const id = store.insertTask(this.ctx.db, { kind, endpoint, params: request, sourceAssetIds, parts: paramsList.length, retryOf, budgetMs });
    try {
      paramsList.forEach((params, part) => {
        const job = this.queue.enqueue({ kind: CREATIVE_JOB, payload: { creativeTaskId: id, part, endpoint, params, stagingDir: this.stagingDir() } satisfies CreativePayload });
        store.updatePart(this.ctx.db, id, part, { job_id: job.id });
      });
    } catch (e) {
      store.updateTask(this.ctx.db, id, { status: 'failed', finished_at: Date.now(), error: (e as Error).message });
      fail(e);
    }
    this.refresh(id);
    return this.view(id);
  }

  startSpeech(r: SpeechRequest, retryOf?: number): CreativeTaskView {
    let parts: string[];
    try {
      parts = speechParts(r, this.settings().textLimit);
    } catch (e) {
      return fail(e);
    }
    const endpoint: TaskEndpoint = r.endpoint === 'ttsCreateJson' ? 'ttsCreateJson' : 'tts';
    const params = parts.map((text, i) => {
      const title = r.title && parts.length > 1 ? `${r.title} (${i + 1} of ${parts.length})` : r.title;
      return endpoint === 'tts' ? { voice: r.voice, text, ...(title ? { title } : {}) } : { text, speaker: r.voice };
    });
    return this.enqueue('speech', endpoint, r, [], params, retryOf, budgetFor(endpoint, { speechChars: parts.reduce((n, p) => n + p.length, 0) }));
  }

  async startLipsync(r: LipsyncRequest, retryOf?: number): Promise<CreativeTaskView> {
    const audio = await resolveRef(this.ctx, r.audio, 'audio');
    checkMediaType(audio.path, 'audio', 'audio');
    const visualRef = r.mode === 'video' ? r.video : r.image;
    const field = r.mode === 'video' ? 'video' : 'image';
    if (!visualRef) throw new ApiError('validation', `${field}: ${r.mode === 'video' ? 'video lipsync needs a clip with a clearly visible face' : 'image lipsync needs a portrait with one visible face'}.`, field);
    const visual = await resolveRef(this.ctx, visualRef, field);
    checkMediaType(visual.path, r.mode === 'video' ? 'video' : 'image', field);
    try {
      v.checkLipsyncParams({ audio: { path: audio.path }, ...(r.mode === 'video' ? { video: { path: visual.path } } : { image: { path: visual.path } }), ...(r.resolution ? { resolution: r.resolution } : {}) }, r.mode);
    } catch (e) {
      fail(e);
    }
    // What is sent: copies without metadata (no location, camera, names or tags).
    const dir = await inputsDir(this.stagingDir(), 'lipsync');
    const audioCopy = await strippedMedia(audio.path, dir, 'audio', 'audio', 'audio');
    const visualCopy = r.mode === 'video' ? await strippedMedia(visual.path, dir, 'video', 'video', 'video') : await strippedImage(visual.path, dir, 'image', 'image');
    const params = { audio: { path: audioCopy }, ...(r.mode === 'video' ? { video: { path: visualCopy } } : { image: { path: visualCopy } }), ...(r.resolution ? { resolution: r.resolution } : {}) };
    const sources = [audio.assetId, visual.assetId].filter((x): x is number => x !== null);
    const endpoint = r.mode === 'video' ? 'videoLipsync' : 'imageLipsync';
    const mediaS = await durationOf(this.ctx, r.mode === 'video' ? visual : audio);
    return this.enqueue(endpoint, endpoint, r, sources, [params], retryOf, budgetFor(endpoint, { mediaS }));
  }

  async startGenerate(r: GenerateRequest, retryOf?: number): Promise<CreativeTaskView> {
    let style: { path: string; assetId: number | null } | null = null;
    if (r.styleImage) {
      style = await resolveRef(this.ctx, r.styleImage, 'styleImage');
      checkMediaType(style.path, 'image', 'styleImage');
    }
    let params: ImageGenerateParams;
    try {
      v.checkGenerateParams(generateParams(r, style?.path ?? null));
    } catch (e) {
      return fail(e);
    }
    // The style image goes as a copy without metadata.
    const styleCopy = style ? await strippedImage(style.path, await inputsDir(this.stagingDir(), 'style'), 'style', 'styleImage') : null;
    try {
      params = v.checkGenerateParams(generateParams(r, styleCopy));
    } catch (e) {
      return fail(e);
    }
    return this.enqueue('generate', 'imageGenerate', r, style?.assetId ? [style.assetId] : [], [params], retryOf);
  }

  async startEdit(r: EditRequest, retryOf?: number): Promise<CreativeTaskView> {
    let order: number[] = r.sources.map((_, i) => i);
    try {
      v.checkEditParams(editParams(r, r.sources.map((_, i) => `/source-${i}.jpg`)));
      const raw = r.model ?? DEFAULT_EDIT_MODEL;
      order = rolesOf(EDIT_ALIASES[raw] ?? raw, r).order;
    } catch (e) {
      fail(e);
    }
    const resolved = [];
    for (const [i, s] of r.sources.entries()) {
      const m = await resolveRef(this.ctx, s, `sources[${i}]`);
      checkMediaType(m.path, 'image', `sources[${i}]`);
      resolved.push(m);
    }
    // Prepared copies (no metadata) live until the task is finished (the queue reads them when it sends).
    const dir = await inputsDir(this.stagingDir(), 'edit');
    const copies: string[] = [];
    for (const [i, m] of resolved.entries()) copies.push(await prepareEditSource(m.path, dir, `source-${i}`));
    // Gemini roles: the sources go in role order (objects, characters, styles).
    const params = editParams(r, order.map((i) => copies[i]));
    return this.enqueue('edit', 'imageEdit', r, resolved.map((m) => m.assetId).filter((x): x is number => x !== null), [params], retryOf);
  }

  /** A face onto an image (/v1/imageswap), or onto a video (the vendor's /v1/videoswap) when the target is a video. */
  async startFaceSwap(r: FaceSwapRequest, retryOf?: number): Promise<CreativeTaskView> {
    const source = await resolveRef(this.ctx, r.source, 'source');
    checkMediaType(source.path, 'image', 'source');
    const target = await resolveRef(this.ctx, r.target, 'target');
    const video = isVideoPath(target.path);
    checkMediaType(target.path, video ? 'video' : 'image', 'target');
    try {
      v.checkFaceSwapParams({ source: { path: source.path }, target: { path: target.path }, ...(r.useGfpgan !== undefined ? { use_gfpgan: r.useGfpgan } : {}) }, video ? 'video' : 'image');
    } catch (e) {
      fail(e);
    }
    const dir = await inputsDir(this.stagingDir(), 'swap');
    const sourceCopy = await strippedImage(source.path, dir, 'source', 'source');
    const targetCopy = video ? await strippedMedia(target.path, dir, 'target', 'video', 'target') : await strippedImage(target.path, dir, 'target', 'target');
    const params = { source: { path: sourceCopy }, target: { path: targetCopy }, ...(r.useGfpgan !== undefined ? { use_gfpgan: r.useGfpgan } : {}) };
    const endpoint = video ? 'videoFaceSwap' : 'faceSwap';
    const budget = budgetFor(endpoint, video ? { mediaS: await durationOf(this.ctx, target) } : {});
    return this.enqueue('faceSwap', endpoint, r, [source.assetId, target.assetId].filter((x): x is number => x !== null), [params], retryOf, budget);
  }

  /** A raster image into SVG (/v1/image_vectorize); the SVG lands in the library with its source named. */
  async startVectorize(r: VectorizeRequest, retryOf?: number): Promise<CreativeTaskView> {
    const source = await resolveRef(this.ctx, r.source, 'source');
    checkMediaType(source.path, 'image', 'source');
    try {
      v.checkVectorizeParams({ image: { path: source.path } });
    } catch (e) {
      fail(e);
    }
    const params = { image: { path: await strippedImage(source.path, await inputsDir(this.stagingDir(), 'vectorize'), 'source', 'source') } };
    return this.enqueue('vectorize', 'imageVectorize', { ...r, sourceName: basename(source.path) }, source.assetId !== null ? [source.assetId] : [], [params], retryOf);
  }

  previewSpeech(r: SpeechRequest): SpeechPreview {
    return previewSpeech(r, this.settings().textLimit);
  }

  previewImageJob(a: ImageJobArgs): ImageJobPreview {
    return previewImageJob(a);
  }

  // ---- control -----------------------------------------------------------------------------

  list(opts: { limit?: number; kind?: CreativeKind; active?: boolean }): CreativeTaskView[] {
    return store.listTaskRows(this.ctx.db, opts).map((r) => store.toTaskView(r, store.partsOf(this.ctx.db, r.id), this.localQueue, this.now()));
  }

  creationOf(assetId: number): CreativeTaskView | null {
    const r = store.taskOfAsset(this.ctx.db, assetId);
    return r ? this.view(r.id) : null;
  }

  /**
   * Cancel: every part with a task id is cancelled at the service (DELETE /v1/tasks/{id}),
   * whatever its state here, also a task whose outcome Tagsmith lost; a 409 there means it
   * finishes and is paid: it is followed on, its result lands, and the task says so.
   */
  cancel(id: number): CreativeTaskView {
    const view = this.view(id);
    if (!view.canCancel) {
      throw new ApiError('conflict', view.attention?.kind === 'not_cancellable' ? view.attention.message : view.status === 'downloading' ? 'The result is already being saved; it can no longer be cancelled.' : 'The task has already ended.');
    }
    const parts = store.partsOf(this.ctx.db, id);
    if (view.status === 'unknown') {
      // Lost track of, but at the service: open again until the service answers the cancel.
      store.updateTask(this.ctx.db, id, { status: 'pending', finished_at: null, error: null });
      for (const p of parts) if (p.job_id !== null) this.queue.cancelJob(p.job_id);
    } else this.cancelParts(parts);
    this.refresh(id);
    return this.view(id);
  }

  /** Past its deadline: wait another budget of time (the task never stopped). */
  keepWaiting(id: number): CreativeTaskView {
    const view = this.view(id);
    if (store.FINAL_STATUSES.includes(view.status)) throw new ApiError('conflict', 'The task has already ended.');
    const row = store.getTaskRow(this.ctx.db, id)!;
    store.updateTask(this.ctx.db, id, { deadline_at: this.now() + (row.budget_ms ?? budgetFor(row.endpoint as TaskEndpoint)) });
    this.emit(id);
    return this.view(id);
  }

  async retry(id: number, confirmBilledAgain: boolean): Promise<CreativeTaskView> {
    const view = this.view(id);
    if (!view.canRetry) throw new ApiError('conflict', view.status === 'download_failed' ? 'The service finished this task: fetch the result again instead (no new charge).' : 'Only a failed task (or one whose answer was lost) can be run again.');
    if (confirmBilledAgain !== true) throw new ApiError('validation', 'Running the task again is billed again: confirm with confirmBilledAgain.', 'confirmBilledAgain');
    const request = view.params;
    switch (view.kind) {
      case 'speech': return this.startSpeech(request as unknown as SpeechRequest, id);
      case 'videoLipsync':
      case 'imageLipsync': return this.startLipsync(request as unknown as LipsyncRequest, id);
      case 'generate': return this.startGenerate(request as unknown as GenerateRequest, id);
      case 'edit': return this.startEdit(request as unknown as EditRequest, id);
      case 'faceSwap': return this.startFaceSwap(request as unknown as FaceSwapRequest, id);
      case 'vectorize': return this.startVectorize({ source: (request as unknown as VectorizeRequest).source }, id);
    }
  }

  /**
   * Fetch the result again without a new task: a status call (free) for the address, then the
   * file. A task whose outcome Tagsmith lost ('unknown': its answer unreadable, its poll
   * given up) is followed by its task id: still running, it is polled again by a job that
   * never creates; finished, its result lands. `taskId` names the service's task when the
   * unreadable answer showed none.
   */
  async refetch(id: number, taskId?: string): Promise<CreativeTaskView> {
    const view = this.view(id);
    if (!view.canRefetch) {
      throw new ApiError('conflict', view.status === 'unknown' ? 'Tagsmith has no task id for this task, so there is nothing to follow.' : 'Only a finished task has a result to fetch.');
    }
    if (this.finalizing.has(id)) throw new ApiError('conflict', 'The result is being saved right now.');
    const row = store.getTaskRow(this.ctx.db, id)!;
    if (view.status === 'done' && row.result_path && (await stat(row.result_path).catch(() => null))) return view;
    if (taskId !== undefined) {
      try {
        v.checkTaskId(taskId);
      } catch (e) {
        fail(e);
      }
      const parts = store.partsOf(this.ctx.db, id);
      if (parts.length !== 1) throw new ApiError('validation', 'A task id can be given only for a task of one part.', 'taskId');
      store.updatePart(this.ctx.db, id, 0, { remote_task_id: taskId });
    }
    const resume: store.CreativePartRow[] = [];
    store.updateTask(this.ctx.db, id, { status: 'downloading', error: null, finished_at: null });
    this.emit(id);
    // Moved into the library before a crash cut its finishing short: finish it, fetch nothing.
    const placed = await placedResult(row, store.partsOf(this.ctx.db, id).map((p) => p.file));
    try {
      for (const part of placed ? [] : store.partsOf(this.ctx.db, id)) {
        if (part.file && (await stat(part.file).catch(() => null))) continue;
        if (!part.remote_task_id) throw new ApiError('conflict', 'This task never reached the service; there is nothing to fetch.');
        let url = part.result_url;
        if (!url) {
          const st = await remoteStatus(this.opts.client(), row.endpoint, part.remote_task_id);
          store.updatePart(this.ctx.db, id, part.part, { remote_status: st.status, queue: st.queue });
          if (st.status === 'FAILURE') throw new ApiError('conflict', `The service could not finish the task${st.error ? `: ${st.error}` : '.'}`);
          if (st.status === 'REVOKED') throw new ApiError('conflict', 'The task was cancelled at the service; it has no result.');
          if (st.status !== 'SUCCESS') {
            resume.push(part);
            continue;
          }
          const got = resultOf(st.result);
          if (got && 'data' in got) {
            const file = await saveInline(got.data, join(this.stagingDir(), `${part.remote_task_id}${got.ext}`));
            store.updatePart(this.ctx.db, id, part.part, { file, remote_status: 'SUCCESS' });
            continue;
          }
          url = got ? got.url : null;
          if (!url) throw new ApiError('conflict', `The service finished this task but its result is not an address or a file Tagsmith can use (status ${st.status}).`);
        }
        const dest = join(this.stagingDir(), `${part.remote_task_id}${extname(new URL(url).pathname) || '.bin'}`);
        const got = await this.opts.client().download(url, dest);
        store.updatePart(this.ctx.db, id, part.part, { file: got.path, result_url: url, remote_status: 'SUCCESS' });
      }
    } catch (e) {
      const gone = e instanceof ServiceError && e.kind === 'not_found';
      const lost = view.status === 'unknown';
      store.updateTask(this.ctx.db, id, {
        status: lost && !(e instanceof ApiError) ? 'unknown' : 'download_failed', finished_at: Date.now(),
        error: gone ? 'The service no longer knows this task or its result (it keeps them for a limited time).'
          : e instanceof ApiError ? (e.message) : `The result could not be fetched: ${(e as Error).message} Fetch again (no new charge).`,
      });
      this.emit(id);
      if (e instanceof ApiError) throw e;
      throw new ApiError('io', store.getTaskRow(this.ctx.db, id)!.error!);
    }
    if (resume.length) {
      // Still running at the service: follow it again (status calls only, never a create).
      for (const part of resume) {
        const job = part.job_id !== null ? this.queue.getJob(part.job_id) : undefined;
        const payload = job ? this.payloadOf(job) : null;
        if (!payload) throw new ApiError('conflict', 'The request of this task is no longer known.');
        const again = this.queue.enqueue({ kind: CREATIVE_JOB, payload: { ...payload, resumeTaskId: part.remote_task_id! } });
        store.updatePart(this.ctx.db, id, part.part, { job_id: again.id });
      }
      store.updateTask(this.ctx.db, id, { status: 'pending' });
      this.refresh(id);
      return this.view(id);
    }
    this.startFinalize(id);
    await this.finalizing.get(id);
    return this.view(id);
  }
}
