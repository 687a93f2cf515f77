import { CliError, UsageError, type Parsed } from '../args';
import type { Command } from '../command';
import type { LibraryCtx } from '../../library/context';
import type { LoginAnswer, LoginRequest } from '../../studio/protocol';
import type { Output } from '../output';
import { ask, canPrompt, readStdin } from '../prompt';

// `tagsmith studio join URL --user NAME [--password-stdin] [--yes]` and `studio leave`: make
// this library a member of a studio, or a private library again.
// Joining checks the server's certificate: its SHA-256 is shown and must be confirmed (or
// accepted with --yes after comparing it with what `tagsmith serve` printed); it is then pinned,
// and a server showing another certificate is refused before anything is sent.

async function join(ctx: LibraryCtx, args: Parsed, out: Output): Promise<number> {
  const dataDir = ctx.paths.dataDir;
  const { StudioClient, StudioError, studioUrl } = await import('../../studio/client');
  const m = await import('../../studio/membership');
  const target = args.positionals[1];
  if (!target) throw new UsageError('studio join needs the server address: studio join https://HOST:PORT --user NAME.', 'studio');
  const user = (args.values.user as string | undefined)?.trim();
  if (!user) throw new UsageError('studio join needs --user NAME (the studio account an admin made for you).', 'studio');
  const had = m.readMembership(dataDir);
  if (had) throw new CliError(`This library is already a member of studio “${had.studio.name}” (${had.server}): run tagsmith studio leave first.`);
  try {
    const url = studioUrl(target);
    const probe = await StudioClient.probe(url);
    const question = `Studio “${probe.hello.studio.name}” at ${url.host} shows the certificate\n  SHA-256 ${probe.fingerprint}\nIt must match what tagsmith serve printed on the server. Trust it? [y/N] `;
    if (!args.globals.yes) {
      if (!canPrompt()) throw new UsageError(`the studio's certificate is SHA-256 ${probe.fingerprint}: compare it with what tagsmith serve printed, then run again with --yes to trust it.`, 'studio');
      const answer = await ask(question, { command: 'studio', flagHint: 'add --yes to trust the certificate shown.' });
      if (!/^y(es)?$/i.test(answer.trim())) throw new CliError('Not joined: the certificate was not trusted.');
    }
    const password = args.values['password-stdin'] ? await readStdin() : await ask(`Password for ${user}: `, { secret: true, command: 'studio', flagHint: 'pipe the password with --password-stdin.' });
    const { deviceId, lastPosition } = await import('../../catalogue/change-log');
    const device = m.thisDevice(deviceId(ctx.db));
    const client = new StudioClient(url, probe.fingerprint);
    const answer = await client.call<LoginAnswer>('POST', '/v1/login', { user, password, device } satisfies LoginRequest);
    const keychain = m.studioKeychain({ studio: answer.studio, device });
    try {
      await keychain.set(JSON.stringify({ password, token: answer.token }));
    } catch (err) {
      throw new CliError(`Signed in, but the OS keychain could not keep the password (${err instanceof Error ? err.message.split('\n')[0] : String(err)}); nothing was saved. Unlock the keychain and join again.`);
    }
    const membership = {
      server: url.origin,
      studio: answer.studio,
      fingerprint: probe.fingerprint,
      user: answer.user.name,
      role: answer.user.role,
      device,
      joinedAt: new Date().toISOString(),
      lastSyncAt: null,
      // What this library changed before it joined stays its own; what it changes from now on is shared.
      pushedPosition: lastPosition(ctx.db),
      pulledSeq: 0,
    };
    m.writeMembership(dataDir, membership);
    out.result({ server: membership.server, studio: membership.studio, user: membership.user, role: membership.role, fingerprint: membership.fingerprint }, () => `Joined studio “${answer.studio.name}” at ${url.host} as ${answer.user.name} (${answer.user.role}).`);
    return 0;
  } catch (err) {
    if (err instanceof StudioError) throw new CliError(err.message);
    throw err;
  }
}

async function leave(dataDir: string, out: Output): Promise<number> {
  const m = await import('../../studio/membership');
  const had = m.readMembership(dataDir);
  if (!had) throw new CliError('This library is not a member of a studio.');
  const secret = await m.readSecret(m.studioKeychain(had)).catch(() => null);
  if (secret) {
    // Sign out at the server when it can be reached; leaving works offline too.
    const { StudioClient, studioUrl } = await import('../../studio/client');
    await new StudioClient(studioUrl(had.server), had.fingerprint, secret.token).call('POST', '/v1/logout').catch(() => {});
  }
  await m.studioKeychain(had).delete().catch(() => false);
  m.removeMembership(dataDir);
  out.result({ left: had.studio }, () => `Left studio “${had.studio.name}”: this library is a private library again and keeps everything it holds.`);
  return 0;
}

async function status(ctx: LibraryCtx, out: Output): Promise<number> {
  const m = await import('../../studio/membership');
  const had = m.readMembership(ctx.paths.dataDir);
  if (!had) throw new CliError('This library is not a member of a studio.');
  const { pendingChanges, reachable } = await import('../../studio/replica');
  const state = { server: had.server, user: had.user, connected: await reachable(had), pendingChanges: pendingChanges(ctx, had), lastSyncAt: had.lastSyncAt };
  out.result(state, () =>
    [
      `Studio “${had.studio.name}” at ${had.server}, signed in as ${had.user} (${had.role}): ${state.connected ? 'connected' : 'not reachable now'}.`,
      `${state.pendingChanges} change${state.pendingChanges === 1 ? '' : 's'} of this library not yet sent; last sync ${had.lastSyncAt ?? 'never'}.`,
    ].join('\n'),
  );
  return 0;
}

async function sync(ctx: LibraryCtx, out: Output): Promise<number> {
  const { syncOnce, NotMember } = await import('../../studio/replica');
  const { StudioError } = await import('../../studio/client');
  try {
    const r = await syncOnce(ctx, ctx.paths.dataDir);
    out.result(r, () => `Sent ${r.pushed} change${r.pushed === 1 ? '' : 's'}; received ${r.pulled} (${r.applied.applied} applied, ${r.applied.older} already outdated by a later edit${r.applied.not_here ? `, ${r.applied.not_here} of photos this library does not hold` : ''}${r.applied.not_yet ? `, ${r.applied.not_yet} of kinds this version does not apply yet` : ''}).`);
    return 0;
  } catch (err) {
    if (err instanceof StudioError || err instanceof NotMember) throw new CliError(err.message);
    throw err;
  }
}

export const command: Command = {
  name: 'studio',
  usage: 'studio join URL --user NAME [--password-stdin] [--yes] | studio status | studio sync | studio leave',
  summary: 'Make this library a member of a studio library (served by tagsmith serve), sync it, or leave it.',
  help: [
    'join URL --user NAME     sign in to the studio server at URL (https://HOST:PORT) and trust its certificate',
    '--password-stdin          read the password from standard input',
    'status                    the server, the user, whether it answers, changes not yet sent, the last sync',
    'sync                      send this library\'s changes and receive the others\' once (returns when this library holds what the server held)',
    'leave                     stop being a member; the library keeps what it holds',
  ],
  options: { user: { type: 'string' }, 'password-stdin': { type: 'boolean' } },
  run(ctx, args, out) {
    const verb = args.positionals[0];
    if (verb === 'join') return join(ctx, args, out);
    if (verb === 'status') return status(ctx, out);
    if (verb === 'sync') return sync(ctx, out);
    if (verb === 'leave') return leave(ctx.paths.dataDir, out);
    throw new UsageError(`unknown: studio ${verb ?? ''} (join, status, sync or leave).`, 'studio');
  },
};
