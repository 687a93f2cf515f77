import { listBackups } from '../../library/backup';
import { UsageError } from '../args';
import type { Command } from '../command';

const mb = (n: number): string => `${(n / 1024 / 1024).toFixed(1)} MB`;

export const command: Command = {
  name: 'backups',
  usage: 'backups',
  summary: 'List the catalogue backups, newest first (restore one with `tagsmith restore PATH`).',
  help: [],
  options: {},
  run() {
    throw new Error('backups runs without opening the library');
  },
  // Works on a catalogue too damaged to open: it only lists files.
  async runWithoutLibrary(dataDir, { positionals }, out) {
    if (positionals.length) throw new UsageError('backups takes no arguments.', 'backups');
    const list = listBackups(dataDir).map((b) => ({ path: b.path, createdAt: b.createdAt, bytes: b.bytes, reason: b.reason }));
    out.result(list, () =>
      list.length ? list.map((b) => `${b.path}  ${b.createdAt}  ${mb(b.bytes)}  ${b.reason}`).join('\n') : 'No backups yet. Make one with `tagsmith backup`.',
    );
    return 0;
  },
};
