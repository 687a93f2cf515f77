// Shapes the queue shows to its callers (Api, UI events, CLI). No secrets anywhere here.

// The shapes the queue shows to callers are part of the Api contract.
export type {
  JobState,
  JobView,
  BatchView,
  HoldReason,
  QueueHold,
  LaneView,
  QueueStatus,
  QueueCaps,
  UsageSummary,
  BatchPreview,
} from '../../src-preload/contract';
import type { JobState, JobView, BatchView, LaneView, QueueStatus } from '../../src-preload/contract';

export const TERMINAL_STATES: readonly JobState[] = ['done', 'failed', 'cancelled', 'unknown'];

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
