import type { CreativeTaskView } from '../../src-preload/contract';
import { createServiceHost, type ServiceHost } from '../api/service';
import type { Parsed } from './args';
import { CliError } from './args';
import type { Output } from './output';
import type { LibraryCtx } from '../library/context';
import { CreativeService } from '../creative/service';
import { FINAL_STATUSES } from '../creative/store';

// The CLI side of creative commands: the queue with the creative kind registered before it
// starts, a wait with progress (status, queue position, ETA) on a terminal, and the result
// as {task, status, path, assetId}.

export interface CreativeCli {
  service: ServiceHost;
  creative: CreativeService;
  close(): Promise<void>;
}

export async function openCreative(ctx: LibraryCtx, args: Parsed, opts: { needsCredentials?: boolean } = {}): Promise<CreativeCli> {
  const service = createServiceHost(ctx, { serviceUrl: args.globals.serviceUrl, startQueue: false });
  if (opts.needsCredentials && !(await service.credentials.get())) {
    await service.dispose();
    throw new CliError('No service credentials. Set TAGSMITH_CLIENT_ID and TAGSMITH_CLIENT_SECRET, or run `tagsmith login`. Nothing was sent.');
  }
  const creative = new CreativeService(ctx, service.queue, { client: () => service.client() });
  const off = creative.attach();
  return {
    service,
    creative,
    async close() {
      await creative.settle();
      off();
      await service.dispose();
    },
  };
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

/** Start the queue and wait for the task to end (unless --no-wait); print it; exit 0 when done. */
export async function waitAndReport(cli: CreativeCli, task: CreativeTaskView, args: Parsed, out: Output, extra: Record<string, unknown> = {}): Promise<number> {
  const { service, creative } = cli;
  let view = task;
  if (args.values['no-wait'] !== true) {
    service.queue.start();
    await new Promise<void>((resolve) => {
      const check = (): void => {
        view = creative.view(task.id);
        out.progress(describeTask(view));
        const hold = service.queue.status().hold;
        if (FINAL_STATUSES.includes(view.status) || (hold && view.status === 'waiting')) {
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
    view = creative.view(task.id);
    out.endProgress();
    const hold = service.queue.status().hold;
    if (hold && view.status === 'waiting') out.warn(`tagsmith: the task is waiting: ${hold.message} It runs the next time the queue runs.`);
  }
  out.result({ ...taskJson(view), ...extra }, () =>
    view.status === 'done' ? `${view.resultPath}  (asset ${view.resultAssetId ?? 'not indexed'}, task ${view.id})` : `${describeTask(view)}${view.error ? ` — ${view.error}` : ''}`,
  );
  return view.status === 'done' || args.values['no-wait'] === true ? 0 : 1;
}
