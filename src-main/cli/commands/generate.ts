import { resolve } from 'node:path';
import type { GenerateRequest, RgbColor } from '../../../src-preload/contract';
import { findAssetByPath } from '../../library/assets';
import { openCreative, waitAndReport } from '../creative';
import { UsageError, intValue } from '../args';

/** "R,G,B" or "R,G,B:WEIGHT" (vector controls: the weight's name and scale are not stated by the interface; the vendor's 0..1 is used). */
function rgbOf(text: string, flag: string): RgbColor {
  const m = /^(\d{1,3}),(\d{1,3}),(\d{1,3})(?::(\d*\.?\d+))?$/.exec(text.replace(/\s+/g, ''));
  const rgb = m ? [Number(m[1]), Number(m[2]), Number(m[3])] : [];
  if (!m || rgb.some((x) => x > 255) || (m[4] !== undefined && Number(m[4]) > 1)) {
    throw new UsageError(`--${flag} takes R,G,B (0-255 each) with an optional :WEIGHT from 0 to 1, e.g. 200,30,30:0.5 (got “${text}”).`, 'generate');
  }
  return { rgb: rgb as [number, number, number], ...(m[4] !== undefined ? { weight: Number(m[4]) } : {}) };
}
import type { Command } from '../command';

export const command: Command = {
  name: 'generate',
  usage: 'generate --prompt P [--model M] [--size S] [--resolution R] [--quality Q] [--seed N] [--style S] [--style-image FILE] [--color R,G,B[:W]]... [--background R,G,B] [--lora-url URL] [--no-wait] [--wait-s N]',
  summary: 'Generate an image from a prompt; the result (PNG or SVG) lands in the library with the prompt in its description.',
  help: ['--prompt P      what to make', '--model M       e.g. zimage (default), flux, gpt-image-2, recraftv4_1_vector', '--size S        square, portrait_3_2, landscape_16_9, ...', '--resolution R  1k, 2k, 3k, 4k (per model)', '--quality Q     GPT image models only', '--seed N        reproducible result', '--style S       a preset (flux: transparent, transfer)', '--style-image FILE  the source picture of flux\'s transfer style', '--color R,G,B[:W]  a palette colour for the vector models (up to 12; repeat or separate with ;)', '--background R,G,B  the background colour for the vector models', '--lora-url URL  a LoRA weights file to apply', '--no-wait       queue it and return', '--wait-s N      wait at most N seconds, then say how to follow the task (it keeps running)'],
  options: {
    prompt: { type: 'string' }, model: { type: 'string' }, size: { type: 'string' }, resolution: { type: 'string' }, quality: { type: 'string' }, seed: { type: 'string' },
    style: { type: 'string' }, 'style-image': { type: 'string' }, color: { type: 'string', multiple: true }, background: { type: 'string' }, 'lora-url': { type: 'string' }, 'no-wait': { type: 'boolean' }, 'wait-s': { type: 'string' },
  },
  async run(ctx, args, out) {
    const v = args.values;
    if (typeof v.prompt !== 'string' || !v.prompt.trim()) throw new UsageError('generate needs --prompt P.', 'generate');
    const s = (k: string) => (typeof v[k] === 'string' ? (v[k] as string) : undefined);
    const colors = (Array.isArray(v.color) ? v.color : typeof v.color === 'string' ? [v.color] : []).flatMap((c) => String(c).split(';')).map((c) => c.trim()).filter(Boolean).map((c) => rgbOf(c, 'color'));
    const background = typeof v.background === 'string' ? rgbOf(v.background, 'background') : undefined;
    const styleImage = s('style-image');
    const styleRef = styleImage === undefined ? undefined : (() => {
      const abs = resolve(styleImage);
      const id = findAssetByPath(ctx, abs);
      return id !== null ? { assetId: id } : { path: abs };
    })();
    const req: GenerateRequest = {
      prompt: v.prompt, model: s('model'), imageSize: s('size'), resolution: s('resolution'), quality: s('quality'), style: s('style'),
      seed: intValue(v.seed, 'seed', -1, 2 ** 31 - 1, 'generate'), loraUrl: s('lora-url'), styleImage: styleRef,
      controls: colors.length || background ? { ...(colors.length ? { colors } : {}), ...(background ? { backgroundColor: background } : {}) } : undefined,
    };
    const clean = Object.fromEntries(Object.entries(req).filter(([, x]) => x !== undefined)) as GenerateRequest;
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
