import { setCaption } from '../../library/edits';
import {
  CAPTION_LENGTHS, acceptCaptions, getAssetReview, pendingCaptionIds, previewCaptionRun, startCaptionRun, type CaptionLength,
} from '../../workflows';
import { checkTextLimits } from '../../metadata/stock-limits';
import { UsageError } from '../args';
import { fillMissingFingerprints } from '../../library/similarity';
import type { Command } from '../command';
import { confirmBillable, errorsOf, serviceFor, sourceRuns, waitWithProgress } from '../runs';
import { assetIdsForPaths, pathOf, targetOf } from '../targets';
import { runEdit } from '../edit-result';

// `tagsmith caption`: by hand with --set/--clear, or by the AI service. AI captions are
// suggestions to review (in the app, or here with --accept); they never overwrite a caption
// unasked, which is why --yes (skip the cost question) does not accept them.

export const command: Command = {
  name: 'caption',
  usage: 'caption PATH... (--set TEXT | --clear)  |  caption PATH...|--query Q [--length short|normal|long] [--accept] [--as-title] [--per-group] [--force]',
  summary:
    'Set or clear the caption by hand; or, without --set/--clear, have the AI service suggest captions (stored for review; --accept makes them the captions).',
  help: [
    '--set TEXT           the new caption',
    '--clear              remove the caption',
    '--length L           AI caption length: short (3-6 words), normal (7-12, default) or long (13-20+)',
    '--accept             accept the suggested captions (otherwise they wait for review)',
    '--as-title           with --accept: set them as titles instead of captions',
    '--query Q            AI mode: the assets a search for Q finds, instead of PATHs',
    '--per-group          one billed call per group of similar photos (its pick, else its best frame); the other members receive its caption for review',
    '--force              suggest again for files already done with this length (cached: no charge)',
    '--yes, -y            do not ask to confirm the number of billed calls (does not accept)',
  ],
  options: {
    set: { type: 'string' },
    clear: { type: 'boolean' },
    length: { type: 'string' },
    accept: { type: 'boolean' },
    'as-title': { type: 'boolean' },
    query: { type: 'string' },
    force: { type: 'boolean' },
    'per-group': { type: 'boolean' },
  },
  async run(ctx, args, out) {
    const { values, positionals } = args;
    const set = values.set as string | undefined;
    const manual = set !== undefined || values.clear === true;
    if (manual) {
      if (!positionals.length) throw new UsageError('caption needs a PATH.', 'caption');
      if (set !== undefined && values.clear === true) throw new UsageError('caption needs either --set TEXT or --clear.', 'caption');
      for (const f of ['length', 'accept', 'as-title', 'query', 'force', 'per-group']) {
        if (values[f] !== undefined) throw new UsageError(`--${f} is for AI captions, not with --set/--clear.`, 'caption');
      }
      const ids = assetIdsForPaths(ctx, positionals);
      return runEdit(ctx, ids, out, 'Captioned', () => setCaption(ctx, ids, set ?? null));
    }
    const length = values.length as string | undefined;
    if (length !== undefined && !CAPTION_LENGTHS.includes(length as CaptionLength)) {
      throw new UsageError(`--length must be one of ${CAPTION_LENGTHS.join(', ')} (got “${length}”).`, 'caption');
    }
    if (values['as-title'] && !values.accept) throw new UsageError('--as-title goes with --accept.', 'caption');
    const { target, ids } = await targetOf(ctx, positionals, values.query, 'caption');
    const options = { length: length as CaptionLength | undefined, force: values.force === true, ...(values['per-group'] ? { perGroup: true } : {}) };
    if (options.perGroup) await fillMissingFingerprints(ctx, { assetIds: ids });
    const { service, close } = serviceFor(ctx, args);
    try {
      const preview = await previewCaptionRun(ctx, service.queue, target, options);
      if (preview.perGroup) out.warn(`tagsmith: ${preview.perGroup.message}`);
      await confirmBillable(service, preview, args, 'caption', `Caption ${ids.length} file${ids.length === 1 ? '' : 's'}`);
      const started = await startCaptionRun(ctx, service.queue, target, options);
      const outcome = await waitWithProgress(ctx, service, started, out, 'Captioning');
      const source = sourceRuns(started);
      const runOf = (id: number): number => source.get(id) ?? started.runId;
      const accepted = new Set<number>();
      if (values.accept) {
        const runIds = [...new Set(ids.map(runOf))];
        const pending = await pendingCaptionIds(ctx, ids, { runIds });
        for (const id of await acceptCaptions(ctx, pending, { as: values['as-title'] ? 'title' : 'caption' })) accepted.add(id);
      }
      const errors = errorsOf(ctx, started, outcome);
      const assets = ids.map((id) => {
        const review = getAssetReview(ctx, id, { runId: runOf(id) });
        const suggestion = review.captions[0] ?? null;
        const entry: { path: string; caption: string | null; accepted: boolean; warnings: string[]; error?: string } = {
          path: pathOf(ctx, id),
          caption: suggestion?.text ?? null,
          accepted: suggestion?.state === 'accepted',
          warnings: suggestion ? checkTextLimits({ title: suggestion.text }, 'adobe').concat(checkTextLimits({ caption: suggestion.text }, 'shutterstock')).map((w) => w.message) : [],
        };
        const err = errors.get(id);
        if (err) entry.error = err;
        return entry;
      });
      out.result({ run: started.runId, batchId: started.batchId, billable: preview.billable, cached: preview.cached + preview.duplicates, assets }, () =>
        assets.map((a) => (a.error ? `${a.path}  error: ${a.error}` : `${a.path}\n  ${a.accepted ? 'caption' : 'suggested'}: ${a.caption}`)).join('\n'),
      );
      return outcome.hold ? 1 : 0;
    } finally {
      await close();
    }
  },
};
