import { createTagsmith } from '../../api/tagsmith';
import { ApiError } from '../../core/errors';
import { CliError, UsageError } from '../args';
import type { Command } from '../command';

export const command: Command = {
  name: 'logout',
  usage: 'logout',
  summary: 'Remove the stored service key pair from the OS keychain.',
  help: [],
  options: {},
  async run(ctx, { positionals }, out) {
    if (positionals.length) throw new UsageError('logout takes no arguments.', 'logout');
    const service = createTagsmith(ctx, { startQueue: false });
    try {
      const info = await service.methods.removeCredentials();
      out.result({ removed: true, credentials: info }, () => 'The stored Client ID and Secret Key were removed.');
      return 0;
    } catch (err) {
      if (err instanceof ApiError) throw new CliError(err.message);
      throw err;
    } finally {
      await service.dispose();
    }
  },
};
