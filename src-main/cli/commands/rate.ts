import { setRating } from '../../library/edits';
import { UsageError, intValue } from '../args';
import type { Command } from '../command';
import { assetIdsForPaths } from '../targets';
import { runEdit } from '../edit-result';

export const command: Command = {
  name: 'rate',
  usage: 'rate PATH... --stars N',
  summary: 'Set the star rating, 0 to 5 (0 clears it).',
  help: ['--stars N            0..5'],
  options: { stars: { type: 'string' } },
  async run(ctx, { values, positionals }, out) {
    if (!positionals.length) throw new UsageError('rate needs a PATH.', 'rate');
    const stars = intValue(values.stars, 'stars', 0, 5, 'rate');
    if (stars === undefined) throw new UsageError('rate needs --stars N (0..5).', 'rate');
    const ids = assetIdsForPaths(ctx, positionals);
    return runEdit(ctx, ids, out, 'Rated', () => setRating(ctx, ids, stars));
  },
};
