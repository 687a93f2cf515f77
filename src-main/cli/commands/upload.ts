import { createTagsmith } from '../../api/tagsmith';
import { AGENCY_IDS, agencyProfile, isAgencyId } from '../../metadata/agencies';
import { CliError, UsageError } from '../args';
import type { Command } from '../command';
import { targetOf } from '../targets';

// `tagsmith upload --agency ID PATH...|--query Q [--url ftp://|ftps://|sftp://HOST[:PORT]/DIR]
// [--force] [--json]` -> `{uploaded: [path], failed: [{path, reason}]}` (issue 19's contract).
// Each library file, after its metadata write, goes under its own name into DIR, through the
// durable queue (one connection per agency). The agency check runs first: failing photos are
// reported and held back unless --force. Credentials: TAGSMITH_UPLOAD_USER and
// TAGSMITH_UPLOAD_PASSWORD, else the account stored for the agency (`tagsmith agency-login`).
// Running the same command again after an interruption finishes what the last run left.

export const command: Command = {
  name: 'upload',
  usage: 'upload --agency ID PATH...|--query Q [--url ftp://|ftps://|sftp://HOST[:PORT]/DIR] [--force]',
  summary: 'Send photos to a stock agency’s upload server (FTP, FTPS or SFTP), metadata written into the files first.',
  help: [
    `--agency ID          ${AGENCY_IDS.join(', ')}`,
    '--query Q            the assets a search for Q finds, instead of PATHs',
    '--url URL            the server and directory (default: the address stored with the agency’s account)',
    '--force              send photos that fail the agency check, and photos already sent unchanged',
    'Credentials: TAGSMITH_UPLOAD_USER and TAGSMITH_UPLOAD_PASSWORD, else those stored with `tagsmith agency-login`.',
  ],
  options: { agency: { type: 'string' }, query: { type: 'string' }, url: { type: 'string' }, force: { type: 'boolean' } },
  async run(ctx, args, out) {
    const { values, positionals } = args;
    const agency = values.agency as string | undefined;
    if (agency === undefined || !isAgencyId(agency)) throw new UsageError(`upload needs --agency ${AGENCY_IDS.join('|')}.`, 'upload');
    const { ids } = await targetOf(ctx, positionals, values.query, 'upload');
    const { destinationFor, startUpload, uploadOutcome, waitForUpload, DestinationError } = await import('../../upload');
    const { closeMetadataReader } = await import('../../metadata/reader');
    const service = createTagsmith(ctx, { serviceUrl: args.globals.serviceUrl, startQueue: false });
    const name = agencyProfile(agency).name;
    try {
      let url: string;
      try {
        url = await destinationFor(service.agencyAccounts, agency, values.url as string | undefined);
      } catch (e) {
        if (e instanceof DestinationError) throw new CliError(`${e.message} Nothing was sent.`);
        throw e;
      }
      if (!(await service.agencyAccounts.get(agency))) {
        throw new CliError(`No upload account for ${name}: run \`tagsmith agency-login --agency ${agency}\` or set TAGSMITH_UPLOAD_USER and TAGSMITH_UPLOAD_PASSWORD. Nothing was sent.`);
      }
      const { trustedHostKeys } = await import('../../upload/host-keys');
      const pinned = new Set(trustedHostKeys(ctx.db, agency).map((k) => `${k.host}:${k.port}`));
      const started = await startUpload(ctx, service.queue, { ids, agency, url, force: values.force === true });
      service.queue.start();
      await waitForUpload(service.queue, started, (done, total, phase) => out.progress(`Uploading to ${name} ${done}/${total}${phase ? ` (${phase})` : ''}`));
      out.endProgress();
      // Trust on first use, said as OpenSSH says it (on stderr: the --json result keeps its shape).
      for (const k of trustedHostKeys(ctx.db, agency)) {
        if (!pinned.has(`${k.host}:${k.port}`)) out.warn(`Trusted new host key ${k.fingerprint} for ${k.host}:${k.port} (${k.keyType}, ${name}).`);
      }
      const result = uploadOutcome(service.queue, started);
      out.result(result, () =>
        [
          `Sent ${result.uploaded.length} file${result.uploaded.length === 1 ? '' : 's'} to ${name} (${url}); ${result.failed.length} not sent.`,
          ...result.failed.map((f) => `not sent  ${f.path}\n  ${f.reason}`),
        ].join('\n'),
      );
      return 0;
    } finally {
      await service.dispose();
      await closeMetadataReader();
    }
  },
};
