import { createServiceHost, type ServiceHost } from '../../api/service';
import type { LibraryCtx } from '../../library/context';
import { assetPath, getAssetRow } from '../../library/assets';
import { getAssetKeywords } from '../../library/keywords';
import {
  KEYWORD_LANGS, acceptAbove, attachWorkflows, getAssetReview, previewKeywordRun, resolveTarget, runAssets, runToEnd, startKeywordRun,
  type KeywordLang, type RunOutcome, type RunPreview, type RunStarted, type RunTarget,
} from '../../workflows';
import { CliError, UsageError, intValue, type Parsed } from '../args';
import type { Command } from '../command';
import type { Output } from '../output';
import { ask, canPrompt } from '../prompt';
import { assetIdsForPaths } from '../targets';

// `tagsmith keyword`: one AI run through the durable queue, waited for, with its suggestions
// printed (and accepted above a score when asked). Shared by `caption` for its AI mode.

/** PATH... or --query Q (full text, as `search` matches it), never both. */
export function targetOf(ctx: LibraryCtx, positionals: string[], query: unknown, command: string): { target: RunTarget; ids: number[] } {
  if (positionals.length && query !== undefined) throw new UsageError(`${command} takes PATHs or --query, not both.`, command);
  if (!positionals.length && query === undefined) throw new UsageError(`${command} needs at least one PATH or --query TEXT.`, command);
  const target: RunTarget = query !== undefined ? { query: { text: String(query) } } : { assetIds: assetIdsForPaths(ctx, positionals) };
  const ids = resolveTarget(ctx, target);
  if (!ids.length) throw new CliError(`No asset matches “${String(query)}”. Nothing was sent.`);
  return { target, ids };
}

export function numberValue(v: unknown, name: string, min: number, max: number, command: string): number | undefined {
  if (v === undefined) return undefined;
  const s = String(v).trim();
  const n = Number(s);
  if (!/^\d*\.?\d+$/.test(s) || n < min || n > max) throw new UsageError(`--${name} must be a number from ${min} to ${max} (got “${s}”).`, command);
  return n;
}

/** The queue with the workflows attached, using --service-url and the credentials from the environment or the keychain. */
export function serviceFor(ctx: LibraryCtx, args: Parsed): { service: ServiceHost; close: () => Promise<void> } {
  const service = createServiceHost(ctx, { serviceUrl: args.globals.serviceUrl, startQueue: false });
  const off = attachWorkflows(ctx, service.queue);
  return {
    service,
    async close() {
      off();
      await service.dispose();
    },
  };
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

export const pathOf = (ctx: LibraryCtx, id: number): string => {
  const row = getAssetRow(ctx, id);
  return row ? assetPath(row) : String(id);
};

const LANGS = KEYWORD_LANGS.join(', ');

export const command: Command = {
  name: 'keyword',
  usage: 'keyword PATH...|--query Q [--lang L] [--num N] [--threshold T] [--accept-above S] [--colors [--num-colors N]] [--force] [--yes]',
  summary:
    'Keyword photos and videos with the AI service through the job queue and store the suggestions for review; with --accept-above, accept those scoring at least S. Already-analysed pictures cost nothing.',
  help: [
    '--query Q            the assets a search for Q finds, instead of PATHs',
    `--lang L             language of the keywords: ${LANGS} (default en; video keywords are English)`,
    '--num N              at most N keywords per file (1-50; default: the service’s, about 12)',
    '--threshold T        only keywords scoring at least T (0-1)',
    '--accept-above S     accept suggestions scoring at least S (0-1) into the files’ keywords',
    '--colors             ask for the dominant colours too (photos); --num-colors N how many',
    '--force              analyse again files already done with these settings (cached: no charge)',
    '--yes, -y            do not ask to confirm the number of billed calls (asked on a terminal only)',
  ],
  options: {
    query: { type: 'string' },
    lang: { type: 'string' },
    num: { type: 'string' },
    threshold: { type: 'string' },
    'accept-above': { type: 'string' },
    colors: { type: 'boolean' },
    'num-colors': { type: 'string' },
    force: { type: 'boolean' },
  },
  async run(ctx, args, out) {
    const { values, positionals } = args;
    const lang = values.lang as string | undefined;
    if (lang !== undefined && !KEYWORD_LANGS.includes(lang as KeywordLang)) throw new UsageError(`--lang must be one of ${LANGS} (got “${lang}”).`, 'keyword');
    const numKeywords = intValue(values.num, 'num', 1, 50, 'keyword');
    const threshold = numberValue(values.threshold, 'threshold', 0, 1, 'keyword');
    const minScore = numberValue(values['accept-above'], 'accept-above', 0, 1, 'keyword');
    const numColors = intValue(values['num-colors'], 'num-colors', 1, 10, 'keyword');
    if (numColors !== undefined && !values.colors) throw new UsageError('--num-colors goes with --colors.', 'keyword');
    const { target, ids } = targetOf(ctx, positionals, values.query, 'keyword');
    const options = {
      lang: lang as KeywordLang | undefined, numKeywords, threshold, colors: values.colors === true || undefined, numColors, force: values.force === true,
    };
    const { service, close } = serviceFor(ctx, args);
    try {
      const preview = previewKeywordRun(ctx, service.queue, target, options);
      await confirmBillable(service, preview, args, 'keyword', `Keyword ${ids.length} file${ids.length === 1 ? '' : 's'}`);
      const started = startKeywordRun(ctx, service.queue, target, options);
      const outcome = await waitWithProgress(ctx, service, started, out, 'Keywording');
      const source = sourceRuns(started);
      const runOf = (id: number): number => source.get(id) ?? started.runId;
      const pendingBefore = new Map(ids.map((id) => [id, new Set(getAssetReview(ctx, id, { runId: runOf(id) }).suggestions.filter((s) => s.state === 'pending').map((s) => s.id))]));
      if (minScore !== undefined) acceptAbove(ctx, ids, minScore, { runIds: [...new Set(ids.map(runOf))] });
      const errors = errorsOf(ctx, started, outcome);
      const assets = ids.map((id) => {
        const review = getAssetReview(ctx, id, { runId: runOf(id) });
        const keywords = getAssetKeywords(ctx.db, id);
        const accepted = review.suggestions.filter((s) => s.state === 'accepted' && pendingBefore.get(id)!.has(s.id)).map((s) => keywords.find((k) => k.toLocaleLowerCase() === s.keyword.toLocaleLowerCase()) ?? s.keyword);
        const entry: { path: string; suggestions: { keyword: string; score: number }[]; accepted: string[]; keywords: string[]; error?: string } = {
          path: pathOf(ctx, id),
          suggestions: review.suggestions.map((s) => ({ keyword: s.keyword, score: s.score })),
          accepted,
          keywords,
        };
        const err = errors.get(id);
        if (err) entry.error = err;
        return entry;
      });
      const result = { run: started.runId, batchId: started.batchId, billable: preview.billable, cached: preview.cached + preview.duplicates, assets };
      out.result(result, () =>
        [
          `Run ${started.runId}: ${preview.billable} billed call${preview.billable === 1 ? '' : 's'}, ${result.cached} from the cache.`,
          ...assets.map((a) =>
            a.error
              ? `${a.path}  error: ${a.error}`
              : `${a.path}\n  suggested: ${a.suggestions.map((s) => `${s.keyword} (${s.score.toFixed(2)})`).join(', ') || 'none'}${a.accepted.length ? `\n  accepted: ${a.accepted.join(', ')}` : ''}`,
          ),
        ].join('\n'),
      );
      return outcome.hold ? 1 : 0;
    } finally {
      await close();
    }
  },
};
