import type { CreativeTaskView } from '../../../src-preload/contract';
import { describeTask, openCreative, taskJson, waitForTasks } from '../creative';
import { UsageError, intValue } from '../args';
import type { Command } from '../command';

const ACTIONS = ['cancel', 'retry', 'fetch'] as const;
type Action = (typeof ACTIONS)[number];

export const command: Command = {
  name: 'tasks',
  usage: 'tasks [--active] [--limit N] | tasks cancel|retry|fetch ID... [--bill-again] [--task-id T] [--no-wait] [--wait-s N]',
  summary: 'Creative tasks (speech, lipsync, images, face swap): status, queue position, result; cancel, retry or fetch again. The service keeps queued inputs for up to 24 hours.',
  help: [
    '--active    only tasks that have not ended', '--limit N   at most N tasks (default 50)',
    'cancel ID...  cancel at the service too (a task it can no longer cancel finishes, is paid, and its result lands)',
    'fetch ID...   follow a task again by its service task id, or download its result again (no new charge)',
    '--task-id T   with fetch: the service\'s task id of a task whose answer was unreadable',
    'retry ID...   run a failed task again: a new task, billed again; needs --bill-again',
    '--no-wait     do not wait for the tasks to end', '--wait-s N    wait at most N seconds',
  ],
  options: {
    active: { type: 'boolean' }, limit: { type: 'string' }, 'bill-again': { type: 'boolean' }, 'task-id': { type: 'string' },
    'no-wait': { type: 'boolean' }, 'wait-s': { type: 'string' },
  },
  async run(ctx, args, out) {
    const [action, ...rest] = args.positionals;
    if (action === undefined) {
      const cli = await openCreative(ctx, args);
      try {
        const tasks = cli.creative.list({ active: args.values.active === true, limit: intValue(args.values.limit, 'limit', 1, 10_000, 'tasks') ?? 50 });
        out.result({ tasks: tasks.map(taskJson) }, () =>
          tasks.map((t) => `${describeTask(t)}  ${t.kind}${t.resultPath ? `  ${t.resultPath}` : ''}${t.error ? `  — ${t.error}` : ''}`).join('\n') || 'No creative tasks yet.');
        return 0;
      } finally {
        await cli.close();
      }
    }
    if (!ACTIONS.includes(action as Action)) throw new UsageError(`tasks: unknown action “${action}” (cancel, retry or fetch).`, 'tasks');
    if (!rest.length) throw new UsageError(`tasks ${action} needs the id of at least one task (see \`tagsmith tasks\`).`, 'tasks');
    const ids = rest.map((r) => intValue(r, 'ID', 1, Number.MAX_SAFE_INTEGER, 'tasks')!);
    const taskId = args.values['task-id'] as string | undefined;
    if (taskId !== undefined && (action !== 'fetch' || ids.length !== 1)) throw new UsageError('--task-id goes with `tasks fetch` and one task.', 'tasks');
    if (action === 'retry' && args.values['bill-again'] !== true) {
      throw new UsageError('Running a task again is a new task, billed again: add --bill-again to confirm. To follow a task the service accepted, use `tasks fetch` (no new charge).', 'tasks');
    }
    const cli = await openCreative(ctx, args, { needsCredentials: true });
    try {
      const views: CreativeTaskView[] = [];
      const errors: { task: number; error: string }[] = [];
      for (const id of ids) {
        try {
          if (action === 'cancel') views.push(cli.creative.cancel(id));
          else if (action === 'fetch') views.push(await cli.creative.refetch(id, taskId));
          else views.push(await cli.creative.retry(id, true));
        } catch (e) {
          errors.push({ task: id, error: (e as Error).message });
        }
      }
      const ended = await waitForTasks(cli, views, args, out);
      const entries = [...ended.map(taskJson), ...errors.map((e) => ({ task: e.task, error: e.error }))];
      out.result({ tasks: entries }, () => [
        ...ended.map((t) => `${describeTask(t)}${t.resultPath ? `  ${t.resultPath}` : ''}${t.attention ? `  — ${t.attention.message}` : t.error ? `  — ${t.error}` : ''}`),
        ...errors.map((e) => `task ${e.task}: ${e.error}`),
      ].join('\n'));
      const ok = (v: CreativeTaskView): boolean => (action === 'cancel' ? ['cancelled', 'done'].includes(v.status) : v.status === 'done') || args.values['no-wait'] === true;
      return errors.length === 0 && ended.every(ok) ? 0 : 1;
    } finally {
      await cli.close();
    }
  },
};
