import type { AnalysisKind, RunStarted } from '../../../src-preload/contract';
import { analysisRunAssets, attachAnalysis, previewAnalysisRun, runAnalysisToEnd, startAnalysisRun } from '../../analysis';
import type { LibraryCtx } from '../../library/context';
import type { Parsed } from '../args';
import { cliMeasurements } from '../asset-json';
import type { Command } from '../command';
import type { Output } from '../output';
import { confirmBillable, pathOf, serviceFor, targetOf } from './keyword';

// `tagsmith quality` / `tagsmith faces`: one measurement run through the durable queue,
// waited for, with what was measured per file. Already-measured pictures cost nothing.

export interface MeasureOutcome {
  started: RunStarted;
  billable: number;
  cached: number;
  ids: number[];
  errors: Map<number, string>;
  held: boolean;
}

export async function measure(ctx: LibraryCtx, args: Parsed, out: Output, kind: AnalysisKind, command: string, verb: string): Promise<MeasureOutcome> {
  const { target, ids } = targetOf(ctx, args.positionals, args.values.query, command);
  const { service, close } = serviceFor(ctx, args);
  const off = attachAnalysis(ctx, service.queue);
  try {
    const options = { kind, force: args.values.force === true };
    const preview = previewAnalysisRun(ctx, service.queue, target, options);
    await confirmBillable(service, preview, args, command, `${verb} ${ids.length} file${ids.length === 1 ? '' : 's'}`);
    const started = await startAnalysisRun(ctx, service.queue, target, options);
    const outcome = await runAnalysisToEnd(ctx, service.queue, started.runId, (done, total) => out.progress(`${verb} ${done}/${total}`));
    out.endProgress();
    if (outcome.hold) out.warn(`tagsmith: ${outcome.run.counts.queued} file(s) are still waiting: ${outcome.hold.message} They run the next time the queue runs.`);
    const errors = new Map<number, string>();
    for (const s of started.skipped) if (s.reason !== 'already_done') errors.set(s.assetId, s.message);
    for (const a of analysisRunAssets(ctx, started.runId)) {
      if (a.state === 'failed' || a.state === 'cancelled') errors.set(a.assetId, a.error ?? 'The analysis failed.');
      else if (a.state === 'queued') errors.set(a.assetId, `Waiting: ${outcome.hold?.message ?? 'the queue stopped.'}`);
    }
    return { started, billable: preview.billable, cached: preview.cached + preview.duplicates, ids, errors, held: outcome.hold !== null };
  } finally {
    off();
    await close();
  }
}

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
