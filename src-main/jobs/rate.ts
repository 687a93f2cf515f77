// Smooth pacing under a per-second limit. The service counts requests over any rolling second
// as they ARRIVE and answers 502 above the limit; there are no rate headers, so the client
// paces itself. Evenly spaced starts are not enough on a busy machine or network: a request
// delayed in transit lands next to later ones. So a request also holds its slot until its
// answer is back, plus one second: the service stamped its arrival somewhere between our send
// and our receipt, so any two requests whose stamps could fall within one second of each
// other are counted together here. Then no rolling second at the service ever holds more
// than `limit` arrivals, whatever the jitter, and the pace stays close to the limit
// (limit / (1 s + latency)).

export class RateLimiter {
  /** Minimum gap between two starts (no bursts). */
  readonly spacingMs: number;
  private lastStart = -Infinity;
  private pausedUntil = 0;
  private inflight = 0;
  /** Completion times (ascending) still inside the window. */
  private readonly finished: number[] = [];
  private readonly starts: number[] = [];
  private turn: Promise<unknown> = Promise.resolve();
  private wake: (() => void) | null = null;

  constructor(
    readonly limit: number,
    readonly marginMs = 20,
  ) {
    this.spacingMs = 1000 / limit;
  }

  /**
   * Wait for a slot; resolves with `release`, to call once the answer (or a failure) is back.
   * Waiters are served in order. Rejects with the signal's reason when aborted.
   */
  acquire(signal?: AbortSignal): Promise<() => void> {
    const mine = this.turn.then(() => this.waitForSlot(signal));
    this.turn = mine.catch(() => undefined);
    return mine.then(() => {
      let released = false;
      return () => {
        if (released) return;
        released = true;
        this.inflight--;
        this.finished.push(Date.now());
        this.wake?.();
      };
    });
  }

  /** After a 502: nothing starts for `ms`. */
  penalize(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, Date.now() + ms);
  }

  /** Starts during the last second. */
  recent(now = Date.now()): number {
    while (this.starts.length && now - this.starts[0] > 1000) this.starts.shift();
    return this.starts.length;
  }

  private async waitForSlot(signal?: AbortSignal): Promise<void> {
    const windowMs = 1000 + this.marginMs;
    for (;;) {
      if (signal?.aborted) throw signal.reason ?? new Error('aborted');
      const now = Date.now();
      while (this.finished.length && now - this.finished[0] >= windowMs) this.finished.shift();
      let wait = Math.max(0, this.lastStart + this.spacingMs - now, this.pausedUntil - now);
      if (this.inflight + this.finished.length >= this.limit) {
        // Wait for the oldest completion to leave the window, or for an answer to come back.
        wait = Math.max(wait, this.finished.length ? this.finished[0] + windowMs - now : Infinity);
      }
      if (wait <= 0) {
        this.lastStart = now;
        this.inflight++;
        this.starts.push(now);
        return;
      }
      await this.sleepOrWake(wait, signal);
    }
  }

  private sleepOrWake(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | null = null;
      const finish = (fn: () => void) => {
        if (timer) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.wake = null;
        fn();
      };
      const onAbort = () => finish(() => reject(signal!.reason ?? new Error('aborted')));
      if (Number.isFinite(ms)) timer = setTimeout(() => finish(resolve), Math.ceil(ms));
      this.wake = () => finish(resolve);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason ?? new Error('aborted'));
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason ?? new Error('aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Exponential backoff with full jitter. */
export function backoff(attempt: number, baseMs: number, maxMs: number): number {
  const cap = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(cap / 2 + Math.random() * (cap / 2));
}
