import { changesSince, deviceId } from '../catalogue/change-log';
import type { LibraryCtx } from '../library/context';
import { folderRemovals } from '../library/folders';
import { applyRemoteChanges, type ApplyOutcome } from '../library/remote';
import { StudioClient, StudioError, studioUrl } from './client';
import { readMembership, readSecret, studioKeychain, writeMembership, type LocalVolume, type Membership } from './membership';
import type { ChangeIn, LoginAnswer, PullAnswer, PushAnswer, SharedResult } from './protocol';
import { applyWaiting, prepareChanges, refreshVolumes, toWire, valueToWire } from './volumes';

// A replica's sync with its studio: push this library's own changes (its change log, from the
// first one the server has not acknowledged), then pull the studio's changes of the other
// members and apply them by the conflict rules (library/remote.ts). Both directions are safe
// to repeat after a cut: the server recognises a change it holds by device and sequence, and
// so does this catalogue. How far each direction got is kept in studio.json after every page.

/** Changes per page of a pull or a push; TAGSMITH_STUDIO_PAGE sets another size (tests that cut a copy between pages). */
const PAGE = Math.max(1, Math.min(5000, Number(process.env.TAGSMITH_STUDIO_PAGE) || 1000));

export interface SyncResult {
  pushed: number;
  pulled: number;
  applied: Record<ApplyOutcome, number>;
  /** the studio log's number this replica now holds everything up to */
  upTo: number;
}

export class NotMember extends Error {
  constructor() {
    super('This library is not a member of a studio: join one with tagsmith studio join URL --user NAME.');
    this.name = 'NotMember';
  }
}

/** What the catalogue has that the server has not acknowledged: this device's changes after `pushedPosition`. */
export function pendingChanges(ctx: LibraryCtx, m: Membership): number {
  return ctx.db.prepare('SELECT count(*) FROM change_log WHERE device = ? AND position > ?').pluck().get(deviceId(ctx.db), m.pushedPosition ?? 0) as number;
}

/** A client signed in to the member's studio (signing in again with the stored password when the session ended). */
export async function connect(m: Membership): Promise<{ client: StudioClient; call: <T>(method: 'GET' | 'POST', path: string, body?: unknown, signal?: AbortSignal) => Promise<T> }> {
  const keychain = studioKeychain(m);
  const secret = await readSecret(keychain);
  if (!secret) throw new StudioError('no_password', `The password for studio “${m.studio.name}” is not in this computer's keychain: leave the studio and join it again.`);
  const client = new StudioClient(studioUrl(m.server), m.fingerprint, secret.token);
  const call = async <T>(method: 'GET' | 'POST', path: string, body?: unknown, signal?: AbortSignal): Promise<T> => {
    try {
      return await client.call<T>(method, path, body, {}, signal);
    } catch (err) {
      if (!(err instanceof StudioError) || err.code !== 'signed_out') throw err;
      const again = await client.call<LoginAnswer>('POST', '/v1/login', { user: m.user, password: secret.password, device: m.device });
      client.setToken(again.token);
      await keychain.set(JSON.stringify({ password: secret.password, token: again.token }));
      return client.call<T>(method, path, body, {}, signal);
    }
  };
  return { client, call };
}

/**
 * A sync's or a copy's start: signed in, the studio's volumes refreshed (where each is here: a
 * photo travels named by its volume), and the changes that waited for a volume mapped since
 * applied. `save` keeps progress in studio.json, keeping a volume mapped meanwhile (studio map,
 * Settings › Studio); `current` is the membership as last saved.
 */
async function begin(ctx: LibraryCtx, dataDir: string) {
  let m = readMembership(dataDir);
  if (!m) throw new NotMember();
  const { call } = await connect(m);
  const result: SyncResult = { pushed: 0, pulled: 0, applied: { applied: 0, older: 0, duplicate: 0, not_here: 0, not_yet: 0 }, upTo: m.pulledSeq ?? 0 };
  const save = (patch: Partial<Membership>): void => {
    // What changes beside the sync meanwhile is kept: a volume mapped, the subset grown for a collection.
    const disk = readMembership(dataDir);
    m = { ...m!, volumes: disk?.volumes ?? m!.volumes, subset: disk ? disk.subset : m!.subset, repull: disk?.repull ?? m!.repull, ...patch };
    writeMembership(dataDir, m);
  };
  const vols = await refreshVolumes(m, ctx, call);
  if (vols) {
    save({ volumes: vols });
    const got = await applyWaiting(ctx, m, vols);
    for (const k of Object.keys(got) as ApplyOutcome[]) result.applied[k] += got[k];
  }
  return { call, result, save, vols, current: (): Membership => m! };
}

export async function syncOnce(ctx: LibraryCtx, dataDir: string): Promise<SyncResult> {
  const { call, result, save, vols, current } = await begin(ctx, dataDir);
  const me = deviceId(ctx.db);

  // Push: this device's changes, a page at a time.
  for (;;) {
    const page = changesSince(ctx.db, current().pushedPosition ?? 0, PAGE);
    if (!page.length) break;
    const mine: ChangeIn[] = page
      .filter((c) => c.device === me)
      .map((c) => ({ deviceSeq: c.seq, hlc: c.hlc, kind: c.op, body: { asset: vols ? toWire(c.asset, vols) : c.asset, field: c.field, value: vols ? valueToWire(c.op, c.value, vols) : c.value, undo: c.undo } }));
    if (mine.length) {
      const answer = await call<PushAnswer>('POST', '/v1/changes', { changes: mine });
      result.pushed += answer.applied;
    }
    save({ pushedPosition: page.at(-1)!.position });
  }

  // Results this library paid for that the studio may lack (made while offline, or before it
  // joined): the studio's result cache gets them, so no other member pays for them again. By
  // the cache's row order (a new or replaced answer gets a higher rowid).
  if (current().role !== 'viewer') {
    for (;;) {
      const rows = ctx.db
        .prepare<[number], { id: number; cache_key: string; endpoint: string; content_hash: string; params: string; result: string }>(
          'SELECT rowid AS id, cache_key, endpoint, content_hash, params, result FROM result_cache WHERE rowid > ? ORDER BY rowid LIMIT 500',
        )
        .all(current().resultsSharedRow ?? 0);
      if (!rows.length) break;
      const results: SharedResult[] = rows.map((r) => ({ key: r.cache_key, endpoint: r.endpoint, contentHash: r.content_hash, params: JSON.parse(r.params) as unknown, result: JSON.parse(r.result) as unknown }));
      try {
        await call('POST', '/v1/results', { results });
      } catch (err) {
        // A server older than the shared result cache: nothing to share with.
        if (err instanceof StudioError && err.status === 404) break;
        throw err;
      }
      save({ resultsSharedRow: rows.at(-1)!.id });
    }
  }

  await pullPages(ctx, call, vols, me, result, current, save);
  save({ lastSyncAt: new Date().toISOString() });
  return result;
}

/**
 * Pull the studio's changes of the other members, a page at a time, up to what the server held
 * when the pull started, and apply them; the position is kept in studio.json after every page,
 * so a pull cut off (a dropped connection, a killed process) goes on from there. Reaching the
 * end completes the copy a join began.
 */
async function pullPages(
  ctx: LibraryCtx,
  call: <T>(method: 'GET' | 'POST', path: string, body?: unknown) => Promise<T>,
  vols: LocalVolume[] | null,
  me: string,
  result: SyncResult,
  current: () => Membership,
  save: (patch: Partial<Membership>) => void,
): Promise<void> {
  let target: number | null = null;
  for (;;) {
    const page = await call<PullAnswer>('GET', `/v1/changes?after=${current().pulledSeq ?? 0}&limit=${PAGE}`);
    target ??= page.head;
    const theirs = page.changes.filter((c) => c.deviceId !== me);
    if (theirs.length) {
      const incoming = theirs.map((c) => {
        const body = (c.body ?? {}) as { asset?: { folder: string | null; path: string | null; hash: string | null } | null; field?: string | null; value?: unknown; undo?: boolean };
        return { device: c.deviceId, seq: c.deviceSeq, hlc: c.hlc, op: c.kind, asset: body.asset ?? null, field: body.field ?? null, value: body.value ?? null, undo: body.undo === true, author: c.user };
      });
      // Photos named by volume found here; a scan elsewhere scanned here; a volume not mapped here waits.
      const counts = await applyRemoteChanges(ctx, vols ? await prepareChanges(ctx, incoming, vols) : incoming, current().joinPosition ?? 0);
      // A folder another member removed: what is left of it here is gone before the next page.
      await folderRemovals(ctx);
      for (const k of Object.keys(counts) as ApplyOutcome[]) result.applied[k] += counts[k];
      result.pulled += theirs.length;
    }
    save({ pulledSeq: page.last });
    result.upTo = page.last;
    if (!page.changes.length || page.last >= target) {
      // The subset grew during the pull (a photo put into a chosen collection brought its
      // folder): the log again from the start, so those photos arrive with their earlier edits.
      if (!current().repull) break;
      save({ repull: false, pulledSeq: 0, copying: true });
      target = null;
    }
  }
  if (current().copying) save({ copying: false });
}

/**
 * The copy that joining makes: the studio's catalogue pulled into this library, a page at a
 * time (never the whole catalogue in memory on either side), and resumed from the last page
 * kept when it was cut off. Sends nothing of this library's own (a sync does).
 */
export async function copyStudio(ctx: LibraryCtx, dataDir: string): Promise<SyncResult> {
  const { call, result, save, vols, current } = await begin(ctx, dataDir);
  await pullPages(ctx, call, vols, deviceId(ctx.db), result, current, save);
  return result;
}

/** Whether the server answers this member now (a quick signed-in call). */
export async function reachable(m: Membership): Promise<boolean> {
  try {
    const { call } = await connect(m);
    await call('GET', '/v1/me');
    return true;
  } catch {
    return false;
  }
}

/**
 * Wait until the studio has changes past what this replica holds, up to `seconds` (the
 * server's long poll), or `signal` aborts. Resolves whether anything came or not.
 */
export async function waitForStudio(m: Membership, seconds: number, signal: AbortSignal): Promise<void> {
  const { call } = await connect(m);
  await call<PullAnswer>('GET', `/v1/changes?after=${m.pulledSeq ?? 0}&limit=1&wait=${seconds}`, undefined, signal);
}
