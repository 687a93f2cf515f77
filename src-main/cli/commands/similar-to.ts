import { getAssetRow } from '../../library/assets';
import { fillMissingFingerprints, nearestTo } from '../../library/similarity';
import { CliError, UsageError, intValue } from '../args';
import type { Command } from '../command';
import { assetIdsForPaths, pathOf } from '../targets';

// `tagsmith similar-to PATH`: the library's pictures nearest to one, nearest first.

export const command: Command = {
  name: 'similar-to',
  usage: 'similar-to PATH [--limit N]',
  summary: 'The pictures most similar to one (a photo or a video’s poster frame), nearest first, with their distance (0 = the same picture).',
  help: ['--limit N            at most N pictures (default 20)'],
  options: { limit: { type: 'string' } },
  async run(ctx, { values, positionals }, out) {
    if (positionals.length !== 1) throw new UsageError('similar-to takes exactly one PATH.', 'similar-to');
    const limit = intValue(values.limit, 'limit', 1, 10_000, 'similar-to') ?? 20;
    const [id] = assetIdsForPaths(ctx, positionals);
    await fillMissingFingerprints(ctx);
    const found = nearestTo(ctx.db, id, limit);
    if (found === null) {
      const row = getAssetRow(ctx, id);
      throw new CliError(row?.kind === 'audio'
        ? `“${pathOf(ctx, id)}” is an audio file: it has no picture to compare.`
        : `“${pathOf(ctx, id)}” has no picture Tagsmith could read (see \`tagsmith show\` for why), so nothing can be compared with it.`);
    }
    const result = found.map((n) => ({ path: pathOf(ctx, n.assetId), distance: n.distance }));
    out.result(result, () => (result.length ? result.map((r) => `${r.distance.toFixed(1).padStart(5)}  ${r.path}`).join('\n') : 'No similar pictures.'));
    return 0;
  },
};
