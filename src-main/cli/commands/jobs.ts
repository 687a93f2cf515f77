import type { JobState } from '../../../src-preload/contract';
import { createTagsmith } from '../../api/tagsmith';
import { UsageError, intValue, listValue } from '../args';
import type { Command } from '../command';

const STATES: JobState[] = ['queued', 'running', 'done', 'failed', 'cancelled', 'unknown', 'paused'];

export const command: Command = {
  name: 'jobs',
  usage: 'jobs [--state S]... [--batch ID] [--limit N]',
  summary: 'Show the service job queue: what holds it, today’s and this month’s billed calls, batches and jobs.',
  help: [`--state S   only jobs in these states (${STATES.join(', ')})`, '--batch ID   only the jobs of one batch', '--limit N   at most N jobs (default 200)'],
  options: { state: { type: 'string', multiple: true }, batch: { type: 'string' }, limit: { type: 'string' } },
  async run(ctx, { values, positionals }, out) {
    if (positionals.length) throw new UsageError('jobs takes no arguments.', 'jobs');
    const states = listValue(values.state);
    const bad = states.find((s) => !STATES.includes(s as JobState));
    if (bad) throw new UsageError(`unknown state “${bad}” (one of ${STATES.join(', ')}).`, 'jobs');
    const limit = intValue(values.limit, 'limit', 1, 100_000, 'jobs') ?? 200;
    // Read-only: the queue is not started, so nothing is sent.
    const service = createTagsmith(ctx, { startQueue: false });
    try {
      // A studio member's billed counts are the studio's: hear the other machines' first.
      await service.queue.refreshUsage();
      const status = service.queue.status();
      const batches = service.queue.listBatches();
      const jobs = service.queue.listJobs({
        states: states.length ? (states as JobState[]) : undefined,
        batchId: values.batch as string | undefined,
        limit,
      });
      out.result({ hold: status.hold, counts: status.counts, usage: status.usage, batches, jobs }, () => {
        const lines: string[] = [];
        if (status.hold) lines.push(`Paused: ${status.hold.message}`);
        lines.push(`Billed calls: ${status.usage.today} today, ${status.usage.thisMonth} this month.`);
        const counts = Object.entries(status.counts).map(([k, n]) => `${n} ${k}`);
        lines.push(counts.length ? `Jobs: ${counts.join(', ')}.` : 'No jobs yet.');
        for (const b of batches.slice(0, 20)) {
          const done = b.counts.done ?? 0;
          lines.push(`  ${b.label}  ${done}/${b.total} done${b.paused ? ', paused' : ''}${b.cancelled ? ', cancelled' : ''}  [${b.id}]`);
        }
        for (const j of jobs.slice(0, 50)) {
          lines.push(`  #${j.id} ${j.endpoint} ${j.state}${j.error ? ` — ${j.error.message}` : ''}`);
        }
        return lines.join('\n');
      });
      return 0;
    } finally {
      await service.dispose();
    }
  },
};
