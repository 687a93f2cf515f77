// Built-in job kinds: 'analyze' (one synchronous analysis of one file, cached by content) and
// 'task' (one asynchronous create, then status polling and an optional download).
// Workflow issues register their own kinds next to these (e.g. "keyword this asset and store suggestions").
import { extname, join } from 'node:path';
import { hashFile } from '../library/hash';
import type { ServiceClient } from '../service/client';
import { billingKey, ENDPOINTS, type EndpointName } from '../service/endpoints';
import { ServiceError } from '../service/errors';
import { prepareImage, prepareVideo } from '../service/prepare';
import type {
  FaceSwapParams, ImageEditParams, ImageGenerateParams, ImageVectorizeParams, LipsyncParams, TaskState, TtsJsonParams, TtsParams,
} from '../service/types';
import * as v from '../service/validate';
import { budgetFor, minutesText } from './deadlines';
import { JobOutcome, type JobHandler } from './job-handler';
import { cacheKeyOf } from './store';

export type AnalyzeEndpoint = 'keywords' | 'videoKeywords' | 'caption' | 'faces' | 'quality' | 'qualityUgc';
const ANALYZE: readonly AnalyzeEndpoint[] = ['keywords', 'videoKeywords', 'caption', 'faces', 'quality', 'qualityUgc'];

export interface AnalyzePayload {
  /** the original file (an asset's absolute path); only a derivative leaves the machine */
  file: string;
  /** the library's content hash; computed from the file when absent */
  contentHash?: string;
  endpoint: AnalyzeEndpoint;
  params?: Record<string, unknown>;
  /** free for callers (e.g. the asset id a workflow stores suggestions for) */
  assetId?: number;
}

function checkAnalyzeParams(endpoint: AnalyzeEndpoint, params: Record<string, unknown> = {}): Record<string, unknown> {
  switch (endpoint) {
    case 'keywords': return { ...v.checkKeywordParams(params) };
    case 'videoKeywords': return { ...v.checkVideoKeywordParams(params) };
    case 'caption': return { ...v.checkCaptionParams(params) };
    default:
      if (Object.keys(params).length) throw new ServiceError('invalid_input', `params: ${endpoint} takes no parameters`, { local: true, field: 'params' });
      return {};
  }
}

export const analyzeHandler: JobHandler<AnalyzePayload> = {
  describe(p) {
    if (!p || typeof p.file !== 'string' || !p.file) throw new ServiceError('invalid_input', 'file: the path of the picture or video is required', { local: true, field: 'file' });
    if (!ANALYZE.includes(p.endpoint)) throw new ServiceError('invalid_input', `endpoint: must be one of ${ANALYZE.join(', ')}`, { local: true, field: 'endpoint' });
    const params = checkAnalyzeParams(p.endpoint, p.params);
    return {
      endpoint: p.endpoint,
      cacheKey: p.contentHash ? cacheKeyOf(p.contentHash, p.endpoint, params) : null,
      billingKey: billingKey(p.endpoint),
    };
  },
  async run(ctx) {
    const p = ctx.payload;
    const params = checkAnalyzeParams(p.endpoint, p.params);
    const hash = p.contentHash ?? (await hashFile(p.file));
    const key = cacheKeyOf(hash, p.endpoint, params);
    const cached = ctx.cacheGet(key);
    if (cached !== undefined) {
      ctx.markFromCache();
      return cached;
    }
    const store = (r: unknown) => ctx.cachePut(key, p.endpoint, hash, params, r);
    if (ENDPOINTS[p.endpoint].input === 'video') {
      const video = await prepareVideo(p.file);
      try {
        const r = await ctx.call(p.endpoint, (signal) => ctx.client.analyze(p.endpoint, { path: video.path }, params, { signal }), { onBilled: store });
        return video.warnings.length ? { ...(r as object), warnings: video.warnings } : r;
      } finally {
        await video.cleanup();
      }
    }
    const img = await prepareImage(p.file, p.endpoint);
    return ctx.call(p.endpoint, (signal) => ctx.client.analyze(p.endpoint, img, params, { signal }), { onBilled: store });
  },
};

// ---- async tasks -----------------------------------------------------------------------------

export type TaskEndpoint = 'tts' | 'ttsCreateJson' | 'videoLipsync' | 'imageLipsync' | 'imageGenerate' | 'imageEdit' | 'imageVectorize' | 'faceSwap' | 'videoFaceSwap';

/** Where a task's status is asked: face swaps have their own status paths (interface 4.8, vendor openapi). */
export function statusEndpointOf(endpoint: string): 'status' | 'faceSwapStatus' | 'videoFaceSwapStatus' {
  return endpoint === 'faceSwap' ? 'faceSwapStatus' : endpoint === 'videoFaceSwap' ? 'videoFaceSwapStatus' : 'status';
}

export function taskStatus(client: ServiceClient, endpoint: string, taskId: string, signal?: AbortSignal): Promise<TaskState> {
  switch (statusEndpointOf(endpoint)) {
    case 'faceSwapStatus': return client.faceSwapStatus(taskId, { signal });
    case 'videoFaceSwapStatus': return client.videoFaceSwapStatus(taskId, { signal });
    default: return client.status(taskId, { signal });
  }
}

/** Cancel a task at the service: 'final' when it had already ended (409). */
export function cancelTaskAt(client: ServiceClient, endpoint: string, taskId: string, signal?: AbortSignal): Promise<'cancelled' | 'final'> {
  if (endpoint === 'faceSwap') return client.faceSwapTerminate(taskId, { signal });
  if (endpoint === 'videoFaceSwap') return client.videoFaceSwapTerminate(taskId, { signal });
  return client.cancelTask(taskId, { signal });
}
type TaskParams = TtsParams | TtsJsonParams | LipsyncParams | ImageGenerateParams | ImageEditParams | ImageVectorizeParams | FaceSwapParams;

export interface TaskPayload {
  endpoint: TaskEndpoint;
  /** media fields as {path} (streamed as Data URIs/uploads when sent), never inline bytes */
  params: TaskParams;
  /** a directory: the result file is saved there as <task_id>.<ext> */
  downloadTo?: string;
  /**
   * How long to wait for the service once the task is there (ms); default: the interface's
   * typical time for the kind (budgetFor). Past it the job stops waiting and ends 'unknown'
   * (the task may still run and bill); retry polls the same task again, never a new one.
   */
  budgetMs?: number;
}

/** The states the interface names; anything else is shown as unknown (and still polled). */
export const KNOWN_TASK_STATES: readonly string[] = ['PENDING', 'STARTED', 'SUCCESS', 'FAILURE', 'REVOKED'];

/** error_kind of a task job that outlived its budget at the service */
export const TASK_OVERDUE = 'task_overdue';
/** error_kind of a task job whose task the service no longer knows (404 on its status) */
export const TASK_FORGOTTEN = 'task_forgotten';

function budgetOf(p: TaskPayload): number {
  if (p.budgetMs !== undefined) return p.budgetMs;
  const text = (p.params as { text?: unknown }).text;
  return budgetFor(p.endpoint, typeof text === 'string' ? { speechChars: text.length } : {});
}

export interface TaskJobResult {
  taskId: string;
  resultUrl: string | null;
  file: string | null;
}

function checkTask(endpoint: TaskEndpoint, params: TaskParams): void {
  switch (endpoint) {
    case 'tts': v.checkTtsParams(params as TtsParams); break;
    case 'ttsCreateJson': v.checkTtsJsonParams(params as TtsJsonParams); break;
    case 'videoLipsync': v.checkLipsyncParams(params as LipsyncParams, 'video'); break;
    case 'imageLipsync': v.checkLipsyncParams(params as LipsyncParams, 'image'); break;
    case 'imageGenerate': v.checkGenerateParams(params as ImageGenerateParams); break;
    case 'imageEdit': v.checkEditParams(params as ImageEditParams); break;
    case 'imageVectorize': v.checkVectorizeParams(params as ImageVectorizeParams); break;
    case 'faceSwap': v.checkFaceSwapParams(params as FaceSwapParams); break;
    case 'videoFaceSwap': v.checkFaceSwapParams(params as FaceSwapParams, 'video'); break;
    default: throw new ServiceError('invalid_input', 'endpoint: not an asynchronous endpoint', { local: true, field: 'endpoint' });
  }
}

/** Create a task at the service (the first call of every asynchronous endpoint). */
export function createTask(client: ServiceClient, endpoint: TaskEndpoint, params: TaskParams, signal: AbortSignal) {
  const o = { signal };
  switch (endpoint) {
    case 'tts': return client.tts(params as TtsParams, o);
    case 'ttsCreateJson': return client.ttsJson(params as TtsJsonParams, o);
    case 'videoLipsync': return client.videoLipsync(params as LipsyncParams, o);
    case 'imageLipsync': return client.imageLipsync(params as LipsyncParams, o);
    case 'imageGenerate': return client.imageGenerate(params as ImageGenerateParams, o);
    case 'imageEdit': return client.imageEdit(params as ImageEditParams, o);
    case 'imageVectorize': return client.imageVectorize(params as ImageVectorizeParams, o);
    case 'faceSwap': return client.faceSwap(params as FaceSwapParams, o);
    case 'videoFaceSwap': return client.videoFaceSwap(params as FaceSwapParams, o);
  }
}

export const taskHandler: JobHandler<TaskPayload> = {
  describe(p) {
    if (!p || typeof p.endpoint !== 'string' || !(p.endpoint in ENDPOINTS) || ENDPOINTS[p.endpoint as EndpointName].mode !== 'async') {
      throw new ServiceError('invalid_input', 'endpoint: must be an asynchronous endpoint (tts, videoLipsync, imageGenerate, ...)', { local: true, field: 'endpoint' });
    }
    checkTask(p.endpoint, p.params);
    if (p.budgetMs !== undefined && !(Number.isFinite(p.budgetMs) && p.budgetMs > 0)) {
      throw new ServiceError('invalid_input', 'budgetMs: must be a positive number of milliseconds', { local: true, field: 'budgetMs' });
    }
    return { endpoint: p.endpoint, billingKey: billingKey(p.endpoint, p.params as { model?: unknown }) };
  },
  async run(ctx) {
    const p = ctx.payload;
    let taskId = ctx.job.taskId;
    if (!taskId) {
      ctx.checkpoint({ phase: null });
      const created = await ctx.call(p.endpoint, (signal) => createTask(ctx.client, p.endpoint, p.params, signal), {
        onBilled: (t) => ctx.checkpoint({ taskId: t.task_id, phase: 'poll' }),
      });
      taskId = created.task_id;
    }
    // The budget runs from the first status answer of this run: a restart or a retry waits
    // another budget for the same task (its id is kept, so nothing is created or billed again).
    const budget = budgetOf(p);
    let deadline: number | null = null;
    let delay = ctx.tuning.pollMs;
    let state: TaskState;
    for (;;) {
      try {
        state = await ctx.call(statusEndpointOf(p.endpoint), (signal) => taskStatus(ctx.client, p.endpoint, taskId!, signal), { billingKey: null });
      } catch (e) {
        if (e instanceof ServiceError && e.kind === 'not_found') {
          throw new JobOutcome('failed', `The service no longer knows task ${taskId} (it keeps tasks and results at most 24 hours). Tagsmith does not create it again by itself, so it is not paid twice; start a new one if you still want it.`, TASK_FORGOTTEN);
        }
        throw e;
      }
      if (state.status === 'SUCCESS') break;
      if (state.status === 'FAILURE') throw new JobOutcome('failed', `The service could not finish the task${state.error ? `: ${state.error}` : '.'}`);
      if (state.status === 'REVOKED') throw new JobOutcome('cancelled', 'The task was cancelled at the service.');
      deadline ??= Date.now() + budget;
      if (Date.now() > deadline) {
        const st = String(state.status);
        const why = KNOWN_TASK_STATES.includes(st)
          ? `Task ${taskId} is still ${st.toLowerCase()} at the service after ${minutesText(budget)}, past the interface's typical time for this.`
          : `Task ${taskId} stayed in a state Tagsmith does not know (“${st}”) for ${minutesText(budget)}.`;
        throw new JobOutcome('unknown', `${why} Tagsmith stopped waiting; the service may still finish and bill it. Retry to keep waiting for the same task (no new charge), or cancel it.`, TASK_OVERDUE);
      }
      await ctx.sleep(delay);
      delay = Math.min(ctx.tuning.pollMaxMs, Math.round(delay * 1.5));
    }
    const url = state.result && /^https?:\/\//.test(state.result) ? state.result : null;
    let file: string | null = null;
    if (p.downloadTo && url) {
      ctx.checkpoint({ phase: 'download' });
      const ext = extname(new URL(url).pathname) || '.bin';
      file = (await ctx.client.download(url, join(p.downloadTo, `${taskId}${ext}`), { signal: ctx.signal })).path;
    }
    const out: TaskJobResult = { taskId, resultUrl: url ?? state.result, file };
    return out;
  },
  async cancelRemote(client, job, signal) {
    if (!job.taskId) return;
    return cancelTaskAt(client, job.endpoint, job.taskId, signal);
  },
};

/** The built-in handlers, for `new JobQueue({ handlers: builtinHandlers })`. */
export const builtinHandlers = { analyze: analyzeHandler, task: taskHandler } as Record<string, JobHandler<never>>;
