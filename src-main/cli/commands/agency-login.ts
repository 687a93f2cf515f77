import { AgencyAccountError, AgencyAccounts } from '../../credentials/agencies';
import { AGENCY_IDS, agencyProfile, isAgencyId } from '../../metadata/agencies';
import { CliError, UsageError } from '../args';
import type { Command } from '../command';
import { ask, readStdin } from '../prompt';

// `tagsmith agency-login --agency ID [--url URL] [--user U] [--password-stdin] [--remove]`:
// an agency's upload address, user name and password into the OS keychain (as the app's
// Settings › Agencies does). The password is asked for without echo, or read from stdin.
// `--forget-host-key [--url sftp://HOST[:PORT]]`: forget the SFTP host key trusted for the
// agency (of that server, or all of them), after the agency confirmed its server's new key.

export const command: Command = {
  name: 'agency-login',
  usage: 'agency-login --agency ID [--url ftp://|ftps://|sftp://HOST[:PORT]/DIR] [--user NAME] [--password-stdin] | --remove | --forget-host-key [--url sftp://HOST[:PORT]]',
  summary: 'Store a stock agency’s upload server, user name and password in the OS keychain (or remove them).',
  help: [
    `--agency ID          ${AGENCY_IDS.join(', ')}`,
    '--url URL            the upload server and directory',
    '--user NAME          the user name (asked for when omitted, on a terminal)',
    '--password-stdin     read the password from standard input',
    '--remove             forget the stored account',
    '--forget-host-key    forget the SFTP host key trusted for the agency (of the --url server, or all)',
  ],
  options: {
    agency: { type: 'string' }, url: { type: 'string' }, user: { type: 'string' }, 'password-stdin': { type: 'boolean' }, remove: { type: 'boolean' }, 'forget-host-key': { type: 'boolean' },
  },
  async run(ctx, { values, positionals }, out) {
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
    const { parseDestination, destinationText, DestinationError } = await import('../../upload/destination');
    if (values['forget-host-key']) {
      let where: { host: string; port: number } | undefined;
      if (values.url !== undefined) {
        try {
          const d = parseDestination(String(values.url));
          where = { host: d.host, port: d.port };
        } catch (e) {
          if (e instanceof DestinationError) throw new UsageError(e.message, 'agency-login');
          throw e;
        }
      }
      const { forgetHostKeys } = await import('../../upload/host-keys');
      const gone = forgetHostKeys(ctx.db, agency, where);
      out.result({ agency, forgotten: gone.map((k) => ({ host: k.host, port: k.port, keyType: k.keyType, fingerprint: k.fingerprint })) }, () =>
        gone.length
          ? gone.map((k) => `Forgot the host key ${k.fingerprint} of ${k.host}:${k.port} for ${name}; the next connection there trusts the key it is shown.`).join('\n')
          : `No SFTP host key was trusted for ${name}${where ? ` at ${where.host}:${where.port}` : ''}.`,
      );
      return 0;
    }
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
