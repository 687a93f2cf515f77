import { editKeywords } from '../../library/edits';
import { UsageError, listValue } from '../args';
import type { Command } from '../command';
import { assetIdsForPaths } from '../targets';
import { runEdit } from '../edit-result';

export const command: Command = {
  name: 'tag',
  usage: 'tag PATH... [--add K1,K2] [--remove K3]',
  summary: 'Add and/or remove keywords (existing order kept, new ones appended; removal ignores case).',
  help: ['--add K1,K2          keywords to add (repeatable)', '--remove K3          keywords to remove (repeatable)'],
  options: { add: { type: 'string', multiple: true }, remove: { type: 'string', multiple: true } },
  async run(ctx, { values, positionals }, out) {
    const add = listValue(values.add);
    const remove = listValue(values.remove);
    if (!positionals.length) throw new UsageError('tag needs at least one PATH.', 'tag');
    if (!add.length && !remove.length) throw new UsageError('tag needs --add and/or --remove with at least one keyword.', 'tag');
    const ids = assetIdsForPaths(ctx, positionals);
    return runEdit(ctx, ids, out, 'Tagged', () => editKeywords(ctx, ids, add, remove));
  },
};
