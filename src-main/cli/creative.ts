import type { CreativeTaskView } from '../../src-preload/contract';
import { createTagsmith, type Tagsmith } from '../api/tagsmith';
import type { Parsed } from './args';
import { CliError, intValue } from './args';
import { plainError, type Output } from './output';
import type { LibraryCtx } from '../library/context';
import type { CreativeService } from '../creative/service';
import { FINAL_STATUSES } from '../creative/store';

// The CLI side of creative commands: the app's queue (createTagsmith, the creative kind
// registered before it starts), a wait with progress (status, queue position, ETA) on a terminal, and the result
// as {task, status, path, assetId}.

export interface CreativeCli {
  service: Tagsmith;
  creative: CreativeService;
  close(): Promise<void>;
}

export async function openCreative(ctx: LibraryCtx, args: Parsed, opts: { needsCredentials?: boolean } = {}): Promise<CreativeCli> {
  const service = createTagsmith(ctx, { serviceUrl: args.globals.serviceUrl, startQueue: false });
  if (opts.needsCredentials && !(await service.credentials.get())) {
    await service.dispose();
    throw new CliError('No service credentials. Set TAGSMITH_CLIENT_ID and TAGSMITH_CLIENT_SECRET, or run `tagsmith login`. Nothing was sent.');
  }
  return { service, creative: service.creative, close: () => service.dispose() };
}

export function describeTask(t: CreativeTaskView): string {
  const q = t.queue !== null && t.queue > 0 ? `, queue position ${t.queue}` : '';
  const eta = t.eta !== null ? `, ETA ${Math.round(t.eta)}` : '';
  const parts = t.parts.length > 1 ? `, ${t.parts.filter((p) => p.remoteStatus === 'SUCCESS').length}/${t.parts.length} parts` : '';
  return `task ${t.id}: ${t.status}${q}${eta}${parts}`;
}

export function taskJson(t: CreativeTaskView): Record<string, unknown> {
  return { task: t.id, kind: t.kind, status: t.status, path: t.resultPath, assetId: t.resultAssetId, queue: t.queue, eta: t.eta, error: t.error, remoteTaskIds: t.parts.map((p) => p.remoteTaskId) };
}

/**
 * One task as the creative commands print it in `tasks` (issue 15): Tagsmith's own state (as
 * `tasks --json` shows it), the indexed library asset's absolute path once done, the error when
 * there is one.
 */
export interface TaskEntry {
  taskId: number | null;
  status: string;
  result: { path: string } | null;
  error?: string;
}

export function taskEntry(t: CreativeTaskView): TaskEntry {
  return {
    taskId: t.id, status: t.status,
    result: t.status === 'done' && t.resultPath ? { path: t.resultPath } : null,
    ...(t.error ? { error: t.error } : {}),
  };
}

/** Start the queue and wait until every task has ended (unless --no-wait or a hold stops them); the latest views. */
export async function waitForTasks(cli: CreativeCli, tasks: CreativeTaskView[], args: Parsed, out: Output): Promise<CreativeTaskView[]> {
  const { service, creative } = cli;
  let views = tasks;
  if (args.values['no-wait'] === true || !tasks.length) return views;
  const waitS = intValue(args.values['wait-s'] as string | undefined, 'wait-s', 1, 7 * 24 * 3600, 'tasks');
  const deadline = waitS !== undefined ? Date.now() + waitS * 1000 : null;
  let timedOut = false;
  const said = new Set<string>();
  service.queue.start();
  await new Promise<void>((resolve) => {
    const check = (): void => {
      views = tasks.map((t) => creative.view(t.id));
      out.progress(views.length === 1 ? describeTask(views[0]) : `${views.filter((v) => FINAL_STATUSES.includes(v.status)).length}/${views.length} tasks ended; ${views.map(describeTask).find((d, i) => !FINAL_STATUSES.includes(views[i].status)) ?? ''}`);
      // Unknown states and slow tasks are said once each.
      for (const v of views) {
        const a = v.attention;
        if (a && (a.kind === 'slow' || a.kind === 'unknown_state') && !said.has(`${v.id}:${a.kind}`)) {
          said.add(`${v.id}:${a.kind}`);
          out.warn(`tagsmith: task ${v.id}: ${a.message}`);
        }
      }
      const hold = service.queue.status().hold;
      // Under a credentials or user hold nothing moves (a quota hold still follows tasks at the service; offline is probed).
      const stuck = !!hold && (hold.reason === 'credentials' || hold.reason === 'user');
      timedOut = deadline !== null && Date.now() >= deadline;
      if (timedOut || views.every((v) => FINAL_STATUSES.includes(v.status) || (hold && v.status === 'waiting') || stuck)) {
        offTask();
        offStatus();
        clearInterval(timer);
        resolve();
      }
    };
    const offTask = cli.service.queue.on('job', () => check());
    const offStatus = cli.service.queue.on('status', () => check());
    const timer = setInterval(check, 500);
    check();
  });
  await creative.settle();
  views = tasks.map((t) => creative.view(t.id));
  out.endProgress();
  const hold = service.queue.status().hold;
  const running = views.filter((v) => !FINAL_STATUSES.includes(v.status));
  for (const v of running) {
    if (v.parts.some((p) => p.remoteTaskId)) {
      out.warn(`tagsmith: task ${v.id} is still running at the service (${v.status})${timedOut ? ` after ${String(args.values['wait-s'])} s` : ''}; it is paid for. Follow it later with \`tagsmith tasks fetch ${v.id}\` (no new charge).`);
    }
  }
  if (hold && (hold.reason === 'credentials' || hold.reason === 'user') && running.length) out.warn(`tagsmith: stopped waiting: ${hold.message}`);
  if (hold && views.some((v) => v.status === 'waiting')) out.warn(`tagsmith: ${views.length === 1 ? 'the task is' : 'tasks are'} waiting: ${hold.message} ${views.length === 1 ? 'It runs' : 'They run'} the next time the queue runs.`);
  return views;
}

const humanLine = (view: CreativeTaskView): string =>
  view.status === 'done' ? `${view.resultPath}  (asset ${view.resultAssetId ?? 'not indexed'}, task ${view.id})` : `${describeTask(view)}${view.error ? ` — ${plainError(view.error)}` : ''}`;

/**
 * Start the queue and wait for the task to end (unless --no-wait); print it with the same
 * `tasks` array as vectorize and swap beside the command's own fields; exit 0 when done.
 */
export async function waitAndReport(cli: CreativeCli, task: CreativeTaskView, args: Parsed, out: Output, extra: Record<string, unknown> = {}): Promise<number> {
  const [view] = await waitForTasks(cli, [task], args, out);
  out.result({ ...taskJson(view), ...extra, tasks: [taskEntry(view)] }, () => humanLine(view));
  return view.status === 'done' || args.values['no-wait'] === true ? 0 : 1;
}

/**
 * Several tasks (vectorize IMAGE...): `{tasks: [...]}`. `refused` are inputs refused before
 * anything was sent (a batch never stops for one bad file): entries without a task id.
 * Exit 0 when every task is done (or queued with --no-wait).
 */
export async function waitAndReportMany(cli: CreativeCli, tasks: CreativeTaskView[], refused: { input: string; error: string }[], args: Parsed, out: Output): Promise<number> {
  const views = await waitForTasks(cli, tasks, args, out);
  const entries: TaskEntry[] = [...views.map(taskEntry), ...refused.map((r) => ({ taskId: null, status: 'failed', result: null, error: `${r.input}: ${r.error}` }))];
  out.result({ tasks: entries }, () => [...views.map(humanLine), ...refused.map((r) => `${r.input}: ${plainError(r.error)}`)].join('\n'));
  const ok = refused.length === 0 && views.every((v) => v.status === 'done' || args.values['no-wait'] === true);
  return ok ? 0 : 1;
}
