import { readFile } from 'node:fs/promises';
import { openCreative, waitAndReport } from '../creative';
import { CliError, UsageError } from '../args';
import type { Command } from '../command';

export const command: Command = {
  name: 'speak',
  usage: 'speak --voice V --text T|--file F [--title T] [--no-wait] [--wait-s N]',
  summary: 'Turn text into speech with a voice (see `tagsmith voices`); the audio lands in the library’s Creations folder.',
  help: ['--voice V     the voice name', '--text T      the text to speak', '--file F      read the text from a UTF-8 file', '--title T     a title for the result', '--no-wait     queue it and return'],
  options: { voice: { type: 'string' }, text: { type: 'string' }, file: { type: 'string' }, title: { type: 'string' }, 'no-wait': { type: 'boolean' }, 'wait-s': { type: 'string' } },
  async run(ctx, args, out) {
    const v = args.values;
    if (typeof v.voice !== 'string') throw new UsageError('speak needs --voice V.', 'speak');
    if ((v.text === undefined) === (v.file === undefined)) throw new UsageError('speak needs --text T or --file F (one of them).', 'speak');
    const text = typeof v.file === 'string' ? await readFile(v.file, 'utf8').catch(() => { throw new CliError(`cannot read ${v.file}`); }) : String(v.text);
    const cli = await openCreative(ctx, args, { needsCredentials: true });
    try {
      const req = { voice: v.voice, text, ...(typeof v.title === 'string' ? { title: v.title } : {}) };
      const preview = cli.creative.previewSpeech(req);
      if (preview.billedTasks > 1) out.warn(`tagsmith: ${preview.message}`);
      return await waitAndReport(cli, cli.creative.startSpeech(req), args, out, { billedTasks: preview.billedTasks });
    } finally {
      await cli.close();
    }
  },
};
