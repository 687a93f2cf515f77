import { createTagsmith } from '../../api/tagsmith';
import { ApiError } from '../../core/errors';
import { CliError, UsageError } from '../args';
import type { Command } from '../command';
import { ask, readStdin } from '../prompt';

export const command: Command = {
  name: 'login',
  usage: 'login [--client-id ID] [--secret-stdin]',
  summary:
    'Store the service Client ID and Secret Key in the OS keychain, after checking them with the service. ' +
    'On a terminal the secret is asked for without echo; in scripts pipe it in with --secret-stdin.',
  help: ['--client-id ID     the Client ID (asked for when omitted, on a terminal)', '--secret-stdin     read the Secret Key from standard input'],
  options: { 'client-id': { type: 'string' }, 'secret-stdin': { type: 'boolean' } },
  async run(ctx, { values, positionals, globals }, out) {
    if (positionals.length) throw new UsageError('login takes no arguments; use --client-id.', 'login');
    const service = createTagsmith(ctx, { serviceUrl: globals.serviceUrl, startQueue: false });
    try {
      const clientId =
        (values['client-id'] as string | undefined)?.trim() ||
        (await ask('Client ID: ', { command: 'login', flagHint: 'give --client-id ID and pipe the secret with --secret-stdin.' })).trim();
      const clientSecret = values['secret-stdin']
        ? (await readStdin()).trim()
        : (await ask('Secret Key: ', { secret: true, command: 'login', flagHint: 'pipe the secret with --secret-stdin.' })).trim();
      if (!clientId || !clientSecret) throw new UsageError('both the Client ID and the Secret Key are needed.', 'login');

      let info;
      try {
        info = await service.methods.setCredentials({ clientId, clientSecret });
      } catch (err) {
        if (err instanceof ApiError) throw new CliError(err.message);
        throw err;
      }
      if (info.source === 'session') {
        // A CLI process ends right away: a session-only pair would be gone before it is used.
        throw new CliError(
          `no OS keychain is available, so nothing was stored (${info.reason ?? 'no Secret Service'}). ` +
            'Set TAGSMITH_CLIENT_ID and TAGSMITH_CLIENT_SECRET in the environment instead.',
        );
      }
      const verdict = await service.methods.testConnection();
      if (!verdict.ok && verdict.kind === 'credentials') {
        await service.methods.removeCredentials();
        throw new CliError(`the service rejected these credentials; nothing was stored. ${verdict.message}`);
      }
      out.result({ stored: info.source, clientId: info.clientId, connection: verdict }, () =>
        [`Stored Client ID ${info.clientId} in the OS keychain.`, verdict.ok ? verdict.message : `Could not confirm them with the service yet: ${verdict.message}`].join('\n'),
      );
      return 0;
    } finally {
      await service.dispose();
    }
  },
};
