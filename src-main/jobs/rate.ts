// Smooth pacing under a per-second limit. The service counts requests over any rolling second
// and answers 502 above it; there are no rate headers, so the client paces itself.
// Starts are spaced evenly by (1000 ms + margin) / limit: then no window of 1000 ms + margin
// ever holds more than `limit` starts, which leaves room for network jitter.

export class RateLimiter {
  private next = 0;
  private readonly starts: number[] = [];
  readonly spacingMs: number;

  constructor(readonly limit: number, readonly marginMs = 100) {
    this.spacingMs = (1000 + marginMs) / limit;
  }

  /** Wait for a start slot. Rejects with the signal's reason when aborted (the slot is not reused). */
  async acquire(signal?: AbortSignal): Promise<void> {
    const now = Date.now();
    const at = Math.max(now, this.next);
    this.next = at + this.spacingMs;
    if (at > now) await sleep(at - now, signal);
    this.starts.push(Date.now());
  }

  /** After a 502: nothing starts for `ms`. */
  penalize(ms: number): void {
    this.next = Math.max(this.next, Date.now() + ms);
  }

  /** Starts during the last second. */
  recent(now = Date.now()): number {
    while (this.starts.length && now - this.starts[0] > 1000) this.starts.shift();
    return this.starts.length;
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
