import type { Api, ConnectionVerdict, CredentialInfo, JobView, QueueCaps, QueueTarget, ServiceSettings } from '../../src-preload/contract';
import { CredentialsError, CredentialStore } from '../credentials';
import { JobQueue } from '../jobs/queue';
import { builtinHandlers } from '../jobs/handlers';
import type { QueueTuning } from '../jobs/job-handler';
import type { LibraryCtx } from '../library/context';
import { jobAssets } from '../jobs/job-assets';
import { DEFAULT_BASE_URL, insecureAddressProblem, ServiceClient } from '../service/client';
import { ServiceError } from '../service/errors';
import { attachWorkflows, onWorkflowEvent } from '../workflows';
import { WRITE_KIND, writeMetadataHandler } from '../metadata/write-job';
import { ApiError } from '../core/errors';
import { AgencyAccounts } from '../credentials/agencies';
import { UPLOAD_KIND, uploadHandler } from '../upload';
import { studioAccountOf } from '../studio/account';
import { readMembership } from '../studio/membership';
import { useStudioLeases } from '../studio/file-lease';

// The cloud side of the Api: settings, credentials, the connection check and the job queue.
// The secret goes in through setCredentials and never comes back out of main.

export type ServiceMethods = Pick<
  Api,
  | 'serviceSettings'
  | 'setServiceUrl'
  | 'setCredentials'
  | 'removeCredentials'
  | 'testConnection'
  | 'queueStatus'
  | 'listBatches'
  | 'listJobs'
  | 'controlQueue'
  | 'getCaps'
  | 'setCaps'
>;

export interface ServiceOptions {
  credentials?: CredentialStore;
  /** the agencies' upload accounts (issue 19); the OS keychain by default */
  agencyAccounts?: AgencyAccounts;
  /** Overrides the stored address for this process (the CLI's --service-url). */
  serviceUrl?: string;
  /** Start working through queued jobs (default true). */
  startQueue?: boolean;
  /** the queue's pace and retry timing (tests and the bench; the app uses the defaults) */
  tuning?: QueueTuning;
}

export interface ServiceHost {
  methods: ServiceMethods;
  queue: JobQueue;
  credentials: CredentialStore;
  agencyAccounts: AgencyAccounts;
  client(): ServiceClient;
  dispose(): Promise<void>;
}

const BASE_URL_KEY = 'baseUrl';

/** Each job with the photo it works on (its payload's assetId), for the Activity view. */
function withAssets(ctx: LibraryCtx, jobs: JobView[]): JobView[] {
  const assets = jobAssets(ctx, jobs.map((j) => j.id));
  return jobs.map((j) => ({ ...j, asset: assets.get(j.id) ?? null }));
}

export function createServiceHost(ctx: LibraryCtx, opts: ServiceOptions = {}): ServiceHost {
  const credentials = opts.credentials ?? new CredentialStore();
  const readStoredUrl = (): string | null => {
    const row = ctx.db.prepare<[string], { value: string }>('SELECT value FROM service_settings WHERE key = ?').get(BASE_URL_KEY);
    return row ? (JSON.parse(row.value) as string) : null;
  };
  let client: ServiceClient | null = null;
  const currentClient = (): ServiceClient => {
    if (!client) client = new ServiceClient({ baseUrl: opts.serviceUrl ?? readStoredUrl() ?? DEFAULT_BASE_URL, credentials: credentials.provider });
    return client;
  };
  const replaceClient = (): void => {
    const old = client;
    client = null;
    void old?.close();
  };

  const queue = new JobQueue({ db: ctx.db, client: currentClient, handlers: { ...builtinHandlers, [WRITE_KIND]: writeMetadataHandler(ctx) as never }, tuning: opts.tuning });
  // A member of a studio shares the service account with the studio's other machines: their
  // result cache and the account's pace (a private library: nothing changes).
  const studioAccount = studioAccountOf(ctx.paths.dataDir);
  queue.setSharedAccount(studioAccount);
  // and writes into files take the studio's lease on each file.
  useStudioLeases();
  /** This machine's caps, and for a studio replica whose admin set caps, the studio's that apply instead. */
  const capsView = (): QueueCaps => {
    const own = queue.getCaps();
    const shared = queue.sharedCaps();
    const m = shared ? readMembership(ctx.paths.dataDir) : null;
    if (!shared || !m) return own;
    const n = (v: number | null | undefined): number | null => (typeof v === 'number' ? v : null);
    return { ...own, studio: { name: m.studio.name, admin: m.role === 'admin', dailyCalls: n(shared.dailyCalls), monthlyCalls: n(shared.monthlyCalls), dailySpend: n(shared.dailySpend), monthlySpend: n(shared.monthlySpend) } };
  };
  const agencyAccounts = opts.agencyAccounts ?? new AgencyAccounts();
  queue.registerHandler(UPLOAD_KIND, uploadHandler(ctx, () => queue, agencyAccounts));
  queue.on('job', (job) => ctx.events.emit('queueJob', job));
  queue.on('batch', (batch) => ctx.events.emit('queueBatch', batch));
  queue.on('lane', (lane) => ctx.events.emit('queueLane', lane));
  queue.on('status', (status) => ctx.events.emit('queueStatus', status));
  // Keywording and captioning results land as suggestions when their jobs finish, also
  // for runs resumed after a restart.
  const detach = [
    attachWorkflows(ctx, queue),
    onWorkflowEvent(ctx, 'run', (run) => ctx.events.emit('aiRun', run)),
    onWorkflowEvent(ctx, 'suggestions', (s) => ctx.events.emit('suggestionsChanged', s)),
  ];
  if (opts.startQueue !== false) queue.start();

  const settings = async (): Promise<ServiceSettings> => ({
    baseUrl: currentClient().baseUrl,
    defaultBaseUrl: DEFAULT_BASE_URL,
    credentials: toInfo(await credentials.status()),
  });

  const credentialCall = async (fn: () => Promise<CredentialInfo>): Promise<CredentialInfo> => {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof CredentialsError) throw new ApiError('validation', err.message, err.field ?? undefined);
      throw err;
    }
  };

  const methods: ServiceMethods = {
    serviceSettings: settings,
    async setServiceUrl({ baseUrl }) {
      if (baseUrl !== null) {
        let url: URL;
        try {
          url = new URL(baseUrl);
        } catch {
          throw new ApiError('validation', 'The service address must be a full URL such as https://api.example.com.', 'baseUrl');
        }
        if (url.protocol !== 'https:' && url.protocol !== 'http:') {
          throw new ApiError('validation', 'The service address must start with https://.', 'baseUrl');
        }
        const insecure = insecureAddressProblem(url);
        if (insecure) throw new ApiError('validation', insecure, 'baseUrl');
        ctx.db.prepare('INSERT OR REPLACE INTO service_settings (key, value) VALUES (?, ?)').run(BASE_URL_KEY, JSON.stringify(url.href.replace(/\/+$/, '')));
      } else {
        ctx.db.prepare('DELETE FROM service_settings WHERE key = ?').run(BASE_URL_KEY);
      }
      replaceClient();
      return settings();
    },
    async setCredentials({ clientId, clientSecret }) {
      const info = await credentialCall(async () => toInfo(await credentials.set({ clientId, clientSecret })));
      replaceClient();
      if (queue.status().hold?.reason === 'credentials') queue.resume();
      return info;
    },
    async removeCredentials() {
      const info = await credentialCall(async () => toInfo(await credentials.remove()));
      replaceClient();
      return info;
    },
    async testConnection() {
      return testConnection(currentClient(), credentials);
    },
    async queueStatus() {
      return queue.status();
    },
    async listBatches({ limit }) {
      return queue.listBatches(limit);
    },
    async listJobs(filter) {
      return withAssets(ctx, queue.listJobs(filter));
    },
    async controlQueue({ action, target }) {
      control(queue, action, target);
      return queue.status();
    },
    async getCaps() {
      // A studio member hears the studio's caps now (never throws: offline, the last heard hold).
      await queue.refreshUsage();
      return capsView();
    },
    async setCaps({ caps }) {
      try {
        queue.setCaps(caps);
      } catch (err) {
        if (err instanceof ServiceError) throw new ApiError('validation', err.message, err.details.field);
        throw err;
      }
      return capsView();
    },
  };

  return {
    methods,
    queue,
    credentials,
    agencyAccounts,
    client: currentClient,
    async dispose() {
      detach.forEach((off) => off());
      await queue.stop();
      await studioAccount.flush();
      await client?.close();
    },
  };
}

function toInfo(status: CredentialInfo): CredentialInfo {
  // Copy field by field: nothing else (and certainly no secret) crosses to callers.
  const info: CredentialInfo = { source: status.source, configured: status.configured, clientId: status.clientId, keychain: status.keychain };
  if (status.reason) info.reason = status.reason;
  return info;
}

async function testConnection(client: ServiceClient, credentials: CredentialStore): Promise<ConnectionVerdict> {
  if (!(await credentials.get())) {
    return { ok: false, kind: 'credentials', message: 'No credentials yet. Enter the Client ID and Secret Key from the API Keys page of your account.' };
  }
  try {
    await client.checkConnection({ timeoutMs: 15_000, authCheckToo: true });
    return { ok: true, kind: 'ok', message: `Connected to ${new URL(client.baseUrl).host}. Your credentials work.` };
  } catch (err) {
    if (err instanceof ServiceError) return { ok: false, kind: err.kind, message: err.message };
    return { ok: false, kind: 'internal', message: 'The connection test failed unexpectedly. Try again.' };
  }
}

function control(queue: JobQueue, action: string, target: QueueTarget): void {
  const unknownTarget = (): never => {
    throw new ApiError('not_found', 'That job, batch or lane no longer exists.');
  };
  switch (target.type) {
    case 'job': {
      if (!queue.getJob(target.id)) unknownTarget();
      if (action === 'pause') queue.pauseJob(target.id);
      else if (action === 'resume') queue.resumeJob(target.id);
      else if (action === 'cancel') queue.cancelJob(target.id);
      else queue.retryJob(target.id);
      return;
    }
    case 'batch': {
      if (!queue.getBatch(target.id)) unknownTarget();
      if (action === 'pause') queue.pauseBatch(target.id);
      else if (action === 'resume') queue.resumeBatch(target.id);
      else if (action === 'cancel') queue.cancelBatch(target.id);
      else throw new ApiError('validation', 'Retry works on single jobs: choose the failed job to run again.', 'action');
      return;
    }
    case 'lane': {
      if (!queue.lanes().some((l) => l.name === target.name)) unknownTarget();
      if (action === 'pause') queue.pauseLane(target.name);
      else if (action === 'resume') queue.resumeLane(target.name);
      else if (action === 'cancel') queue.cancelLane(target.name);
      else throw new ApiError('validation', 'Retry works on single jobs.', 'action');
      return;
    }
    case 'all': {
      if (action === 'pause') queue.pauseAll();
      else if (action === 'resume') queue.resume();
      else throw new ApiError('validation', 'Cancel or retry everything is not offered: choose a batch or a lane.', 'action');
    }
  }
}
