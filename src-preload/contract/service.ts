// The cloud service, credentials and the job queue.
// Types only; contract.ts re-exports every one.

export interface CredentialInfo {
  /** Where the credentials in use come from. */
  source: 'env' | 'keychain' | 'session' | 'none';
  configured: boolean;
  /** The Client ID is an identifier, not a secret: shown so the user sees which pair is set. */
  clientId: string | null;
  keychain: 'available' | 'unavailable' | 'not_used';
  /** Why the keychain is not used, when it is not (shown to the user). */
  reason?: string;
}

export interface ServiceSettings {
  baseUrl: string;
  defaultBaseUrl: string;
  credentials: CredentialInfo;
}

export interface ConnectionVerdict {
  ok: boolean;
  /** 'ok' or the ServiceError kind that stopped it (credentials, offline, quota, service, ...). */
  kind: string;
  message: string;
}

export type JobState = 'queued' | 'running' | 'done' | 'failed' | 'cancelled' | 'unknown' | 'paused';

export interface JobView {
  id: number;
  batchId: string | null;
  kind: string;
  endpoint: string;
  lane: string;
  state: JobState;
  taskId: string | null;
  phase: string | null;
  fromCache: boolean;
  attempts: number;
  retryAfter: number | null;
  error: { kind: string; message: string } | null;
  result: unknown;
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  /** The library photo the job works on (listJobs fills it; null for jobs on no photo, e.g. a creative task). */
  asset?: JobAsset | null;
}

/** Which photo a job is about, as the Activity view names it. */
export interface JobAsset {
  id: number;
  name: string;
  /** Media token of its grid thumbnail, or null. */
  thumb: string | null;
}

export interface BatchView {
  id: string;
  label: string;
  createdAt: number;
  paused: boolean;
  cancelled: boolean;
  total: number;
  cached: number;
  counts: Partial<Record<JobState, number>>;
}

/** Why the whole queue (or its billed part) is held. */
export type HoldReason = 'quota' | 'cap' | 'credentials' | 'offline' | 'user';

export interface QueueHold {
  reason: HoldReason;
  message: string;
  since: number;
  /** offline: when the next reachability check runs */
  nextCheckAt?: number;
}

export interface LaneView {
  name: string;
  /** Requests per second the lane keeps to (with a safety margin). */
  ratePerSecond: number;
  concurrency: number;
  running: number;
  queued: number;
  paused: boolean;
  state: 'idle' | 'running' | 'paused' | HoldReason;
  /** Starts in the last second (the current rate). */
  recentStarts: number;
}

export interface UsageSummary {
  day: string;
  month: string;
  today: number;
  thisMonth: number;
  byModelToday: Record<string, number>;
  byModelMonth: Record<string, number>;
}

export interface QueueStatus {
  hold: QueueHold | null;
  counts: Partial<Record<JobState, number>>;
  lanes: LaneView[];
  usage: UsageSummary;
}

export interface QueueCaps {
  /** Billed calls per local day, all models together. */
  dailyCalls?: number | null;
  monthlyCalls?: number | null;
  /** The user's price per call per billing key (the interface publishes no prices). */
  pricePerCall?: Record<string, number>;
  dailySpend?: number | null;
  monthlySpend?: number | null;
  /**
   * A safety ceiling on requests per second to the service across every endpoint together
   * (null/absent = off, the default). The interface gives its limits per endpoint (30/s, faces
   * 10/s, captioning and video 1/s) and does not say whether they are counted per endpoint or
   * for the account; set this (e.g. 25) to keep all lanes together under 30/s.
   */
  accountRatePerSecond?: number | null;
  /**
   * Answered by getCaps only, for a library that is a studio replica whose admin set caps: the
   * studio's caps, which apply instead of this machine's own call and spend caps (above, kept
   * for when the library leaves the studio). Prices and the speed limit stay this machine's.
   */
  studio?: StudioCapsView;
}

/** The caps a studio's admin set for all its machines together (`tagsmith studio caps`). */
export interface StudioCapsView {
  name: string;
  /** whether this member is an admin of the studio (the only role that can change them) */
  admin: boolean;
  dailyCalls: number | null;
  monthlyCalls: number | null;
  dailySpend: number | null;
  monthlySpend: number | null;
}

export interface BatchPreview {
  jobs: number;
  /** Calls that will be billed (cache hits and duplicates within the batch excluded). */
  billable: number;
  cached: number;
  duplicates: number;
  byModel: Record<string, number>;
  /** From the user's prices; null when a billed model has no price set. */
  estimatedCost: number | null;
  remaining: { today: number | null; thisMonth: number | null };
  fitsCaps: boolean;
  message: string;
}

export type QueueAction = 'pause' | 'resume' | 'cancel' | 'retry';
export type QueueTarget = { type: 'job'; id: number } | { type: 'batch'; id: string } | { type: 'lane'; name: string } | { type: 'all' };

export interface ServiceApi {
  /** Service address and where the credentials come from (never the secret). */
  serviceSettings(): Promise<ServiceSettings>;
  /** Set the service address; null restores the default. */
  setServiceUrl(args: { baseUrl: string | null }): Promise<ServiceSettings>;
  /** Store the key pair in the OS keychain (or for this session when none works). The secret never comes back. */
  setCredentials(args: { clientId: string; clientSecret: string }): Promise<CredentialInfo>;
  removeCredentials(): Promise<CredentialInfo>;
  /** A free call that checks the address and the credentials, with a verdict a person understands. */
  testConnection(): Promise<ConnectionVerdict>;
  queueStatus(): Promise<QueueStatus>;
  listBatches(args: { limit?: number }): Promise<BatchView[]>;
  listJobs(args: { batchId?: string; states?: JobState[]; limit?: number; offset?: number }): Promise<JobView[]>;
  /** Pause, resume, cancel or retry a job, a batch, a lane or everything. */
  controlQueue(args: { action: QueueAction; target: QueueTarget }): Promise<QueueStatus>;
  getCaps(): Promise<QueueCaps>;
  setCaps(args: { caps: QueueCaps }): Promise<QueueCaps>;
}

export interface ServiceEvents {
  queueJob: JobView;
  queueBatch: BatchView;
  queueLane: LaneView;
  queueStatus: QueueStatus;
}
