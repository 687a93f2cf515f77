import { backupCatalogue } from '../../library/backup';
import { UsageError } from '../args';
import type { Command } from '../command';

export const command: Command = {
  name: 'backup',
  usage: 'backup',
  summary: 'Back the catalogue up now, beside it in <library>/backups (the newest 7 are kept unless set otherwise).',
  help: [],
  options: {},
  async run(ctx, { positionals }, out) {
    if (positionals.length) throw new UsageError('backup takes no arguments.', 'backup');
    const made = await backupCatalogue(ctx.db, ctx.paths.dataDir, 'manual');
    out.result({ path: made.path, bytes: made.bytes }, () => made.path);
    return 0;
  },
};
