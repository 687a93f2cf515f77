import type { AnalysisKind } from '../../src-preload/contract';
import { analysisRunAssets, previewAnalysisRun, runAnalysisToEnd, startAnalysisRun } from '../analysis';
import type { ServiceHost } from '../api/service';
import { createTagsmith, type Tagsmith } from '../api/tagsmith';
import type { LibraryCtx } from '../library/context';
import { runAssets, runToEnd, type RunOutcome, type RunPreview, type RunStarted } from '../workflows';
import { CliError, type Parsed } from './args';
import type { Output } from './output';
import { ask, canPrompt } from './prompt';
import { targetOf } from './targets';

// The CLI side of AI runs (keyword, caption, quality, faces): the queue with the workflows
// attached, the confirmation before anything billable, the wait with progress, and what
// became of each asset; `measure` runs one analysis kind (quality, faces) that way.

/** The app's queue with every job kind (createTagsmith), using --service-url and the credentials from the environment or the keychain. */
export function serviceFor(ctx: LibraryCtx, args: Parsed): { service: Tagsmith; close: () => Promise<void> } {
  const service = createTagsmith(ctx, { serviceUrl: args.globals.serviceUrl, startQueue: false });
  return { service, close: () => service.dispose() };
}

/** Before anything billable: credentials must exist, and on a terminal (without --yes) the user confirms the count. */
export async function confirmBillable(service: ServiceHost, preview: RunPreview, args: Parsed, command: string, what: string): Promise<void> {
  if (preview.billable === 0) return;
  if (!(await service.credentials.get())) {
    throw new CliError('No service credentials. Set TAGSMITH_CLIENT_ID and TAGSMITH_CLIENT_SECRET, or run `tagsmith login`. Nothing was sent.');
  }
  if (args.globals.yes || !canPrompt()) return;
  const answer = await ask(`${what}: ${preview.message} Go on? [y/N] `, { command, flagHint: 'add --yes.' });
  if (!/^y(es)?$/i.test(answer.trim())) throw new CliError('Cancelled: nothing was sent.');
}

export async function waitWithProgress(ctx: LibraryCtx, service: ServiceHost, started: RunStarted, out: Output, verb: string): Promise<RunOutcome> {
  const outcome = await runToEnd(ctx, service.queue, started.runId, (done, total) => out.progress(`${verb} ${done}/${total}`));
  out.endProgress();
  if (outcome.hold) out.warn(`tagsmith: ${outcome.run.counts.queued} file(s) are still waiting: ${outcome.hold.message} They run the next time the queue runs.`);
  return outcome;
}

/** Per asset: the reason it has no result, when it has none. */
export function errorsOf(ctx: LibraryCtx, started: RunStarted, outcome: RunOutcome): Map<number, string> {
  const errors = new Map<number, string>();
  for (const s of started.skipped) if (s.reason !== 'already_done') errors.set(s.assetId, s.message);
  for (const a of runAssets(ctx, started.runId)) {
    if (a.state === 'failed' || a.state === 'cancelled') errors.set(a.assetId, a.error ?? 'The analysis failed.');
    else if (a.state === 'queued') errors.set(a.assetId, `Waiting: ${outcome.hold?.message ?? 'the queue stopped.'}`);
  }
  return errors;
}

/** The run whose suggestions answer each asset: this run, or the earlier one with the same settings. */
export function sourceRuns(started: RunStarted): Map<number, number> {
  const m = new Map<number, number>();
  for (const s of started.skipped) if (s.reason === 'already_done' && s.runId !== undefined) m.set(s.assetId, s.runId);
  return m;
}

export interface MeasureOutcome {
  started: RunStarted;
  billable: number;
  cached: number;
  ids: number[];
  errors: Map<number, string>;
  held: boolean;
}

export async function measure(ctx: LibraryCtx, args: Parsed, out: Output, kind: AnalysisKind, command: string, verb: string): Promise<MeasureOutcome> {
  const { target, ids } = await targetOf(ctx, args.positionals, args.values.query, command);
  const { service, close } = serviceFor(ctx, args);
  try {
    const options = { kind, force: args.values.force === true };
    const preview = await previewAnalysisRun(ctx, service.queue, target, options);
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
    await close();
  }
}
