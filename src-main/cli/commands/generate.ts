import { openCreative, waitAndReport } from '../creative';
import { UsageError, intValue } from '../args';
import type { Command } from '../command';

export const command: Command = {
  name: 'generate',
  usage: 'generate --prompt P [--model M] [--size S] [--resolution R] [--quality Q] [--seed N] [--style S] [--no-wait]',
  summary: 'Generate an image from a prompt; the result (PNG or SVG) lands in the library with the prompt in its description.',
  help: ['--prompt P      what to make', '--model M       e.g. zimage (default), flux, gpt-image-2, recraftv4_1_vector', '--size S        square, portrait_3_2, landscape_16_9, ...', '--resolution R  1k, 2k, 3k, 4k (per model)', '--quality Q     GPT image models only', '--seed N        reproducible result', '--style S       a preset (flux: transparent)', '--no-wait       queue it and return'],
  options: { prompt: { type: 'string' }, model: { type: 'string' }, size: { type: 'string' }, resolution: { type: 'string' }, quality: { type: 'string' }, seed: { type: 'string' }, style: { type: 'string' }, 'no-wait': { type: 'boolean' } },
  async run(ctx, args, out) {
    const v = args.values;
    if (typeof v.prompt !== 'string' || !v.prompt.trim()) throw new UsageError('generate needs --prompt P.', 'generate');
    const s = (k: string) => (typeof v[k] === 'string' ? (v[k] as string) : undefined);
    const req = { prompt: v.prompt, model: s('model'), imageSize: s('size'), resolution: s('resolution'), quality: s('quality'), style: s('style'), seed: intValue(v.seed, 'seed', -1, 2 ** 31 - 1, 'generate') };
    const clean = Object.fromEntries(Object.entries(req).filter(([, x]) => x !== undefined)) as typeof req;
    const cli = await openCreative(ctx, args, { needsCredentials: true });
    try {
      const preview = cli.creative.previewImageJob({ kind: 'generate', request: clean });
      if (!preview.ok) throw new UsageError(preview.error!.message, 'generate');
      return await waitAndReport(cli, await cli.creative.startGenerate(clean), args, out);
    } finally {
      await cli.close();
    }
  },
};
