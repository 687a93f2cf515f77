import { listVoices } from '../../creative';
import { openCreative } from '../creative';
import { UsageError } from '../args';
import type { Command } from '../command';

export const command: Command = {
  name: 'voices',
  usage: 'voices [--lang L] [--gender G] [--age A] [--search TEXT] [--refresh]',
  summary: 'List the text-to-speech voices (free; cached in the library, --refresh fetches them again).',
  help: ['--lang L       only voices of this language code (e.g. eng, spa)', '--gender G     male or female', '--age A        child, young, adult or old', '--search TEXT  match names and attributes', '--refresh      fetch the list again from the service'],
  options: { lang: { type: 'string' }, gender: { type: 'string' }, age: { type: 'string' }, search: { type: 'string' }, refresh: { type: 'boolean' } },
  async run(ctx, args, out) {
    if (args.positionals.length) throw new UsageError('voices takes no arguments.', 'voices');
    const cli = await openCreative(ctx, args);
    try {
      const v = args.values;
      const list = await listVoices(ctx, () => cli.service.client(), {
        lang: v.lang as string | undefined, gender: v.gender as string | undefined, age: v.age as string | undefined, text: v.search as string | undefined, refresh: v.refresh === true,
      });
      out.result(list, () => list.voices.map((x) => `${x.apiName.padEnd(14)} ${x.language}  ${x.gender.padEnd(6)} ${x.age}`).join('\n') || 'No voice matches.');
      return 0;
    } finally {
      await cli.close();
    }
  },
};
