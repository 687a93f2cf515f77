// Sign-in attempts are rate-limited per user name (after five failures in a quarter of an
// hour) and per address (after twenty: a studio's machines may share one address behind a
// router): each further attempt then waits, 30 s at first and twice as long each time, up to 15 minutes.
// Kept in memory: a restart forgets it, which only makes a guesser start again at five.

const FREE_FAILURES = { user: 5, address: 20 } as const;
const WINDOW_MS = 15 * 60_000;
const MAX_WAIT_MS = 15 * 60_000;

interface Record {
  failures: number[];
  blockedUntil: number;
}

export class LoginLimiter {
  private readonly byKey = new Map<string, Record>();

  constructor(private readonly now: () => number = Date.now) {}

  private keys(user: string, address: string): Array<[string, number]> {
    return [[`u:${user.trim().toLowerCase()}`, FREE_FAILURES.user], [`a:${address}`, FREE_FAILURES.address]];
  }

  /** Milliseconds the caller must wait before trying again, or 0. */
  waitFor(user: string, address: string): number {
    const t = this.now();
    return Math.max(0, ...this.keys(user, address).map(([k]) => (this.byKey.get(k)?.blockedUntil ?? 0) - t));
  }

  failed(user: string, address: string): void {
    const t = this.now();
    for (const [k, free] of this.keys(user, address)) {
      const r = this.byKey.get(k) ?? { failures: [], blockedUntil: 0 };
      r.failures = [...r.failures.filter((f) => t - f < WINDOW_MS), t];
      const over = r.failures.length - free;
      if (over >= 0) r.blockedUntil = t + Math.min(MAX_WAIT_MS, 30_000 * 2 ** over);
      this.byKey.set(k, r);
    }
  }

  succeeded(user: string): void {
    this.byKey.delete(`u:${user.trim().toLowerCase()}`);
  }
}
