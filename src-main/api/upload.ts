import type { AgencyAccountView, AgencyId, Api } from '../../src-preload/contract';
import { ApiError } from '../core/errors';
import { AgencyAccountError, type AgencyAccountStatus } from '../credentials/agencies';
import type { LibraryCtx } from '../library/context';
import { forgetHostKeys, trustedHostKeys } from '../upload/host-keys';
import { agencyProfile } from '../metadata/agencies';
import { DestinationError, destinationFor, destinationText, parseDestination, startUpload, uploadLane } from '../upload';
import type { ServiceHost } from './service';

// Issue 19's upload in the app: the agencies' accounts (OS keychain; the password goes in and
// never comes back out), and "upload these photos" as a batch in the durable queue, whose
// progress and cancel are Activity's.

export type UploadMethods = Pick<Api, 'agencyAccount' | 'setAgencyAccount' | 'removeAgencyAccount' | 'forgetAgencyHostKey' | 'uploadToAgency'>;

const hostKeysOf = (ctx: LibraryCtx, agency: AgencyId) =>
  trustedHostKeys(ctx.db, agency).map((k) => ({ host: k.host, port: k.port, keyType: k.keyType, fingerprint: k.fingerprint, firstSeen: k.firstSeen }));

export function uploadMethods(ctx: LibraryCtx, service: ServiceHost): UploadMethods {
  const accounts = service.agencyAccounts;
  const view = (agency: AgencyId, s: AgencyAccountStatus): AgencyAccountView => ({
    agency, configured: s.configured, url: s.url, user: s.user, source: s.source, hostKeys: hostKeysOf(ctx, agency),
  });
  return {
    async agencyAccount({ agency }) {
      return view(agency, await accounts.status(agency));
    },
    async setAgencyAccount({ agency, url, user, password }) {
      let address: string;
      try {
        address = destinationText(parseDestination(url));
      } catch (e) {
        if (e instanceof DestinationError) throw new ApiError('validation', e.message, 'url');
        throw e;
      }
      try {
        const s = await accounts.set(agency, { url: address, user, password });
        // Uploads stopped by a refused login go on with the new account.
        service.queue.resumeLane(uploadLane(agency));
        return view(agency, s);
      } catch (e) {
        if (e instanceof AgencyAccountError) throw new ApiError('validation', e.message, /password/i.test(e.message) ? 'password' : 'user');
        throw e;
      }
    },
    async removeAgencyAccount({ agency }) {
      return view(agency, await accounts.remove(agency));
    },
    async forgetAgencyHostKey({ agency, host, port }) {
      forgetHostKeys(ctx.db, agency, { host, port });
      return view(agency, await accounts.status(agency));
    },
    async uploadToAgency({ ids, agency, force }) {
      let url: string;
      try {
        url = await destinationFor(accounts, agency);
      } catch (e) {
        if (e instanceof DestinationError) throw new ApiError('validation', e.message, 'agency');
        throw e;
      }
      if (!(await accounts.get(agency))) {
        throw new ApiError('validation', `No upload account for ${agencyProfile(agency).name} yet: add it in Settings › Agencies.`, 'agency');
      }
      const started = await startUpload(ctx, service.queue, { ids, agency, url, force });
      return { batchId: started.batchId, url, queued: started.jobs.length, heldBack: started.heldBack, alreadySent: started.alreadySent.length };
    },
  };
}
