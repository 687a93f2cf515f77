import { resolve } from 'node:path';
import { openCreative, waitAndReportMany } from '../creative';
import { findAssetByPath } from '../../library/assets';
import type { LibraryCtx } from '../../library/context';
import { UsageError } from '../args';
import type { Command } from '../command';

const ref = (ctx: LibraryCtx, p: string) => {
  const abs = resolve(p);
  const id = findAssetByPath(ctx, abs);
  return id !== null ? { assetId: id } : { path: abs };
};

export const command: Command = {
  name: 'swap',
  usage: 'swap --donor FACE --target IMAGE|VIDEO [--gfpgan] [--no-wait] [--wait-s N]',
  summary: 'Put the donor face onto a picture (image face swap) or into a video (video face swap); the result lands in the library.',
  help: ['--donor FACE     the picture with the face to use', '--target T       the picture or video that receives it', '--gfpgan         restore the face after swapping', '--no-wait        queue it and return', '--json           {tasks: [{taskId, status, result: {path} | null, error?}]}'],
  options: { donor: { type: 'string' }, target: { type: 'string' }, gfpgan: { type: 'boolean' }, 'no-wait': { type: 'boolean' }, 'wait-s': { type: 'string' } },
  async run(ctx, args, out) {
    const v = args.values;
    if (typeof v.donor !== 'string' || typeof v.target !== 'string') throw new UsageError('swap needs --donor FACE and --target IMAGE|VIDEO.', 'swap');
    if (args.positionals.length) throw new UsageError('swap takes no other arguments.', 'swap');
    const cli = await openCreative(ctx, args, { needsCredentials: true });
    try {
      const task = await cli.creative.startFaceSwap({ source: ref(ctx, v.donor), target: ref(ctx, v.target), ...(v.gfpgan === true ? { useGfpgan: true } : {}) });
      return await waitAndReportMany(cli, [task], [], args, out);
    } finally {
      await cli.close();
    }
  },
};
