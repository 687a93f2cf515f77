// Shapes the queue shows to its callers (Api, UI events, CLI). No secrets anywhere here.
import type { EndpointName } from '../service/endpoints';

export type JobState = 'queued' | 'running' | 'done' | 'failed' | 'cancelled' | 'unknown' | 'paused';
export const TERMINAL_STATES: readonly JobState[] = ['done', 'failed', 'cancelled', 'unknown'];

export interface JobView {
  id: number;
  batchId: string | null;
  kind: string;
  endpoint: EndpointName;
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
export type HoldReason =
  /** 429: free quota and balance used up; billed work waits until resume() */
  | 'quota'
  /** a user cap (calls per day/month or spend) would be crossed; billed work waits */
  | 'cap'
  /** 401: everything waits for new credentials, then resume() */
  | 'credentials'
  /** the service cannot be reached; retried with backoff, resumes by itself */
  | 'offline'
  /** the user paused everything */
  | 'user';

export interface QueueHold {
  reason: HoldReason;
  message: string;
  since: number;
  /** offline: when the next reachability check runs */
  nextCheckAt?: number;
}

export interface LaneView {
  name: string;
  /** requests per second the lane keeps to (with a safety margin) */
  ratePerSecond: number;
  concurrency: number;
  running: number;
  queued: number;
  paused: boolean;
  /** what stops it, if anything: a queue hold or the user's lane pause */
  state: 'idle' | 'running' | 'paused' | HoldReason;
  /** starts in the last second (the current rate) */
  recentStarts: number;
}

export interface QueueStatus {
  hold: QueueHold | null;
  counts: Partial<Record<JobState, number>>;
  lanes: LaneView[];
  usage: UsageSummary;
}

export interface QueueCaps {
  /** billed calls per local day, all models together */
  dailyCalls?: number | null;
  monthlyCalls?: number | null;
  /** the user's price per call per billing key (the interface publishes no prices) */
  pricePerCall?: Record<string, number>;
  /** spend caps in the user's currency, computed from pricePerCall */
  dailySpend?: number | null;
  monthlySpend?: number | null;
}

export interface UsageSummary {
  day: string;
  month: string;
  today: number;
  thisMonth: number;
  byModelToday: Record<string, number>;
  byModelMonth: Record<string, number>;
}

export interface BatchPreview {
  jobs: number;
  /** calls that will be billed (cache hits and duplicates within the batch excluded) */
  billable: number;
  cached: number;
  duplicates: number;
  byModel: Record<string, number>;
  /** from the user's prices; null when a billed model has no price set */
  estimatedCost: number | null;
  remaining: { today: number | null; thisMonth: number | null };
  fitsCaps: boolean;
  message: string;
}

export interface JobSpec {
  kind: string;
  payload: unknown;
}

export interface QueueEvents {
  job: JobView;
  batch: BatchView;
  lane: LaneView;
  status: QueueStatus;
}
