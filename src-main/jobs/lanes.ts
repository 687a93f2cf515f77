// Lanes: each endpoint's calls (or a one-at-a-time group's) go through a lane with its own
// rate limiter and a cap on jobs in flight. Local work has lanes of its own, unpaced.
import { ENDPOINTS, rateKeyOf, type EndpointName } from '../service/endpoints';
import { RateLimiter } from './rate';
import type { HoldReason, LaneView, QueueHold } from './types';

/**
 * Jobs that never talk to the service (writing metadata into files) share the queue's
 * durability, batches, progress and cancel, but run in lanes of their own: no rate limit,
 * one at a time, and no service hold (quota, credentials, offline) stops them — only the
 * user's "pause all" does.
 */
export const LOCAL = 'local';
export const LOCAL_LANE_PREFIX = 'local:';
export const isLocalLane = (lane: string): boolean => lane.startsWith(LOCAL_LANE_PREFIX);

/** Lane of an endpoint: its one-at-a-time group, else the endpoint itself (the service limits per endpoint). */
export function laneOf(endpoint: EndpointName | typeof LOCAL): string {
  if (endpoint === LOCAL) return LOCAL_LANE_PREFIX + 'work';
  return ENDPOINTS[endpoint].serialGroup ?? endpoint;
}

/** A lane the service runs one task at a time per account (text to speech, lip sync, face swap). */
export const isSerialLane = (lane: string): boolean => Object.values(ENDPOINTS).some((e) => e.serialGroup === lane);

const laneEndpoint = (lane: string): EndpointName =>
  (Object.values(ENDPOINTS).find((e) => e.serialGroup === lane)?.name ?? lane) as EndpointName;

/** quota/cap hold billed work only; credentials/offline/user hold everything. */
const holdBlocks = (reason: HoldReason): boolean =>
  reason === 'credentials' || reason === 'offline' || reason === 'user' || reason === 'quota' || reason === 'cap';

/** The lanes' pacing: one rate limiter per rate key, jobs running per lane, how many may run. */
export class Lanes {
  private readonly limiters = new Map<string, RateLimiter>();
  private readonly running = new Map<string, number>();
  private account: { rate: number; limiter: RateLimiter } | null = null;

  /**
   * The account-wide ceiling (issue 15: off by default): one limiter every service call also
   * passes when the user set one. null when off.
   */
  accountLimiter(ratePerSecond: number | null | undefined): RateLimiter | null {
    if (!ratePerSecond || !(ratePerSecond > 0)) {
      this.account = null;
      return null;
    }
    if (this.account?.rate !== ratePerSecond) this.account = { rate: ratePerSecond, limiter: new RateLimiter(ratePerSecond, this.marginMs) };
    return this.account.limiter;
  }

  constructor(
    private readonly marginMs: number,
    private readonly concurrency: Record<string, number> | undefined,
  ) {}

  limiter(endpoint: EndpointName): RateLimiter {
    const e = ENDPOINTS[endpoint];
    const key = rateKeyOf(e);
    let l = this.limiters.get(key);
    if (!l) {
      l = new RateLimiter(e.ratePerSecond, this.marginMs);
      this.limiters.set(key, l);
    }
    return l;
  }

  concurrencyOf(lane: string): number {
    if (isLocalLane(lane)) return 1;
    const e = ENDPOINTS[laneEndpoint(lane)];
    if (e?.serialGroup) return 1;
    const c = this.concurrency?.[lane];
    if (c) return c;
    return Math.max(1, Math.min(6, Math.ceil((e?.ratePerSecond ?? 30) / 5)));
  }

  runningIn(lane: string): number {
    return this.running.get(lane) ?? 0;
  }

  started(lane: string): void {
    this.running.set(lane, (this.running.get(lane) ?? 0) + 1);
  }

  ended(lane: string): void {
    this.running.set(lane, Math.max(0, (this.running.get(lane) ?? 1) - 1));
  }

  /** Every billed lane, and every lane with queued or running work, as the UI shows it. */
  view(queued: Map<string, number>, paused: Set<string>, hold: QueueHold | null): LaneView[] {
    const names = new Set<string>([...Object.values(ENDPOINTS).filter((e) => e.billing).map((e) => e.serialGroup ?? e.name), ...queued.keys(), ...this.running.keys()]);
    return [...names].map((name) => {
      const running = this.running.get(name) ?? 0;
      if (isLocalLane(name)) {
        const held = hold?.reason === 'user';
        const state: LaneView['state'] = paused.has(name) ? 'paused' : held ? 'user' : running ? 'running' : 'idle';
        return { name, ratePerSecond: 0, concurrency: 1, running, queued: queued.get(name) ?? 0, paused: paused.has(name), state, recentStarts: 0 };
      }
      const e = ENDPOINTS[laneEndpoint(name)] ?? ENDPOINTS.keywords;
      const state: LaneView['state'] = paused.has(name) ? 'paused' : hold && holdBlocks(hold.reason) ? hold.reason : running ? 'running' : 'idle';
      const lim = this.limiter(e.name);
      return { name, ratePerSecond: Math.round((1000 / lim.spacingMs) * 10) / 10, concurrency: this.concurrencyOf(name), running, queued: queued.get(name) ?? 0, paused: paused.has(name), state, recentStarts: lim.recent() };
    });
  }
}
