import { AgencyAccountError, AgencyAccounts } from '../../credentials/agencies';
import { AGENCY_IDS, agencyProfile, isAgencyId } from '../../metadata/agencies';
import { CliError, UsageError } from '../args';
import type { Command } from '../command';
import { ask, readStdin } from '../prompt';

// `tagsmith agency-login --agency ID [--url URL] [--user U] [--password-stdin] [--remove]`:
// an agency's upload address, user name and password into the OS keychain (as the app's
// Settings › Agencies does). The password is asked for without echo, or read from stdin.

export const command: Command = {
  name: 'agency-login',
  usage: 'agency-login --agency ID [--url ftp://|ftps://|sftp://HOST[:PORT]/DIR] [--user NAME] [--password-stdin] | --remove',
  summary: 'Store a stock agency’s upload server, user name and password in the OS keychain (or remove them).',
  help: [
    `--agency ID          ${AGENCY_IDS.join(', ')}`,
    '--url URL            the upload server and directory',
    '--user NAME          the user name (asked for when omitted, on a terminal)',
    '--password-stdin     read the password from standard input',
    '--remove             forget the stored account',
  ],
  options: { agency: { type: 'string' }, url: { type: 'string' }, user: { type: 'string' }, 'password-stdin': { type: 'boolean' }, remove: { type: 'boolean' } },
  async run(_ctx, { values, positionals }, out) {
    if (positionals.length) throw new UsageError('agency-login takes no arguments.', 'agency-login');
    const agency = values.agency as string | undefined;
    if (agency === undefined || !isAgencyId(agency)) throw new UsageError(`agency-login needs --agency ${AGENCY_IDS.join('|')}.`, 'agency-login');
    const accounts = new AgencyAccounts({ env: {} });
    const name = agencyProfile(agency).name;
    if (values.remove) {
      await accounts.remove(agency);
      out.result({ agency, removed: true }, () => `Removed the upload account for ${name}.`);
      return 0;
    }
    const { parseDestination, destinationText, DestinationError } = await import('../../metadata/upload/destination');
    let url: string | null = null;
    if (values.url !== undefined) {
      try {
        url = destinationText(parseDestination(String(values.url)));
      } catch (e) {
        if (e instanceof DestinationError) throw new UsageError(e.message, 'agency-login');
        throw e;
      }
    }
    const user = (values.user as string | undefined)?.trim() || (await ask('User name: ', { command: 'agency-login', flagHint: 'give --user NAME and pipe the password with --password-stdin.' })).trim();
    const password = values['password-stdin']
      ? (await readStdin()).replace(/\r?\n$/, '')
      : await ask('Password: ', { secret: true, command: 'agency-login', flagHint: 'pipe the password with --password-stdin.' });
    try {
      const status = await accounts.set(agency, { url, user, password });
      out.result({ agency, url: status.url, user: status.user, stored: 'keychain' }, () => `Stored the upload account ${status.user} for ${name}${status.url ? ` (${status.url})` : ''} in the OS keychain.`);
      return 0;
    } catch (e) {
      if (e instanceof AgencyAccountError) throw new CliError(e.message);
      throw e;
    }
  },
};
