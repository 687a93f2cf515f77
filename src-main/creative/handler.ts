import { mkdir, open, rename } from 'node:fs/promises';
import { dirname, extname, join } from 'node:path';
import { JobOutcome, type JobHandler } from '../jobs/job-handler';
import { createTask, statusEndpointOf, taskHandler, taskStatus, type TaskEndpoint, type TaskPayload } from '../jobs/handlers';
import type { ServiceClient } from '../service/client';
import { ServiceError } from '../service/errors';
import { taskIdIn } from '../service/parse';
import { resultOf } from './result';
import { UNREADABLE_PREFIX } from './store';
import type { TaskCreated, TaskState } from '../service/types';

// The 'creative' job kind: the built-in 'task' flow (create -> poll status -> download), plus
// what a creative task shows while it runs: the service's status, queue position and ETA on
// every poll, and the result URL as soon as it is known (so a failed download can be fetched
// again without a new task). The create is sent once: a job with a task id only polls.

export const CREATIVE_JOB = 'creative';

/** remote_status of a part whose create was answered in a shape Tagsmith cannot read */
export const UNREADABLE_STATUS = 'ANSWERED_UNREADABLE';

export interface CreativePayload {
  creativeTaskId: number;
  part: number;
  endpoint: TaskEndpoint;
  params: TaskPayload['params'];
  /** where the result file is saved as <task_id>.<ext> (resumable .part beside it) */
  stagingDir: string;
  /** a task created by an earlier job of this part (re-attached after a restart): poll it, never create again */
  resumeTaskId?: string;
}

export interface CreativeProgress {
  remoteTaskId?: string;
  remoteStatus?: string;
  queue?: number | null;
  eta?: number | null;
  resultUrl?: string | null;
  file?: string | null;
}

export interface CreativeJobResult {
  taskId: string;
  resultUrl: string | null;
  file: string | null;
}

/** Status of a task: face swaps have their own status paths (interface 4.8). */
export function remoteStatus(client: ServiceClient, endpoint: string, taskId: string, signal?: AbortSignal): Promise<TaskState> {
  return taskStatus(client, endpoint, taskId, signal);
}

const eta = (x: unknown): number | null => (typeof x === 'number' && Number.isFinite(x) ? x : null);

export function creativeHandler(onProgress: (p: CreativePayload, progress: CreativeProgress) => void): JobHandler<CreativePayload> {
  return {
    describe(p) {
      // Same checks and billing key as the built-in task kind.
      return taskHandler.describe({ endpoint: p.endpoint, params: p.params });
    },
    async run(ctx) {
      const p = ctx.payload;
      let taskId = ctx.job.taskId ?? p.resumeTaskId ?? null;
      if (!taskId) {
        ctx.checkpoint({ phase: null });
        let created: TaskCreated;
        try {
          created = await ctx.call(p.endpoint, (signal) => createTask(ctx.client, p.endpoint, p.params, signal), {
            onBilled: (t) => {
              ctx.checkpoint({ taskId: t.task_id, phase: 'poll' });
              onProgress(p, { remoteTaskId: t.task_id, remoteStatus: String(t.status), queue: t.queue, eta: eta(t.eta) });
            },
          });
        } catch (e) {
          // Answered, unreadable: the task exists (and is paid). Its id, when the answer shows
          // one, is kept so Fetch again follows that task; the job ends there, never creating again.
          if (e instanceof ServiceError && e.kind === 'unreadable') {
            const id = taskIdIn(e.details.raw ?? '');
            if (id) {
              ctx.checkpoint({ taskId: id });
              onProgress(p, { remoteTaskId: id, remoteStatus: UNREADABLE_STATUS });
            }
          }
          throw e;
        }
        taskId = created.task_id;
      } else if (!ctx.job.taskId) {
        ctx.checkpoint({ taskId, phase: 'poll' });
      }
      const statusEndpoint = statusEndpointOf(p.endpoint);
      let delay = ctx.tuning.pollMs;
      let state: TaskState;
      for (;;) {
        state = await ctx.call(statusEndpoint, (signal) => remoteStatus(ctx.client, p.endpoint, taskId!, signal), { billingKey: null });
        const raw = state as TaskState & { eta?: unknown };
        const got = resultOf(state.result);
        const url = got && 'url' in got ? got.url : null;
        onProgress(p, { remoteTaskId: taskId, remoteStatus: String(state.status), queue: state.queue, ...(raw.eta !== undefined ? { eta: eta(raw.eta) } : {}), ...(url ? { resultUrl: url } : {}) });
        if (state.status === 'SUCCESS') break;
        if (state.status === 'FAILURE') throw new JobOutcome('failed', `The service could not finish the task${state.error ? `: ${state.error}` : '.'}`);
        if (state.status === 'REVOKED') throw new JobOutcome('cancelled', 'The task was cancelled at the service.');
        await ctx.sleep(delay);
        delay = Math.min(ctx.tuning.pollMaxMs, Math.round(delay * 1.5));
      }
      const result = resultOf(state.result);
      // Paid: a result Tagsmith cannot use is kept as it came and said, never a failure.
      if (!result) throw new JobOutcome('unknown', `${UNREADABLE_PREFIX}: the service finished task ${taskId} (it is paid) but its result is not an address or a file Tagsmith can use. Fetch again to ask for it once more (no new charge).`, 'unreadable');
      ctx.checkpoint({ phase: 'download' });
      let file: string;
      let url: string | null = null;
      if ('url' in result) {
        url = result.url;
        const ext = extname(new URL(url).pathname) || '.bin';
        file = (await ctx.client.download(url, join(p.stagingDir, `${taskId}${ext}`), { signal: ctx.signal })).path;
      } else file = await saveInline(result.data, join(p.stagingDir, `${taskId}${result.ext}`));
      onProgress(p, { file });
      const out: CreativeJobResult = { taskId, resultUrl: url, file };
      return out;
    },
    cancelRemote: taskHandler.cancelRemote,
  };
}

/** A result that came inside the answer (a Data URI, an inline SVG): written like a download (temp, fsync, rename). */
export async function saveInline(data: Buffer, dest: string): Promise<string> {
  await mkdir(dirname(dest), { recursive: true });
  const part = `${dest}.part`;
  const fh = await open(part, 'w');
  try {
    await fh.writeFile(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(part, dest);
  return dest;
}
