import { listFolders, refreshOnline } from '../../library/folders';
import { UsageError } from '../args';
import type { Command } from '../command';

export const command: Command = {
  name: 'folders',
  usage: 'folders',
  summary: 'List the library folders with their asset and error counts.',
  help: [],
  options: {},
  async run(ctx, { positionals }, out) {
    if (positionals.length) throw new UsageError('folders takes no arguments.', 'folders');
    refreshOnline(ctx);
    const folders = listFolders(ctx).map((f) => ({
      path: f.path,
      online: f.online,
      assetCount: f.assetCount,
      errorCount: f.errorCount,
      lastScanAt: f.lastScanAt === null ? null : new Date(f.lastScanAt).toISOString(),
    }));
    out.result(folders, () =>
      folders.length
        ? folders.map((f) => `${f.path}  (${f.assetCount} assets, ${f.errorCount} errors${f.online ? '' : ', offline'})`).join('\n')
        : 'No folders yet. Add one with `tagsmith index PATH`.',
    );
    return 0;
  },
};
