import { basename } from 'node:path';
import type { AgencyId } from '../../src-preload/contract';
import type { AgencyAccounts } from '../credentials/agencies';
import { inSteps, oneAtATime } from '../core/steps';
import type { JobQueue } from '../jobs/queue';
import { TERMINAL_STATES } from '../jobs/types';
import { waitForJobs } from '../jobs/wait';
import type { LibraryCtx } from '../library/context';
import { sentRecord } from './sent-records';
import { agencyProfile } from '../metadata/agencies';
import { checkAssets } from '../metadata/agency-check';
import { DestinationError, destinationText, parseDestination } from './destination';
import { UPLOAD_KIND, uploadLane, type UploadPayload, type UploadResult } from './upload-job';

// Sending photos to an agency, shared by the CLI and the app: the agency check first (failing
// photos held back unless forced), then one durable upload job per photo in the agency's lane.
// Jobs an earlier run left unfinished for the same photo, agency and address are taken over,
// not doubled; a photo already sent unchanged to the same place is not sent again (unless forced).

export { DestinationError, parseDestination, destinationText } from './destination';
export { UPLOAD_KIND, UPLOAD_LANE_PREFIX, uploadHandler, uploadLane, type UploadPayload, type UploadResult } from './upload-job';

/** The destination: the one given, else the address stored with the agency's account, else the profile's fixed host. */
export async function destinationFor(accounts: AgencyAccounts, agency: AgencyId, url?: string | null): Promise<string> {
  const profile = agencyProfile(agency);
  const text = url ?? (await accounts.get(agency))?.url ?? (profile.upload.host ? `${profile.upload.protocols[0] ?? 'ftp'}://${profile.upload.host}${profile.upload.port ? `:${profile.upload.port}` : ''}/` : null);
  if (!text) {
    throw new DestinationError(`${profile.name} gives each contributor their own upload server (${profile.upload.note}) Store it with the account in Settings › Agencies, or give --url.`);
  }
  return destinationText(parseDestination(text));
}

export interface UploadStarted {
  agency: AgencyId;
  url: string;
  batchId: string | null;
  /** photos on their way (new jobs, or unfinished ones taken over) */
  jobs: { assetId: number; path: string; jobId: number }[];
  heldBack: { assetId: number; path: string; problems: string[] }[];
  /** sent before, unchanged, to the same place */
  alreadySent: { assetId: number; path: string; sentAt: number }[];
}

/** The earliest unfinished upload job of each photo to this agency and address. */
function unfinishedJobs(ctx: LibraryCtx, agency: AgencyId, url: string): Map<number, number> {
  const rows = ctx.db
    .prepare<[string, string, string], { id: number; assetId: number }>(
      `SELECT id, json_extract(payload, '$.assetId') AS assetId FROM jobs WHERE kind = ? AND state IN ('queued', 'running', 'paused') AND json_valid(payload)
         AND json_extract(payload, '$.agency') = ? AND json_extract(payload, '$.url') = ?
       ORDER BY id`,
    )
    .all(UPLOAD_KIND, agency, url);
  const byAsset = new Map<number, number>();
  for (const r of rows) if (!byAsset.has(r.assetId)) byAsset.set(r.assetId, r.id);
  return byAsset;
}

/** One start at a time per library: two in flight (their steps interleaved) would each miss the other's jobs and send a photo twice. */
const oneStartAtATime = oneAtATime<LibraryCtx>();

/**
 * Check and queue. The agency's lane is resumed (the user asked to send), so a queue stopped
 * by a refused login goes on with the account now stored. The check and the queueing run a
 * chunk of photos at a time: a large selection never holds the main thread.
 */
export function startUpload(ctx: LibraryCtx, queue: JobQueue, args: { ids: readonly number[]; agency: AgencyId; url: string; force?: boolean }): Promise<UploadStarted> {
  return oneStartAtATime(ctx, () => startUploadNow(ctx, queue, args));
}

async function startUploadNow(ctx: LibraryCtx, queue: JobQueue, args: { ids: readonly number[]; agency: AgencyId; url: string; force?: boolean }): Promise<UploadStarted> {
  const { agency, url } = args;
  const force = args.force === true;
  const out: UploadStarted = { agency, url, batchId: null, jobs: [], heldBack: [], alreadySent: [] };
  const toQueue: { assetId: number; path: string }[] = [];
  const checked = await checkAssets(ctx, args.ids, agency);
  const unfinished = unfinishedJobs(ctx, agency, url);
  const hashOf = ctx.db.prepare<[number], { h: string | null }>('SELECT content_hash AS h FROM assets WHERE id = ?');
  await inSteps(checked, (chunk) => {
    for (const c of chunk) {
      if (!c.ok && !force) {
        out.heldBack.push({ assetId: c.assetId, path: c.path, problems: c.problems });
        continue;
      }
      const existing = unfinished.get(c.assetId);
      if (existing !== undefined) {
        out.jobs.push({ assetId: c.assetId, path: c.path, jobId: existing });
        continue;
      }
      const sent = sentRecord(ctx.db, c.assetId, agency);
      const hash = hashOf.get(c.assetId)?.h ?? null;
      if (!force && sent && hash && sent.contentHash === hash && sent.remote === destinationText(parseDestination(url), basename(c.path))) {
        out.alreadySent.push({ assetId: c.assetId, path: c.path, sentAt: sent.sentAt });
        continue;
      }
      toQueue.push({ assetId: c.assetId, path: c.path });
    }
  });
  queue.resumeLane(uploadLane(agency));
  for (const id of out.jobs.map((j) => j.jobId)) {
    if (queue.getJob(id)?.state === 'paused') queue.resumeJob(id);
  }
  if (toQueue.length) {
    const label = `Upload ${toQueue.length} to ${agencyProfile(agency).name}`;
    const payloads: UploadPayload[] = toQueue.map((t) => ({ assetId: t.assetId, agency, url }));
    const { batch, jobIds } = await queue.enqueueBatchInSteps(label, payloads.map((payload) => ({ kind: UPLOAD_KIND, payload })));
    out.batchId = batch.id;
    toQueue.forEach((t, i) => out.jobs.push({ ...t, jobId: jobIds[i] }));
  }
  return out;
}

/** Resolves when every job has ended, or the agency's lane was stopped (a refused login, the user's pause) with nothing running. */
export function waitForUpload(queue: JobQueue, started: UploadStarted, onProgress?: (done: number, total: number, phase: string | null) => void): Promise<void> {
  const total = started.jobs.length;
  return waitForJobs(queue, started.jobs.map((j) => j.jobId), {
    lane: uploadLane(started.agency),
    onCheck: (jobs) => onProgress?.(jobs.filter((j) => TERMINAL_STATES.includes(j.state)).length, total, jobs.find((j) => j.state === 'running')?.phase ?? null),
  });
}

export interface UploadOutcome {
  uploaded: string[];
  failed: { path: string; reason: string }[];
}

/** What became of each photo (the CLI's `{uploaded, failed}`); jobs that did not run are cancelled and said so. */
export function uploadOutcome(queue: JobQueue, started: UploadStarted): UploadOutcome {
  const name = agencyProfile(started.agency).name;
  const out: UploadOutcome = { uploaded: started.alreadySent.map((a) => a.path), failed: [] };
  for (const h of started.heldBack) out.failed.push({ path: h.path, reason: `Held back: it fails ${name}'s rules (fix them, or add --force): ${h.problems.join(' ')}` });
  const stoppedBy = started.jobs.map((j) => queue.getJob(j.jobId)).find((j) => j?.state === 'failed' && /are paused/.test(j.error?.message ?? ''));
  for (const j of started.jobs) {
    const view = queue.getJob(j.jobId);
    if (view?.state === 'done') {
      out.uploaded.push((view.result as UploadResult | null)?.path ?? j.path);
      continue;
    }
    if (view && !TERMINAL_STATES.includes(view.state)) {
      queue.cancelJob(j.jobId);
      out.failed.push({ path: j.path, reason: stoppedBy ? `Not sent: uploads to ${name} stopped (${stoppedBy.error?.message.split('. ')[0]}).` : `Not sent: uploads to ${name} were paused.` });
      continue;
    }
    out.failed.push({ path: j.path, reason: view?.error?.message ?? (view?.state === 'cancelled' ? 'Cancelled.' : 'The upload did not finish.') });
  }
  return out;
}
