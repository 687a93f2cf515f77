import { describeTask, openCreative, taskJson } from '../creative';
import { UsageError, intValue } from '../args';
import type { Command } from '../command';

export const command: Command = {
  name: 'tasks',
  usage: 'tasks [--active] [--limit N]',
  summary: 'Creative tasks (speech, lipsync, images, face swap): status, queue position, result. The service keeps queued inputs for up to 24 hours.',
  help: ['--active    only tasks that have not ended', '--limit N   at most N tasks (default 50)'],
  options: { active: { type: 'boolean' }, limit: { type: 'string' } },
  async run(ctx, args, out) {
    if (args.positionals.length) throw new UsageError('tasks takes no arguments.', 'tasks');
    const cli = await openCreative(ctx, args);
    try {
      const tasks = cli.creative.list({ active: args.values.active === true, limit: intValue(args.values.limit, 'limit', 1, 10_000, 'tasks') ?? 50 });
      out.result({ tasks: tasks.map(taskJson) }, () =>
        tasks.map((t) => `${describeTask(t)}  ${t.kind}${t.resultPath ? `  ${t.resultPath}` : ''}${t.error ? `  — ${t.error}` : ''}`).join('\n') || 'No creative tasks yet.');
      return 0;
    } finally {
      await cli.close();
    }
  },
};
