import { deviceId, lastPosition } from '../catalogue/change-log';
import type { LibraryCtx } from '../library/context';
import { seedCatalogue } from '../library/remote';
import { closeStudioConnections, StudioClient, StudioError, studioUrl, type Probe } from './client';
import { readMembership, readSecret, removeMembership, studioKeychain, thisDevice, writeMembership, type Membership } from './membership';
import type { LoginAnswer, LoginRequest } from './protocol';

// Joining and leaving a studio, for the CLI (`tagsmith studio join|leave`) and the app
// (Settings › Studio) alike. Joining is two steps so a person can compare the certificate's
// fingerprint before anything secret is sent: probe (the fingerprint and the studio's name),
// then join with the fingerprint the person confirmed.

export async function probeStudio(url: string): Promise<Probe & { url: string }> {
  const u = studioUrl(url);
  return { ...(await StudioClient.probe(u)), url: u.origin };
}

export async function joinStudio(ctx: LibraryCtx, req: { url: string; user: string; password: string; fingerprint: string }): Promise<Membership> {
  const dataDir = ctx.paths.dataDir;
  const had = readMembership(dataDir);
  if (had) throw new StudioError('member', `This library is already a member of studio “${had.studio.name}” (${had.server}): leave it first.`);
  const url = studioUrl(req.url);
  const device = thisDevice(deviceId(ctx.db));
  // Pinned to the fingerprint the person confirmed: a server showing another one now is refused before the password goes.
  const client = new StudioClient(url, req.fingerprint);
  const answer = await client.call<LoginAnswer>('POST', '/v1/login', { user: req.user, password: req.password, device } satisfies LoginRequest);
  try {
    await studioKeychain({ studio: answer.studio, device }).set(JSON.stringify({ password: req.password, token: answer.token }));
  } catch (err) {
    throw new StudioError('keychain', `Signed in, but the computer's keychain could not keep the password (${err instanceof Error ? err.message.split('\n')[0] : String(err)}); nothing was saved. Unlock the keychain and join again.`);
  }
  const m: Membership = {
    server: url.origin,
    studio: answer.studio,
    fingerprint: req.fingerprint,
    user: answer.user.name,
    role: answer.user.role,
    device,
    joinedAt: new Date().toISOString(),
    lastSyncAt: null,
    joinPosition: lastPosition(ctx.db),
    pushedPosition: lastPosition(ctx.db),
    pulledSeq: 0,
    copying: true,
  };
  writeMembership(dataDir, m);
  // What the library holds goes to the studio as its own changes, stamped before any real edit:
  // a field nobody in the studio edited gets this library's value, a keyword joins the photo's.
  seedCatalogue(ctx);
  return m;
}

/** What joining will share: the photos with keywords, captions, ratings, labels or rights fields. */
export function joinPreview(ctx: LibraryCtx): { photos: number } {
  return { photos: seedCatalogue(ctx, true).photos };
}

/** Leave the studio: sign out at the server when it answers, forget the password; the library keeps what it holds. */
export async function leaveStudio(dataDir: string): Promise<Membership> {
  const had = readMembership(dataDir);
  if (!had) throw new StudioError('not_member', 'This library is not a member of a studio.');
  const keychain = studioKeychain(had);
  const secret = await readSecret(keychain).catch(() => null);
  if (secret) await new StudioClient(studioUrl(had.server), had.fingerprint, secret.token).call('POST', '/v1/logout').catch(() => {});
  closeStudioConnections();
  await keychain.delete().catch(() => false);
  removeMembership(dataDir);
  return had;
}
