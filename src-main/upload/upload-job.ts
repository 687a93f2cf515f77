import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { AgencyId } from '../../src-preload/contract';
import { ApiError } from '../core/errors';
import type { AgencyAccounts } from '../credentials/agencies';
import { JobOutcome, type JobHandler } from '../jobs/job-handler';
import { LOCAL, LOCAL_LANE_PREFIX } from '../jobs/lanes';
import type { JobQueue } from '../jobs/queue';
import { assetPath, getAssetRow } from '../library/assets';
import type { LibraryCtx } from '../library/context';
import { trustedHostKey, trustHostKey } from './host-keys';
import { adoptTransfer, beginTransfer, endTransfer, recordSent, transferOf } from './sent-records';
import { ServiceError } from '../service/errors';
import { agencyProfile, isAgencyId } from '../metadata/agencies';
import { writeAssetMetadata } from '../metadata/writer';
import { DestinationError, destinationText, parseDestination } from './destination';
import { LaneConnections } from './connections';
import { connect, UploadFailure, type HostKeyCheck, type Transport } from './transport';

// One photo to one agency's server as a durable job: its metadata is written into the file and
// verified first (the same write as "Write to files"), then the library file itself goes, under
// its own name, into the destination directory. Before the first byte leaves, the job notes the
// remote file and the local size and time (upload_transfers): after a crash the next run finds
// its own partial file and appends the rest, or sees it complete and sends nothing; a local file
// that changed since starts again from zero. After sending, the remote size must equal the
// local one, and only then is the photo recorded as sent (asset_sent).
// Each agency has its own local lane: one connection per agency, kept open across the lane's
// files (LaneConnections). A refused login, or an SFTP host key other than the one trusted for
// that server, pauses that lane (the agency's queue) and nothing more is sent until the user
// acts and resumes it.

export const UPLOAD_KIND = 'upload';
export const UPLOAD_LANE_PREFIX = `${LOCAL_LANE_PREFIX}upload:`;
export const uploadLane = (agency: AgencyId): string => UPLOAD_LANE_PREFIX + agency;

export interface UploadPayload {
  assetId: number;
  agency: AgencyId;
  /** the destination, ftp|ftps|sftp://HOST:PORT/DIR, never with credentials */
  url: string;
}

export interface UploadResult {
  assetId: number;
  path: string;
  remote: string;
  size: number;
  /** bytes that were already on the server from an interrupted run */
  resumedFrom: number;
  /** the file was found complete on the server (sent before a crash): nothing was sent again */
  alreadyThere: boolean;
}

export function uploadHandler(ctx: LibraryCtx, queue: () => JobQueue, accounts: AgencyAccounts, connections = new LaneConnections()): JobHandler<UploadPayload> {
  return {
    describe(p) {
      if (!p || !Number.isInteger(p.assetId) || p.assetId <= 0) throw new Error('assetId: a photo of the library is required');
      if (typeof p.agency !== 'string' || !isAgencyId(p.agency)) throw new Error('agency: not an agency Tagsmith knows');
      parseDestination(p.url);
      return { endpoint: LOCAL, lane: uploadLane(p.agency), cacheKey: null, billingKey: null };
    },
    async run(job) {
      const { assetId, agency, url } = job.payload;
      const name = agencyProfile(agency).name;
      const dest = parseDestination(url);
      const stopAgency = (message: string): never => {
        queue().pauseLane(uploadLane(agency));
        throw new JobOutcome('failed', `${message} Uploads to ${name} are paused: store the right account in Settings › Agencies (or \`tagsmith agency-login --agency ${agency}\`), then resume them in Activity.`);
      };

      const row = getAssetRow(ctx, assetId);
      if (!row) throw new JobOutcome('failed', 'The photo is no longer in the library.');
      const path = assetPath(row);

      // The file must hold what the library says before it leaves (minimal, verified write).
      let written;
      try {
        written = await writeAssetMetadata(ctx, assetId);
      } catch (err) {
        if (err instanceof ApiError && err.kind === 'not_found') throw new JobOutcome('failed', err.message);
        throw err;
      }
      if (written.status === 'failed') throw new JobOutcome('failed', `Not sent: the metadata could not be written into the file first. ${written.error ?? ''}`.trim());

      const account = await accounts.get(agency);
      if (!account) stopAgency(`No upload account is stored for ${name}.`);

      let local;
      try {
        local = await stat(path);
      } catch (e) {
        throw new JobOutcome('failed', `Not sent: the file cannot be read (${(e as Error).message}).`);
      }
      const fileName = basename(path);
      const remote = destinationText(dest, fileName);
      const mtimeMs = Math.floor(local.mtimeMs);

      const lane = uploadLane(agency);
      const key = LaneConnections.keyOf(url, account!.user, account!.password);
      // SFTP: the host key trusted for this agency's host and port, or none yet (trust on first use).
      const hostKey: HostKeyCheck | undefined =
        dest.protocol === 'sftp'
          ? {
              trusted: trustedHostKey(ctx.db, agency, dest.host, dest.port)?.fingerprint ?? null,
              onFirstUse: (k) => {
                trustHostKey(ctx.db, { agency, host: dest.host, port: dest.port, keyType: k.keyType, fingerprint: k.fingerprint });
              },
            }
          : undefined;
      const open = async (): Promise<{ transport: Transport; reused: boolean }> => {
        try {
          return await connections.get(lane, key, () => connect(dest, account!.user, account!.password, job.signal, { hostKey }));
        } catch (e) {
          if (job.signal.aborted) throw new ServiceError('cancelled', 'The upload was stopped.');
          if (e instanceof UploadFailure && e.kind === 'hostkey') stopForHostKey(e);
          if (e instanceof UploadFailure && e.kind === 'login') stopAgency(e.message);
          if (e instanceof UploadFailure && e.kind === 'refused') throw new JobOutcome('failed', e.message);
          throw new ServiceError('service', e instanceof Error ? e.message : String(e));
        }
      };
      const stopForHostKey = (e: UploadFailure): never => {
        queue().pauseLane(lane);
        const pinned = trustedHostKey(ctx.db, agency, dest.host, dest.port);
        const since = pinned ? ` since ${new Date(pinned.firstSeen).toISOString().slice(0, 10)}` : '';
        throw new JobOutcome(
          'failed',
          `The SFTP server ${dest.host}:${dest.port} presented the host key ${e.presented?.fingerprint} (${e.presented?.keyType}), not the key trusted for ${name} there${since} (${pinned?.fingerprint ?? 'unknown'}). ` +
            `Someone may be intercepting the connection, or the agency changed its server's key. Nothing was sent: no password, no file. ` +
            `Verify the new key with ${name}; if it is theirs, forget the old key in Settings › Agencies (Forget host key) or with \`tagsmith agency-login --agency ${agency} --forget-host-key\`, then upload again. Uploads to ${name} are paused.`,
        );
      };

      // A cancel in Activity aborts the file in flight: the connection is closed under it. Its
      // partial copy stays on the server and its transfer row with the cancelled job; the next
      // upload of the same file adopts that row and resumes the copy (adoptTransfer).
      const onAbort = () => void connections.drop(lane);
      job.signal.addEventListener('abort', onAbort, { once: true });

      const transfer = async (transport: Transport): Promise<UploadResult> => {
        const before = await transport.remoteSize(fileName);
        const mine = transferOf(ctx.db, job.job.id) ?? adoptTransfer(ctx.db, job.job.id, remote);
        const sameFile = mine !== null && mine.remote === remote && mine.size === local.size && mine.mtimeMs === mtimeMs;
        let offset = 0;
        let alreadyThere = false;
        if (sameFile && before === local.size) alreadyThere = true;
        else if (sameFile && before !== null && before < local.size) offset = before;
        if (!sameFile) beginTransfer(ctx.db, job.job.id, { remote, size: local.size, mtimeMs });

        if (!alreadyThere) {
          let shown = -1;
          job.checkpoint({ phase: offset ? `resuming at ${Math.floor((offset / Math.max(1, local.size)) * 100)}%` : 'uploading 0%' });
          await transport.send(path, fileName, {
            offset,
            onProgress: (sent) => {
              const pct = Math.floor((sent / Math.max(1, local.size)) * 100);
              // A checkpoint writes the job row and sends an event: every 5 % is plenty.
              if (pct >= shown + 5 || (pct === 100 && shown !== 100)) {
                shown = pct;
                job.checkpoint({ phase: `uploading ${pct}%` });
              }
            },
          });
        }
        const after = await transport.remoteSize(fileName);
        if (after !== local.size) {
          // Not what was sent: start again from zero next time.
          endTransfer(ctx.db, job.job.id);
          throw new JobOutcome('failed', `The server holds ${after ?? 'no'} bytes of ${fileName} after the upload, not ${local.size}; it was not recorded as sent. Retry it.`);
        }
        ctx.db.transaction(() => {
          recordSent(ctx.db, assetId, { agency, sentAt: Date.now(), remote, size: local.size, contentHash: getAssetRow(ctx, assetId)?.content_hash ?? null });
          endTransfer(ctx.db, job.job.id);
        })();
        ctx.events.emit('libraryChanged', { reason: 'edit', assetIds: [assetId] });
        return { assetId, path, remote, size: local.size, resumedFrom: offset, alreadyThere };
      };

      try {
        let { transport, reused } = await open();
        for (;;) {
          try {
            return await transfer(transport);
          } catch (e) {
            if (e instanceof JobOutcome || e instanceof ServiceError) throw e;
            if (job.signal.aborted) throw new ServiceError('cancelled', 'The upload was stopped.');
            if (e instanceof UploadFailure && e.kind === 'login') stopAgency(e.message);
            if (e instanceof UploadFailure && e.kind === 'refused') throw new JobOutcome('failed', e.message);
            await connections.drop(lane);
            // A connection kept from an earlier file may have been closed by the server while
            // idle: connect once more and go on (the partial file, if any, is resumed).
            if (reused) {
              ({ transport, reused } = await open());
              reused = false;
              continue;
            }
            // The link was lost: tried again after a pause (the partial file is resumed), then given up.
            throw new ServiceError('service', e instanceof Error ? e.message : String(e));
          }
        }
      } finally {
        job.signal.removeEventListener('abort', onAbort);
        // Closed when nothing more is queued for this agency (or its uploads are paused).
        const more = ctx.db.prepare<[string, number], { n: number }>("SELECT count(*) AS n FROM jobs WHERE lane = ? AND state = 'queued' AND id <> ?").get(lane, job.job.id)?.n ?? 0;
        const paused = queue().lanes().find((l) => l.name === lane)?.paused === true;
        if (!more || paused || job.signal.aborted) await connections.drop(lane);
      }
    },
  };
}

export { DestinationError };
