// Holds: what stops the queue. quota and cap hold billed calls; credentials, offline and the
// user's pause hold everything. While offline the service is probed with backoff, and the
// queue goes on by itself once it answers.
import { log } from '../core/log';
import type { ServiceClient } from '../service/client';
import { ServiceError } from '../service/errors';
import { backoff } from './rate';
import type { HoldReason, QueueHold } from './types';

/** A call refused because the queue is held: its job goes back to the queue. */
export class Held extends Error {}

/** A stronger hold is not replaced by a weaker one. */
const RANK: Record<HoldReason, number> = { credentials: 5, user: 4, quota: 3, cap: 2, offline: 1 };

export interface HoldsDeps {
  client: () => ServiceClient;
  tuning: { offlineProbeMs: number; offlineProbeMaxMs: number };
  stopped: () => boolean;
  /** the hold was set: tell the listeners and see whether the queue is now idle */
  onSet: () => void;
  /** the hold was lifted: tell the listeners */
  onClear: () => void;
  /** the service answers again: run what waited */
  onBack: () => void;
}

export class QueueHolds {
  private hold: QueueHold | null = null;
  private probeTimer: NodeJS.Timeout | null = null;
  private probeAttempt = 0;

  constructor(private readonly deps: HoldsDeps) {}

  get current(): QueueHold | null {
    return this.hold;
  }

  /** Throws Held when a call may not go now (quota and cap hold billed calls only). */
  check(billing: string | null): void {
    if (this.hold && (billing || !['quota', 'cap'].includes(this.hold.reason))) throw new Held(this.hold.message);
  }

  set(reason: HoldReason, message: string): void {
    if (this.hold && RANK[this.hold.reason] > RANK[reason]) return;
    if (this.hold?.reason === reason && this.hold.message === message) return;
    this.hold = { reason, message, since: this.hold?.reason === reason ? this.hold.since : Date.now() };
    if (reason === 'offline') this.scheduleProbe();
    this.deps.onSet();
  }

  clear(): void {
    if (!this.hold) return;
    this.hold = null;
    this.probeAttempt = 0;
    if (this.probeTimer) { clearTimeout(this.probeTimer); this.probeTimer = null; }
    this.deps.onClear();
  }

  /** Stop probing (the queue stops); the hold itself stays. */
  stop(): void {
    if (this.probeTimer) clearTimeout(this.probeTimer);
    this.probeTimer = null;
  }

  private scheduleProbe(): void {
    if (this.probeTimer || this.deps.stopped()) return;
    this.probeAttempt++;
    const wait = backoff(this.probeAttempt, this.deps.tuning.offlineProbeMs, this.deps.tuning.offlineProbeMaxMs);
    if (this.hold) this.hold.nextCheckAt = Date.now() + wait;
    this.probeTimer = setTimeout(() => {
      this.probeTimer = null;
      void this.probe();
    }, wait);
  }

  private async probe(): Promise<void> {
    if (this.hold?.reason !== 'offline' || this.deps.stopped()) return;
    try {
      await this.deps.client().checkConnection({ timeoutMs: 10_000 });
      if (this.hold?.reason === 'offline') {
        log.info('The service answers again; resuming the queue.');
        this.clear();
        this.deps.onBack();
      }
    } catch (e) {
      if (e instanceof ServiceError && e.kind === 'credentials') {
        this.hold = null;
        this.set('credentials', e.message);
      } else if (e instanceof ServiceError && e.kind === 'rate_limited') {
        this.clear();
        this.deps.onBack();
      } else this.scheduleProbe();
    }
  }
}
