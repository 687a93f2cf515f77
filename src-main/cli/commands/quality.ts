import { cliMeasurements } from '../asset-json';
import type { Command } from '../command';
import { measure } from '../runs';
import { pathOf } from '../targets';

// `tagsmith quality`: one measurement run through the durable queue (cli/runs.ts, shared
// with `faces`), waited for, with what was measured per file. Already-measured pictures cost nothing.

export const command: Command = {
  name: 'quality',
  usage: 'quality PATH...|--query Q [--ugc] [--force] [--yes]',
  summary: 'Score photos with the service’s stock quality model (or, with --ugc, its UGC quality model and class 1-5) through the job queue.',
  help: [
    '--query Q            the assets a search for Q finds, instead of PATHs',
    '--ugc                UGC quality: a score and a class (1 Very Bad, 2 Poor, 3 Normal, 4 Good, 5 Excellent)',
    '--force              measure again files already measured (cached: no charge)',
    '--yes, -y            do not ask to confirm the number of billed calls (asked on a terminal only)',
  ],
  options: { query: { type: 'string' }, ugc: { type: 'boolean' }, force: { type: 'boolean' } },
  async run(ctx, args, out) {
    const ugc = args.values.ugc === true;
    const m = await measure(ctx, args, out, ugc ? 'qualityUgc' : 'quality', 'quality', 'Scoring');
    const assets = m.ids.map((id) => {
      const q = cliMeasurements(ctx, id).quality ?? { score: null, ugcScore: null, ugcClass: null };
      const entry: { path: string; quality: typeof q; error?: string } = { path: pathOf(ctx, id), quality: q };
      const err = m.errors.get(id);
      if (err) entry.error = err;
      return entry;
    });
    const result = { run: m.started.runId, billable: m.billable, cached: m.cached, assets };
    const pct = (s: number | null): string => (s === null ? '—' : `${Math.round(s * 100)}%`);
    out.result(result, () =>
      [
        `Run ${result.run}: ${result.billable} billed call${result.billable === 1 ? '' : 's'}, ${result.cached} from the cache.`,
        ...assets.map((a) =>
          a.error
            ? `${a.path}  error: ${a.error}`
            : ugc
              ? `${a.path}  UGC ${pct(a.quality.ugcScore)} (class ${a.quality.ugcClass ?? '—'})`
              : `${a.path}  ${pct(a.quality.score)}`,
        ),
      ].join('\n'),
    );
    return m.held ? 1 : 0;
  },
};
