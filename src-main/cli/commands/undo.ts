import { undo } from '../../library/edits';
import { UsageError } from '../args';
import type { Command } from '../command';

export const command: Command = {
  name: 'undo',
  usage: 'undo',
  summary: 'Undo the most recent edit (keywords, caption, title, rating, label, or a rename: the files get their old names back).',
  help: [],
  options: {},
  async run(ctx, { positionals }, out) {
    if (positionals.length) throw new UsageError('undo takes no arguments.', 'undo');
    const undone = await undo(ctx);
    out.result({ undone }, () => undone ?? 'Nothing to undo.');
    return 0;
  },
};
