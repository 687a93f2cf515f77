import { createTagsmith, type Tagsmith, type TagsmithOptions } from '../../src-main/api/tagsmith';
import { CredentialStore } from '../../src-main/credentials';
import type { LibraryCtx } from '../../src-main/library/context';

/**
 * The app as Electron main and the CLI start it (createTagsmith: the queue with every job kind
 * and every collector), talking to a service (the simulator) with a key pair given as the
 * environment gives it: no keychain is touched. `startQueue: false` leaves the queue stopped.
 */
export function startTagsmith(
  ctx: LibraryCtx,
  service: { url: string; creds: { clientId: string; clientSecret: string } },
  opts: Omit<TagsmithOptions, 'serviceUrl' | 'credentials'> = {},
): Tagsmith {
  const credentials = new CredentialStore({ env: { TAGSMITH_CLIENT_ID: service.creds.clientId, TAGSMITH_CLIENT_SECRET: service.creds.clientSecret } });
  return createTagsmith(ctx, { ...opts, serviceUrl: service.url, credentials });
}
