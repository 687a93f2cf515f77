// What a job handler is: it says what a payload calls (describe) and runs it with a context
// that goes through the queue's lanes, holds and caps (call). The queue runs handlers by kind.
import type { ServiceClient } from '../service/client';
import type { EndpointName } from '../service/endpoints';
import type { LOCAL } from './lanes';
import type { JobView } from './types';

export interface QueueTuning {
  /** extra milliseconds added to each 1-second window (clock granularity; jitter is handled by the limiter) */
  marginMs?: number;
  pollMs?: number;
  pollMaxMs?: number;
  /** tries for a job hitting 5xx before it fails */
  maxAttempts?: number;
  retryBaseMs?: number;
  retryMaxMs?: number;
  offlineProbeMs?: number;
  offlineProbeMaxMs?: number;
  /** jobs in flight per lane; serial lanes are always 1 */
  concurrency?: Record<string, number>;
}

export type Tuning = Required<Omit<QueueTuning, 'concurrency'>>;

export const DEFAULT_TUNING: Tuning = {
  marginMs: 20, pollMs: 2000, pollMaxMs: 10_000, maxAttempts: 5, retryBaseMs: 1000, retryMaxMs: 60_000, offlineProbeMs: 2000, offlineProbeMaxMs: 60_000,
};

/** What a handler gets while running one job. */
export interface JobContext<P = unknown> {
  job: JobView;
  payload: P;
  signal: AbortSignal;
  client: ServiceClient;
  tuning: Tuning;
  /**
   * One request to the service through its lane: waits for a rate slot, honours holds and
   * caps, marks a billed request as sent before it leaves (so a crash makes it 'unknown',
   * not re-sent), and counts it as billed when answered — `onBilled` runs in that same
   * transaction (store the task id, fill the cache).
   */
  call<T>(endpoint: EndpointName, fn: (signal: AbortSignal) => Promise<T>, opts?: { billingKey?: string | null; onBilled?: (result: T) => void }): Promise<T>;
  checkpoint(patch: { taskId?: string | null; phase?: string | null }): void;
  cacheGet(key: string): unknown | undefined;
  cachePut(key: string, endpoint: string, contentHash: string, params: unknown, result: unknown): void;
  /** the result came from the cache: no call was made */
  markFromCache(): void;
  sleep(ms: number): Promise<void>;
}

export interface JobDescription {
  /** The service endpoint it calls, or LOCAL for work on this machine only (e.g. writing files). */
  endpoint: EndpointName | typeof LOCAL;
  cacheKey?: string | null;
  billingKey?: string | null;
  lane?: string;
}

export interface JobHandler<P = unknown> {
  /** Check the payload (throws ServiceError 'invalid_input' before anything is queued) and say what it calls. */
  describe(payload: P): JobDescription;
  run(ctx: JobContext<P>): Promise<unknown>;
  /**
   * Cancel the remote task of a job (DELETE /v1/tasks/{id} or the face swap terminate).
   * 'final': the service answered 409, the task can no longer be cancelled (it finishes and is paid).
   */
  cancelRemote?(client: ServiceClient, job: JobView, signal: AbortSignal): Promise<void | 'cancelled' | 'final'>;
}

/**
 * A job that ended without a service error: the task failed or was revoked remotely, or its
 * outcome is open ('unknown': e.g. a task that outlived its budget, which may still run and bill).
 * `errorKind` names the reason (default 'task_failed' for a failure).
 */
export class JobOutcome extends Error {
  constructor(readonly state: 'failed' | 'cancelled' | 'unknown', message: string, readonly errorKind?: string) {
    super(message);
  }
}

/** A job that cannot run just now (a file another machine is writing): queued again, tried after `afterMs`; never a failure. */
export class TryLater extends Error {
  constructor(
    message: string,
    readonly afterMs: number,
  ) {
    super(message);
  }
}
