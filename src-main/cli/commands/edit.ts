import { resolve } from 'node:path';
import { openCreative, waitAndReport } from '../creative';
import { findAssetByPath } from '../../library/assets';
import { UsageError, intValue, numberValue } from '../args';
import type { Command } from '../command';

export const command: Command = {
  name: 'edit',
  usage: 'edit --prompt P IMAGE... [--model M] [--quality Q] [--resolution R] [--size S] [--megapixel-ratio R] [--seed N] [--no-wait] [--wait-s N]',
  summary: 'Edit images with a prompt; the sources (library assets or files) go as downscaled copies; the result lands in the library.',
  help: ['--prompt P      the edit instructions', '--model M       flux2 (default), qwen, gpt-image-2, ... (max sources per model)', '--quality Q     GPT image models only (low, medium, high; sunburst also xhigh, max)', '--resolution R  per model', '--size S        image size', '--megapixel-ratio R  output megapixels relative to the source, 0.5 to 1.5 (default 1.0)', '--seed N        reproducible result', '--no-wait       queue it and return', '--wait-s N      wait at most N seconds, then say how to follow the task (it keeps running)'],
  options: {
    prompt: { type: 'string' }, model: { type: 'string' }, quality: { type: 'string' }, resolution: { type: 'string' }, size: { type: 'string' },
    'megapixel-ratio': { type: 'string' }, seed: { type: 'string' }, 'no-wait': { type: 'boolean' }, 'wait-s': { type: 'string' },
  },
  async run(ctx, args, out) {
    const v = args.values;
    if (typeof v.prompt !== 'string' || !v.prompt.trim()) throw new UsageError('edit needs --prompt P.', 'edit');
    if (!args.positionals.length) throw new UsageError('edit needs at least one IMAGE.', 'edit');
    const sources = args.positionals.map((p) => {
      const abs = resolve(p);
      const id = findAssetByPath(ctx, abs);
      return id !== null ? { assetId: id } : { path: abs };
    });
    const s = (k: string) => (typeof v[k] === 'string' ? (v[k] as string) : undefined);
    const req = {
      prompt: v.prompt, sources, model: s('model'), quality: s('quality'), resolution: s('resolution'), imageSize: s('size'),
      megapixelRatio: numberValue(v['megapixel-ratio'], 'megapixel-ratio', 0.5, 1.5, 'edit'), seed: intValue(v.seed, 'seed', -1, 2 ** 31 - 1, 'edit'),
    };
    const clean = Object.fromEntries(Object.entries(req).filter(([, x]) => x !== undefined)) as typeof req;
    const cli = await openCreative(ctx, args, { needsCredentials: true });
    try {
      const preview = cli.creative.previewImageJob({ kind: 'edit', request: clean });
      if (!preview.ok) throw new UsageError(preview.error!.message, 'edit');
      for (const n of preview.costNotes) out.warn(`tagsmith: ${n}`);
      return await waitAndReport(cli, await cli.creative.startEdit(clean), args, out);
    } finally {
      await cli.close();
    }
  },
};
