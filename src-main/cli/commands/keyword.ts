import { getAssetKeywords } from '../../library/keywords';
import { fillMissingFingerprints } from '../../library/similarity';
import { assetPath, getAssetRow } from '../../library/assets';
import { KEYWORD_LANGS, acceptAbove, getAssetReview, previewKeywordRun, startKeywordRun, type KeywordLang } from '../../workflows';
import { UsageError, intValue, numberValue } from '../args';
import type { Command } from '../command';
import { confirmBillable, errorsOf, serviceFor, sourceRuns, waitWithProgress } from '../runs';
import { pathOf, targetOf } from '../targets';

// `tagsmith keyword`: one AI run through the durable queue, waited for, with its suggestions
// printed (and accepted above a score when asked). The helpers it shares with `caption`,
// `quality`, `faces` and `export` are in cli/runs.ts, cli/targets.ts and cli/args.ts.

const LANGS = KEYWORD_LANGS.join(', ');

export const command: Command = {
  name: 'keyword',
  usage: 'keyword PATH...|--query Q [--lang L] [--num N] [--threshold T] [--accept-above S] [--colors [--num-colors N]] [--per-group] [--force] [--yes]',
  summary:
    'Keyword photos and videos with the AI service through the job queue and store the suggestions for review; with --accept-above, accept those scoring at least S. Already-analysed pictures cost nothing.',
  help: [
    '--query Q            the assets a search for Q finds, instead of PATHs',
    `--lang L             language of the keywords: ${LANGS} (default en; video keywords are English)`,
    '--num N              at most N keywords per file (1-50; default: the service’s, about 12)',
    '--threshold T        only keywords scoring at least T (0-1)',
    '--accept-above S     accept suggestions scoring at least S (0-1) into the files’ keywords',
    '--colors             ask for the dominant colours too (photos); --num-colors N how many',
    '--per-group          one billed call per group of similar photos (its pick, else its best frame); the other members receive its suggestions for review',
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
    'per-group': { type: 'boolean' },
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
    const { target, ids } = await targetOf(ctx, positionals, values.query, 'keyword');
    const options = {
      lang: lang as KeywordLang | undefined, numKeywords, threshold, colors: values.colors === true || undefined, numColors, force: values.force === true,
      ...(values['per-group'] ? { perGroup: true } : {}),
    };
    if (options.perGroup) await fillMissingFingerprints(ctx, { assetIds: ids });
    const { service, close } = serviceFor(ctx, args);
    try {
      const preview = await previewKeywordRun(ctx, service.queue, target, options);
      for (const w of preview.warnings ?? []) {
        const row = getAssetRow(ctx, w.assetId);
        out.warn(`tagsmith: ${row ? assetPath(row) : `asset ${w.assetId}`}: ${w.message}`);
      }
      if (preview.perGroup) out.warn(`tagsmith: ${preview.perGroup.message}`);
      await confirmBillable(service, preview, args, 'keyword', `Keyword ${ids.length} file${ids.length === 1 ? '' : 's'}`);
      const started = await startKeywordRun(ctx, service.queue, target, options);
      const outcome = await waitWithProgress(ctx, service, started, out, 'Keywording');
      const source = sourceRuns(started);
      const runOf = (id: number): number => source.get(id) ?? started.runId;
      const pendingBefore = new Map(ids.map((id) => [id, new Set(getAssetReview(ctx, id, { runId: runOf(id) }).suggestions.filter((s) => s.state === 'pending').map((s) => s.id))]));
      if (minScore !== undefined) await acceptAbove(ctx, ids, minScore, { runIds: [...new Set(ids.map(runOf))] });
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
