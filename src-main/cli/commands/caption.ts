import { setCaption } from '../../library/edits';
import { UsageError } from '../args';
import type { Command } from '../command';
import { assetIdsForPaths } from '../targets';
import { runEdit } from './edit-result';

export const command: Command = {
  name: 'caption',
  usage: 'caption PATH... (--set TEXT | --clear)',
  summary: 'Set or clear the caption.',
  help: ['--set TEXT           the new caption', '--clear              remove the caption'],
  options: { set: { type: 'string' }, clear: { type: 'boolean' } },
  async run(ctx, { values, positionals }, out) {
    const set = values.set as string | undefined;
    if (!positionals.length) throw new UsageError('caption needs a PATH.', 'caption');
    if ((set === undefined) === (values.clear !== true)) throw new UsageError('caption needs either --set TEXT or --clear.', 'caption');
    const ids = assetIdsForPaths(ctx, positionals);
    return runEdit(ctx, ids, out, 'Captioned', () => setCaption(ctx, ids, set ?? null));
  },
};
