import { resolve } from 'node:path';
import type { CreativeTaskView } from '../../../src-preload/contract';
import { ApiError } from '../../core/errors';
import { openCreative, waitAndReportMany } from '../creative';
import { findAssetByPath } from '../../library/assets';
import { UsageError } from '../args';
import type { Command } from '../command';

export const command: Command = {
  name: 'vectorize',
  usage: 'vectorize IMAGE... [--no-wait] [--wait-s N]',
  summary: 'Turn PNG, JPEG or WebP pictures (library assets or files) into SVGs; each SVG lands in the library, linked to its source.',
  help: ['IMAGE...      the pictures; one billed task each', '--no-wait     queue them and return', '--json        {tasks: [{taskId, status, result: {path} | null, error?}]}'],
  options: { 'no-wait': { type: 'boolean' }, 'wait-s': { type: 'string' } },
  async run(ctx, args, out) {
    if (!args.positionals.length) throw new UsageError('vectorize needs at least one IMAGE.', 'vectorize');
    const cli = await openCreative(ctx, args, { needsCredentials: true });
    try {
      const started: CreativeTaskView[] = [];
      const refused: { input: string; error: string }[] = [];
      for (const p of args.positionals) {
        const abs = resolve(p);
        const id = findAssetByPath(ctx, abs);
        try {
          started.push(await cli.creative.startVectorize({ source: id !== null ? { assetId: id } : { path: abs } }));
        } catch (e) {
          if (!(e instanceof ApiError)) throw e;
          refused.push({ input: abs, error: e.message });
        }
      }
      return await waitAndReportMany(cli, started, refused, args, out);
    } finally {
      await cli.close();
    }
  },
};
