import { randomUUID } from 'node:crypto';
import { RateLimiter } from '../../jobs/rate';
import { ENDPOINTS, rateKeyOf } from '../../service/endpoints';
import type { ClaimAnswer, SharedResult, StudioCaps, UsageAnswer, UsageRow } from '../protocol';
import type { Session } from './accounts';
import type { StudioStore } from './store';
import { KeyedWaiters } from './waiters';

// One service account for the whole studio (issue 34, point 8), kept by the server:
// - the result cache is the studio's: a picture keyworded on one machine is a cache hit on
//   every other, and while one machine is paying for an answer (it holds the claim) another
//   that wants the same answer waits for it instead of paying again;
// - the account's rate limits hold for all machines together: every call to the service takes
//   a slot from the same limiter here (jobs/rate.ts, the one each machine paces itself with),
//   held until its answer is back.
// - billed counts and caps are the studio's: each machine reports its own count of billed calls
//   per day and billing key (a count, not an increment: a report sent twice, or late after a
//   week offline, counts once), and learns the others' sum and the caps an admin set.
// Claims and slots live in memory: after a restart of the server the machines claim again.
// A machine that dies holding one loses it after CLAIM_MS / SLOT_MS.

const CLAIM_MS = 5 * 60_000;
const SLOT_MS = 10 * 60_000;
export const MAX_KEYS = 1000;

interface Claim {
  device: string;
  user: string;
  expires: number;
}

export class SharedAccountHub {
  private readonly claims = new Map<string, Claim>();
  private readonly waiters = new KeyedWaiters();
  private readonly limiters = new Map<string, RateLimiter>();
  private readonly slots = new Map<string, { release: () => void; timer: NodeJS.Timeout }>();

  constructor(private readonly store: StudioStore) {}

  async lookup(keys: readonly string[]): Promise<SharedResult[]> {
    if (!keys.length) return [];
    const r = await this.store.pool.query<{ cache_key: string; endpoint: string; content_hash: string; params: unknown; result: unknown }>(
      'SELECT cache_key, endpoint, content_hash, params, result FROM results WHERE cache_key = ANY($1)',
      [keys],
    );
    return r.rows.map((x) => ({ key: x.cache_key, endpoint: x.endpoint, contentHash: x.content_hash, params: x.params, result: x.result }));
  }

  /** The studio's result for `key`, or the claim to make it, waiting up to `waitMs` while another device holds it. */
  async claim(s: Session, key: string, waitMs: number, signal: AbortSignal): Promise<ClaimAnswer> {
    const until = Date.now() + waitMs;
    for (;;) {
      const [found] = await this.lookup([key]);
      if (found) return { result: found };
      const held = this.claims.get(key);
      const now = Date.now();
      if (!held || held.expires <= now || held.device === s.deviceId) {
        this.claims.set(key, { device: s.deviceId, user: s.user.name, expires: now + CLAIM_MS });
        return { claimed: true };
      }
      const left = Math.min(until, held.expires) - now;
      if (left <= 0 || signal.aborted) return { busy: { user: held.user } };
      await this.waiters.waitFor(key, left, signal);
    }
  }

  /** Results a machine paid for: kept for the studio (the first one of a key stays), their claims end. */
  async share(s: Session, results: readonly SharedResult[]): Promise<number> {
    let stored = 0;
    for (const r of results) {
      const q = await this.store.pool.query(
        `INSERT INTO results (cache_key, endpoint, content_hash, params, result, user_id, device_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (cache_key) DO NOTHING`,
        [r.key, r.endpoint, r.contentHash, JSON.stringify(r.params ?? {}), JSON.stringify(r.result ?? null), s.user.id, s.deviceId],
      );
      stored += q.rowCount ?? 0;
      this.end(r.key);
    }
    return stored;
  }

  /**
   * This device's billed counts of `month` (its own, whole: the larger of what is kept and what
   * comes wins, so a repeated or late report counts once), and the other machines' counts.
   */
  async usage(s: Session, month: string, rows: readonly UsageRow[]): Promise<UsageAnswer> {
    for (const r of rows) {
      if (!r.day.startsWith(month)) continue;
      await this.store.pool.query(
        `INSERT INTO usage (device_id, billing_key, day, calls, user_id) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (device_id, billing_key, day) DO UPDATE SET calls = GREATEST(usage.calls, excluded.calls)`,
        [s.deviceId, r.billingKey, r.day, r.calls, s.user.id],
      );
    }
    const others = await this.store.pool.query<{ billing_key: string; day: string; calls: string }>(
      `SELECT billing_key, day, sum(calls)::bigint AS calls FROM usage WHERE day LIKE $1 || '%' AND device_id <> $2 GROUP BY billing_key, day`,
      [month, s.deviceId],
    );
    return { others: others.rows.map((r) => ({ billingKey: r.billing_key, day: r.day, calls: Number(r.calls) })), caps: await this.caps() };
  }

  async caps(): Promise<StudioCaps | null> {
    const r = await this.store.pool.query<{ value: StudioCaps | null }>("SELECT value FROM settings WHERE key = 'caps'");
    return r.rows[0]?.value ?? null;
  }

  async setCaps(caps: StudioCaps | null): Promise<void> {
    await this.store.pool.query("INSERT INTO settings (key, value) VALUES ('caps', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value", [JSON.stringify(caps)]);
  }

  /** The claim's holder did not get an answer (failed, cancelled): another device may make it. */
  release(s: Session, key: string): void {
    if (this.claims.get(key)?.device === s.deviceId) this.end(key);
  }

  /**
   * A slot of the account's pace for one call under `rateKey`, waiting up to `waitMs`; null when
   * none came free in that time (the machine asks again).
   */
  async slot(rateKey: string, waitMs: number, signal: AbortSignal): Promise<string | null> {
    const limiter = this.limiterFor(rateKey);
    const ac = new AbortController();
    const stop = () => ac.abort();
    const timer = setTimeout(stop, waitMs);
    signal.addEventListener('abort', stop, { once: true });
    let release: () => void;
    try {
      release = await limiter.acquire(ac.signal);
    } catch {
      return null;
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', stop);
    }
    if (signal.aborted) {
      // The machine left while the slot came free: its call never goes.
      release();
      return null;
    }
    const id = randomUUID();
    this.slots.set(id, { release, timer: setTimeout(() => this.releaseSlot(id), SLOT_MS) });
    return id;
  }

  releaseSlot(id: string): void {
    const s = this.slots.get(id);
    if (!s) return;
    clearTimeout(s.timer);
    this.slots.delete(id);
    s.release();
  }

  close(): void {
    for (const id of [...this.slots.keys()]) this.releaseSlot(id);
    this.waiters.wakeAll();
  }

  /** Whether `rateKey` is one of the service's rate keys (the server paces only those). */
  static knows(rateKey: string): boolean {
    return Object.values(ENDPOINTS).some((e) => rateKeyOf(e) === rateKey);
  }

  private limiterFor(rateKey: string): RateLimiter {
    let l = this.limiters.get(rateKey);
    if (!l) {
      const limit = Math.min(...Object.values(ENDPOINTS).filter((e) => rateKeyOf(e) === rateKey).map((e) => e.ratePerSecond));
      l = new RateLimiter(limit);
      this.limiters.set(rateKey, l);
    }
    return l;
  }

  private end(key: string): void {
    this.claims.delete(key);
    this.waiters.wake(key);
  }
}
