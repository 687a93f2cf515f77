import { CliError, UsageError, type Parsed } from '../args';
import type { Command } from '../command';
import type { LibraryCtx } from '../../library/context';
import type { Output } from '../output';
import { ask, canPrompt, readStdin } from '../prompt';

// `tagsmith studio join URL --user NAME [--password-stdin] [--yes]`, `studio status|sync`,
// `studio map VOLUME PATH` (where a shared disk is on this computer) and
// `studio leave`: make this library a member of a studio, see and sync its state, or make it a
// private library again.
// Joining checks the server's certificate: its SHA-256 is shown and must be confirmed (or
// accepted with --yes after comparing it with what `tagsmith serve` printed); it is then pinned,
// and a server showing another certificate is refused before anything is sent.

async function join(ctx: LibraryCtx, args: Parsed, out: Output): Promise<number> {
  const { probeStudio, joinStudio, joinPreview } = await import('../../studio/join');
  const { readMembership } = await import('../../studio/membership');
  const { studioUrl } = await import('../../studio/client');
  const target = args.positionals[1];
  if (!target) throw new UsageError('studio join needs the server address: studio join https://HOST:PORT --user NAME.', 'studio');
  const user = (args.values.user as string | undefined)?.trim();
  if (!user) throw new UsageError('studio join needs --user NAME (the studio account an admin made for you).', 'studio');
  const folders = foldersOf(args);
  const collections = collectionsOf(args);
  const had = readMembership(ctx.paths.dataDir);
  if (had) {
    // A join whose copy was cut off (a dropped connection, a killed process): the same join again goes on with it.
    const same = had.copying === true && had.user === user && studioUrl(target).origin === had.server;
    if (!same) throw new CliError(`This library is already a member of studio “${had.studio.name}” (${had.server}): run tagsmith studio leave first.`);
    if (args.values['password-stdin']) await readStdin();
    out.warn(`Going on with the copy of studio “${had.studio.name}” that joining began (the password and certificate given then are kept).`);
    const copied = await copyCatalogue(ctx);
    out.result({ server: had.server, studio: had.studio, user: had.user, role: had.role, fingerprint: had.fingerprint, sharedPhotos: 0, copied }, () => `Joined studio “${had.studio.name}” at ${new URL(had.server).host} as ${had.user} (${had.role}): ${copiedLine(copied)} Run tagsmith studio sync to send this library's changes.`);
    return 0;
  }
  const { existsSync } = await import('node:fs');
  const absent = folders?.find((f) => !existsSync(f));
  if (absent) throw new CliError(`The folder “${absent}” does not exist (or cannot be reached): connect the drive, then join again.`);
  const probe = await probeStudio(target);
  const { photos } = joinPreview(ctx);
  const sharing = photos
    ? `${photos} photo${photos === 1 ? '' : 's'} of this library with keywords, captions, ratings, labels or rights fields will be shared with the studio: each field where nobody in the studio has edited it, keywords added to the photo's.`
    : 'This library has no keywords, captions, ratings, labels or rights fields to share yet.';
  if (!args.globals.yes) {
    out.warn(sharing);
    if (!canPrompt()) throw new UsageError(`the studio's certificate is SHA-256 ${probe.fingerprint}: compare it with what tagsmith serve printed, then run again with --yes to trust it.`, 'studio');
    const question = `Studio “${probe.hello.studio.name}” at ${new URL(probe.url).host} shows the certificate\n  SHA-256 ${probe.fingerprint}\nIt must match what tagsmith serve printed on the server. Trust it? [y/N] `;
    const answer = await ask(question, { command: 'studio', flagHint: 'add --yes to trust the certificate shown.' });
    if (!/^y(es)?$/i.test(answer.trim())) throw new CliError('Not joined: the certificate was not trusted.');
  }
  const password = args.values['password-stdin'] ? await readStdin() : await ask(`Password for ${user}: `, { secret: true, command: 'studio', flagHint: 'pipe the password with --password-stdin.' });
  const m = await joinStudio(ctx, { url: probe.url, user, password, fingerprint: probe.fingerprint });
  if (folders || collections) {
    const { setSubset } = await import('../../studio/subset');
    setSubset(ctx.paths.dataDir, { folders: folders ?? [], collections }, ctx);
  }
  const copied = await copyCatalogue(ctx);
  await warnUnknownCollections(ctx, out);
  out.result({ server: m.server, studio: m.studio, user: m.user, role: m.role, fingerprint: m.fingerprint, sharedPhotos: photos, copied }, () => `Joined studio “${m.studio.name}” at ${new URL(m.server).host} as ${m.user} (${m.role}): ${copiedLine(copied)} ${sharing} Run tagsmith studio sync to exchange them now.`);
  return 0;
}

/** `--folders A,B`: the folders a laptop holds of the studio (undefined: not given). */
function foldersOf(args: Parsed): string[] | undefined {
  const v = args.values.folders as string | undefined;
  if (v === undefined) return undefined;
  const list = v.split(',').map((f) => f.trim()).filter(Boolean);
  if (!list.length) throw new UsageError('--folders needs the folders this computer holds, separated by commas: --folders /Volumes/Archive/2024,/Volumes/Archive/Clients.', 'studio');
  return list;
}

/** `--collections A,B`: the collections (by name) whose photos a laptop holds (undefined: not given). */
function collectionsOf(args: Parsed): string[] | undefined {
  const v = args.values.collections as string | undefined;
  if (v === undefined) return undefined;
  const list = v.split(',').map((f) => f.trim()).filter(Boolean);
  if (!list.length) throw new UsageError('--collections needs the names of the collections this computer holds, separated by commas: --collections "Smith wedding,Portfolio".', 'studio');
  return list;
}

/** A collection named at join that the studio's catalogue did not bring: said, so a typo is seen. */
async function warnUnknownCollections(ctx: LibraryCtx, out: Output): Promise<void> {
  const { readMembership } = await import('../../studio/membership');
  const missing = (readMembership(ctx.paths.dataDir)?.subset?.collections ?? []).filter((c) => !c.uid);
  if (missing.length) out.warn(`The studio has no collection ${missing.map((c) => `“${c.name}”`).join(', ')} yet: its photos come here once someone makes it (check the name with tagsmith collection list).`);
}

/** What this computer holds, in words. */
export function subsetWords(s: { folders: string[]; collections?: Array<{ name: string }> } | null): string {
  if (!s) return 'all of the studio';
  const parts = [...s.folders, ...(s.collections ?? []).map((c) => `collection “${c.name}”`)];
  return `only ${parts.join(', ')}`;
}

/** `studio subset --folders A,B --collections C,D | --all`: change what this computer holds; the photos now included are copied here. */
async function subset(ctx: LibraryCtx, args: Parsed, out: Output): Promise<number> {
  const folders = foldersOf(args);
  const collections = collectionsOf(args);
  const chosen = folders !== undefined || collections !== undefined;
  if (chosen === (args.values.all === true)) throw new UsageError('studio subset needs --folders PATH,… and/or --collections NAME,… (what this computer holds), or --all.', 'studio');
  const { setSubset } = await import('../../studio/subset');
  const r = setSubset(ctx.paths.dataDir, chosen ? { folders: folders ?? [], collections } : null, ctx);
  const copied = r.widened ? await copyCatalogue(ctx) : { pulled: 0, applied: 0 };
  const what = subsetWords(r.subset);
  out.result({ subset: r.subset, copied }, () => `This computer now holds ${what}.${r.widened ? ` ${copiedLine(copied)}` : ' Photos already here stay; changes of photos outside it no longer arrive.'}`);
  return 0;
}

/** What the join's copy of the studio's catalogue brought: the studio's changes received and applied here. */
interface Copied {
  pulled: number;
  applied: number;
}

const copiedLine = (c: Copied): string => `${c.pulled} change${c.pulled === 1 ? '' : 's'} of the studio's catalogue copied into this library (${c.applied} applied).`;

/** The copy of the studio's catalogue that joining makes, a page at a time; cut off, the same join again goes on from the last page. */
async function copyCatalogue(ctx: LibraryCtx): Promise<Copied> {
  const { copyStudio } = await import('../../studio/replica');
  const { StudioError } = await import('../../studio/client');
  const { closeMetadataReader } = await import('../../metadata/reader');
  try {
    const r = await copyStudio(ctx, ctx.paths.dataDir);
    return { pulled: r.pulled, applied: r.applied.applied };
  } catch (err) {
    if (err instanceof StudioError) throw new CliError(`${err.message} Joined, but the copy of the studio's catalogue stopped: run the same tagsmith studio join again to go on from where it stopped.`);
    throw err;
  } finally {
    // A scan of a shared volume may run during the copy: exiftool is ended so the CLI exits.
    await closeMetadataReader();
  }
}

async function leave(dataDir: string, out: Output): Promise<number> {
  const { leaveStudio } = await import('../../studio/join');
  const had = await leaveStudio(dataDir);
  out.result({ left: had.studio }, () => `Left studio “${had.studio.name}”: this library is a private library again and keeps everything it holds.`);
  return 0;
}

async function status(ctx: LibraryCtx, out: Output): Promise<number> {
  const m = await import('../../studio/membership');
  const had = m.readMembership(ctx.paths.dataDir);
  if (!had) throw new CliError('This library is not a member of a studio.');
  const { pendingChanges, reachable } = await import('../../studio/replica');
  const { volumeStates } = await import('../../studio/volumes');
  const state = { server: had.server, user: had.user, connected: await reachable(had), pendingChanges: pendingChanges(ctx, had), lastSyncAt: had.lastSyncAt, volumes: volumeStates(had, ctx.paths.dataDir), subset: had.subset ?? null };
  out.result(state, () =>
    [
      `Studio “${had.studio.name}” at ${had.server}, signed in as ${had.user} (${had.role}): ${state.connected ? 'connected' : 'not reachable now'}.`,
      `${state.pendingChanges} change${state.pendingChanges === 1 ? '' : 's'} of this library not yet sent; last sync ${had.lastSyncAt ?? 'never'}.`,
      ...state.volumes.map((v) => `Volume “${v.name}”: ${volumeLine(v)}`),
      `This computer holds ${subsetWords(state.subset)}.`,
    ].join('\n'),
  );
  return 0;
}

function volumeLine(v: { mount: string | null; online: boolean; waiting: number }): string {
  const where = v.mount === null ? 'not mapped on this computer (its photos are offline here): run tagsmith studio map VOLUME PATH' : v.online ? `at ${v.mount}` : `at ${v.mount}, offline (connect the drive)`;
  return v.waiting ? `${where}; ${v.waiting} change${v.waiting === 1 ? '' : 's'} wait for it.` : `${where}.`;
}

async function map(ctx: LibraryCtx, args: Parsed, out: Output): Promise<number> {
  const volume = args.positionals[1];
  const path = args.positionals[2];
  if (!volume || !path) throw new UsageError('studio map needs the volume and the folder where it is on this computer: studio map VOLUME PATH.', 'studio');
  const { mapVolume } = await import('../../studio/volumes');
  const { closeMetadataReader } = await import('../../metadata/reader');
  try {
    const r = await mapVolume(ctx, volume, path);
    out.result(r, () =>
      `Volume “${r.volume.name}” is at ${r.volume.mount} on this computer: ${r.scanned.added} photo${r.scanned.added === 1 ? '' : 's'} added, ${r.scanned.updated} updated${r.scanned.errors ? `, ${r.scanned.errors} could not be read` : ''}; ${r.applied.applied} studio change${r.applied.applied === 1 ? '' : 's'} that waited for it applied.`,
    );
    return 0;
  } finally {
    await closeMetadataReader();
  }
}

async function sync(ctx: LibraryCtx, out: Output): Promise<number> {
  const { syncOnce, NotMember } = await import('../../studio/replica');
  try {
    const { closeMetadataReader } = await import('../../metadata/reader');
    // A scan of a shared volume may run during the sync: exiftool is ended so the CLI exits.
    const r = await syncOnce(ctx, ctx.paths.dataDir).finally(() => closeMetadataReader());
    out.result(r, () => `Sent ${r.pushed} change${r.pushed === 1 ? '' : 's'}; received ${r.pulled} (${r.applied.applied} applied, ${r.applied.older} already outdated by a later edit${r.applied.not_here ? `, ${r.applied.not_here} of photos this library does not hold` : ''}${r.applied.not_yet ? `, ${r.applied.not_yet} of kinds this version does not apply yet` : ''}).`);
    return 0;
  } catch (err) {
    if (err instanceof NotMember) throw new CliError(err.message);
    throw err;
  }
}

const CAP_FLAGS = { dailyCalls: 'daily-calls', monthlyCalls: 'monthly-calls', dailySpend: 'daily-spend', monthlySpend: 'monthly-spend' } as const;

/** `studio caps`: the studio's caps on billed calls and spend; an admin sets them with the flags (the ones left out: none). */
async function caps(ctx: LibraryCtx, args: Parsed, out: Output): Promise<number> {
  const { readMembership } = await import('../../studio/membership');
  const { connect } = await import('../../studio/replica');
  const { localDay } = await import('../../jobs/store');
  const m = readMembership(ctx.paths.dataDir);
  if (!m) throw new CliError('This library is not a member of a studio: a private library’s caps are set in Settings › Service.');
  const given = Object.entries(CAP_FLAGS).filter(([, flag]) => args.values[flag] !== undefined);
  if (given.length && args.values.none) throw new UsageError('--none takes no other caps.', 'studio');
  const body: Record<string, number> = {};
  for (const [k, flag] of given) {
    const n = Number(args.values[flag]);
    if (!(Number.isFinite(n) && n >= 0)) throw new UsageError(`--${flag} needs a number of 0 or more (got “${String(args.values[flag])}”).`, 'studio');
    body[k] = n;
  }
  const { call } = await connect(m);
  const set = given.length > 0 || args.values.none === true;
  const answer = set
    ? await call<{ caps: Record<string, number> | null }>('POST', '/v1/account/caps', { caps: args.values.none ? null : body })
    : await call<{ caps: Record<string, number> | null }>('POST', '/v1/account/usage', { month: localDay().slice(0, 7), rows: [] });
  const c = answer.caps;
  const words = { dailyCalls: 'billed calls a day', monthlyCalls: 'billed calls a month', dailySpend: 'spend a day', monthlySpend: 'spend a month' } as const;
  out.result({ caps: c }, () =>
    c
      ? `Studio “${m.studio.name}” caps, for all its machines together: ${Object.entries(words).filter(([k]) => typeof c[k] === 'number').map(([k, w]) => `${c[k]} ${w}`).join(', ')}.`
      : `Studio “${m.studio.name}” has no caps of its own: each machine’s own caps (Settings › Service) apply.`,
  );
  return 0;
}

export const command: Command = {
  name: 'studio',
  usage: 'studio join URL --user NAME [--folders PATH,…] [--collections NAME,…] [--password-stdin] [--yes] | studio subset [--folders PATH,…] [--collections NAME,…] | --all | studio status | studio sync | studio map VOLUME PATH | studio caps [--daily-calls N] [--monthly-calls N] [--daily-spend X] [--monthly-spend X] [--none] | studio leave',
  summary: 'Make this library a member of a studio library (served by tagsmith serve), sync it, or leave it.',
  help: [
    'join URL --user NAME     sign in to the studio server at URL (https://HOST:PORT) and trust its certificate',
    '--password-stdin          read the password from standard input',
    '--folders PATH,...        hold only these folders of the studio here (a laptop); the rest is not copied',
    '--collections NAME,...    hold only the photos of these collections here (with --folders: those too); each photo\'s folder comes with it',
    'subset --folders PATH,... change the folders (and --collections NAME,...) held here (--all: all of the studio); the photos now included are copied',
    'status                    the server, the user, whether it answers, changes not yet sent, the last sync',
    'sync                      send this library\'s changes and receive the others\' once (returns when this library holds what the server held)',
    'map VOLUME PATH           the studio volume (a shared disk, by name or id) is at PATH on this computer',
    'caps                      the studio\'s caps on billed calls and spend, for all its machines together',
    'caps --daily-calls N ...  set them (an admin; caps left out are none); --none: no studio caps, each machine\'s own apply',
    'leave                     stop being a member; the library keeps what it holds',
  ],
  options: {
    user: { type: 'string' }, 'password-stdin': { type: 'boolean' }, folders: { type: 'string' }, collections: { type: 'string' }, all: { type: 'boolean' },
    'daily-calls': { type: 'string' }, 'monthly-calls': { type: 'string' }, 'daily-spend': { type: 'string' }, 'monthly-spend': { type: 'string' }, none: { type: 'boolean' },
  },
  async run(ctx, args, out) {
    const verb = args.positionals[0];
    const { StudioError } = await import('../../studio/client');
    try {
      if (verb === 'join') return await join(ctx, args, out);
      if (verb === 'status') return await status(ctx, out);
      if (verb === 'sync') return await sync(ctx, out);
      if (verb === 'map') return await map(ctx, args, out);
      if (verb === 'caps') return await caps(ctx, args, out);
      if (verb === 'subset') return await subset(ctx, args, out);
      if (verb === 'leave') return await leave(ctx.paths.dataDir, out);
    } catch (err) {
      if (err instanceof StudioError) throw new CliError(err.message);
      throw err;
    }
    throw new UsageError(`unknown: studio ${verb ?? ''} (join, status, sync, map, subset, caps or leave).`, 'studio');
  },
};
