import { openLibrary } from '../../library/context';
import { RestoreError, restoreCatalogue } from '../../library/backup';
import { CliError, UsageError } from '../args';
import type { Command } from '../command';
import { ask, canPrompt } from '../prompt';

export const command: Command = {
  name: 'restore',
  usage: 'restore BACKUP [--yes]',
  summary: 'Put a catalogue backup (a path as `tagsmith backups` prints it) in place of the catalogue. The current catalogue is kept as a backup first.',
  help: ['--yes, -y   do not ask for confirmation (required when not on a terminal)'],
  options: {},
  run() {
    throw new Error('restore runs without opening the library');
  },
  // Without opening the library: the catalogue being replaced may be too damaged to open.
  async runWithoutLibrary(dataDir, { positionals, globals }, out) {
    if (positionals.length !== 1) throw new UsageError('restore takes one BACKUP path (see `tagsmith backups`).', 'restore');
    const source = positionals[0];
    if (!globals.yes) {
      if (!canPrompt()) throw new UsageError('not on a terminal: add --yes to replace the catalogue.', 'restore');
      const answer = await ask(`Replace the catalogue in ${dataDir} with ${source}? The current one is kept as a backup. [y/N] `, { command: 'restore', flagHint: 'add --yes.' });
      if (!/^y(es)?$/i.test(answer.trim())) throw new CliError('Cancelled: nothing was changed.');
    }
    let result;
    try {
      result = restoreCatalogue(dataDir, source);
    } catch (err) {
      if (err instanceof RestoreError) throw new CliError(err.message);
      throw err;
    }
    // Opened once so the restored catalogue is upgraded now (if it is older), not by surprise later.
    openLibrary(dataDir).db.close();
    out.result({ restored: result.restored, kept: result.kept }, () =>
      `Restored ${result.restored}.${result.kept ? `\nThe previous catalogue was kept as ${result.kept}.` : ''}`,
    );
    return 0;
  },
};
