// What becomes of a job whose run threw: back to the queue (now, or after a backoff), a hold
// for the whole queue, or an end state. A lost answer is 'unknown', never retried blindly.
import { log } from '../core/log';
import { ServiceError } from '../service/errors';
import { CapReached } from './caps';
import { Held } from './holds';
import { JobOutcome, TryLater, type Tuning } from './job-handler';
import { backoff } from './rate';
import type { JobRow } from './store';
import type { HoldReason, JobState } from './types';

/** Why a running job was stopped by the queue or the user (not by its own failure). */
export type StopIntent = 'cancel' | 'pause' | 'requeue';

export type Settlement =
  | { cancelRemote: true }
  | {
      cancelRemote?: false;
      state: JobState;
      patch: Partial<JobRow>;
      hold?: { reason: HoldReason; message: string };
      /** the job's count of rate-limited tries, now */
      rateLimitedTries?: number;
    };

export interface FailedJob {
  id: number;
  intent: StopIntent | undefined;
  /** 429 answers so far (a backoff per try, not counted as attempts) */
  rateLimitedTries: number;
  /** 5xx tries so far */
  attempts: () => number;
}

export function settleFailure(job: FailedJob, e: unknown, tuning: Tuning, now = Date.now()): Settlement {
  if (job.intent === 'cancel') return { cancelRemote: true };
  if (job.intent === 'pause') return { state: 'paused', patch: {} };
  if (job.intent === 'requeue' && !(e instanceof ServiceError && e.kind === 'unknown_outcome')) return { state: 'queued', patch: {} };
  if (e instanceof Held) return { state: 'queued', patch: {} };
  if (e instanceof CapReached) return { state: 'queued', patch: {}, hold: { reason: 'cap', message: e.message } };
  if (e instanceof TryLater) return { state: 'queued', patch: { error_kind: 'busy', error_message: e.message, retry_after: now + e.afterMs } };
  if (e instanceof JobOutcome) {
    if (e.state === 'cancelled') return { state: e.state, patch: { error_kind: null, error_message: null } };
    return { state: e.state, patch: { error_kind: e.errorKind ?? (e.state === 'failed' ? 'task_failed' : 'unknown_outcome'), error_message: e.message } };
  }
  if (!(e instanceof ServiceError)) {
    log.error(`Job ${job.id} failed`, e);
    return { state: 'failed', patch: { error_kind: 'internal', error_message: (e as Error)?.message ?? 'Unexpected problem' } };
  }
  const err = { error_kind: e.kind, error_message: e.message };
  switch (e.kind) {
    case 'rate_limited': {
      const n = job.rateLimitedTries + 1;
      return { state: 'queued', patch: { ...err, retry_after: now + backoff(n, 500, 15_000) }, rateLimitedTries: n };
    }
    case 'quota':
      return { state: 'queued', patch: err, hold: { reason: 'quota', message: 'The service says the free quota and balance are used up. Billed work is paused; top up, then resume.' } };
    case 'credentials':
      return { state: 'queued', patch: err, hold: { reason: 'credentials', message: e.message } };
    case 'offline':
      return { state: 'queued', patch: err, hold: { reason: 'offline', message: e.message } };
    case 'cancelled':
      return { state: 'queued', patch: {} };
    case 'unknown_outcome':
      log.warn(`Job ${job.id} ended unknown: ${e.message}`);
      return { state: 'unknown', patch: err };
    case 'unreadable':
      // Carried out and billed: ends here with the answer as it came, for the user to act on.
      log.warn(`Job ${job.id}: answered, unreadable`);
      return { state: 'unknown', patch: { ...err, result: JSON.stringify({ unreadable: e.details.raw ?? '' }) } };
    case 'service': {
      const attempts = job.attempts() + 1;
      if (attempts >= tuning.maxAttempts) {
        log.warn(`Job ${job.id} failed after ${attempts} tries: ${e.message}`);
        return { state: 'failed', patch: { ...err, attempts } };
      }
      return { state: 'queued', patch: { ...err, attempts, retry_after: now + backoff(attempts, tuning.retryBaseMs, tuning.retryMaxMs) } };
    }
    default:
      log.warn(`Job ${job.id} failed (${e.kind}): ${e.message}`);
      return { state: 'failed', patch: err };
  }
}
