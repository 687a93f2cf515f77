import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src-main/jobs/rate';

// The service counts arrivals over any rolling second. Even when requests are delayed in
// transit by different amounts, the limiter must never let more than `limit` of them land
// within one second of each other.

function maxInAnySecond(stamps: number[]): number {
  const s = [...stamps].sort((a, b) => a - b);
  let best = 0;
  for (let i = 0, j = 0; i < s.length; i++) {
    while (s[i] - s[j] >= 1000) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}

describe('RateLimiter', () => {
  it('keeps every rolling second at or under the limit despite transit jitter', async () => {
    const limit = 10;
    const lim = new RateLimiter(limit);
    const arrivals: number[] = [];
    // Each request reaches the "service" after 0–250 ms and answers 0–50 ms later.
    const request = async () => {
      const release = await lim.acquire();
      const transit = Math.random() * 250;
      await new Promise((r) => setTimeout(r, transit));
      arrivals.push(Date.now());
      await new Promise((r) => setTimeout(r, Math.random() * 50));
      release();
    };
    await Promise.all(Array.from({ length: 40 }, request));
    expect(arrivals).toHaveLength(40);
    expect(maxInAnySecond(arrivals)).toBeLessThanOrEqual(limit);
  });

  it('spaces starts evenly (no bursts) and serves waiters in order', async () => {
    const lim = new RateLimiter(20);
    const starts: number[] = [];
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        const release = await lim.acquire();
        starts.push(Date.now());
        order.push(i);
        release();
      }),
    );
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    for (let i = 1; i < starts.length; i++) expect(starts[i] - starts[i - 1]).toBeGreaterThanOrEqual(49);
  });

  it('gives up a wait when its signal aborts', async () => {
    const lim = new RateLimiter(1);
    const first = await lim.acquire();
    const ac = new AbortController();
    const waiting = lim.acquire(ac.signal);
    ac.abort(new Error('stopped'));
    await expect(waiting).rejects.toThrow('stopped');
    first();
    const again = await lim.acquire();
    again();
  });
});
