// Rate limits, quota/balance metering and fault injection: per account, per endpoint.

/** Requests per rolling second per account; endpoints not listed get DEFAULT_RATE. */
export const RATE_LIMITS: Record<string, number> = {
  '/v1/faces': 10,
  '/v1/image_captioning': 1,
  '/v1/video_keywords': 1,
};
export const DEFAULT_RATE = 30;

export class RateLimiter {
  private hits = new Map<string, number[]>();

  /** true when the request may pass; only admitted requests occupy the window. */
  admit(clientId: string, endpoint: string, now = Date.now()): boolean {
    const limit = RATE_LIMITS[endpoint] ?? DEFAULT_RATE;
    const key = `${clientId}\n${endpoint}`;
    const list = (this.hits.get(key) ?? []).filter((t) => now - t < 1000);
    if (list.length >= limit) {
      this.hits.set(key, list);
      return false;
    }
    list.push(now);
    this.hits.set(key, list);
    return true;
  }
}

export type FreeQuota = Record<string, number> | number;

export interface QuotaSetting {
  /** per-model free calls (a number applies to every model) */
  freeQuota?: FreeQuota;
  /** billed calls allowed after the free quota (Infinity allowed) */
  balance?: number;
}

interface AccountQuota {
  metered: boolean;
  free: FreeQuota;
  used: Map<string, number>;
  balance: number;
}

export class Meter {
  private accounts = new Map<string, AccountQuota>();
  private billedCounts = new Map<string, Map<string, number>>();

  constructor(clientIds: string[], setting: QuotaSetting) {
    for (const id of clientIds) this.accounts.set(id, Meter.fresh(setting));
  }

  private static fresh(s: QuotaSetting | null): AccountQuota {
    const metered = !!s && (s.freeQuota !== undefined || s.balance !== undefined);
    return { metered, free: s?.freeQuota ?? 0, used: new Map(), balance: s?.balance ?? (metered ? 0 : Infinity) };
  }

  /** Replace the quota of one account (or all); `null` makes usage unlimited again. */
  set(setting: QuotaSetting | null, clientId?: string): void {
    for (const id of clientId ? [clientId] : [...this.accounts.keys()]) {
      const prev = this.accounts.get(id);
      const next = Meter.fresh(setting);
      if (prev && setting && setting.freeQuota === undefined) { next.free = prev.free; next.used = prev.used; }
      this.accounts.set(id, next);
    }
  }

  /** Whether one more billed call of `model` fits. */
  canCharge(clientId: string, model: string): boolean {
    const a = this.accounts.get(clientId);
    if (!a || !a.metered) return true;
    const free = typeof a.free === 'number' ? a.free : a.free[model] ?? 0;
    return (a.used.get(model) ?? 0) < free || a.balance > 0;
  }

  /** Count one billed call; callers check canCharge first. */
  charge(clientId: string, model: string): void {
    const a = this.accounts.get(clientId);
    if (a?.metered) {
      const free = typeof a.free === 'number' ? a.free : a.free[model] ?? 0;
      const used = a.used.get(model) ?? 0;
      if (used < free) a.used.set(model, used + 1);
      else a.balance -= 1;
    }
    const m = this.billedCounts.get(clientId) ?? new Map<string, number>();
    m.set(model, (m.get(model) ?? 0) + 1);
    this.billedCounts.set(clientId, m);
  }

  billed(): Record<string, Record<string, number>> {
    const out: Record<string, Record<string, number>> = {};
    for (const [id, m] of this.billedCounts) out[id] = Object.fromEntries(m);
    return out;
  }
}

export type FaultKind =
  | 'latency' | 'hold' | 'drop' | 'dropAfter' | '5xx' | '502' | 'quota' | 'taskFailure' | 'slowTask'
  /** `{status: "error", message}` with `status` (default 400): a client error the service states in words */
  | 'error'
  /** 422 with FastAPI's `{detail: [{loc: ['body', field], msg: message}]}`: the service refusing one field of the request */
  | 'fieldError'
  /** quota exhaustion answered as 200 `{status: "error", message}` (the old free tier) */
  | 'quota200'
  /** status answers report `message` (default "PAUSED") as the task status: a state outside the interface's five */
  | 'oddStatus'
  /**
   * The work is done (and billed) but the success answer is `message` as it stands (default a
   * cut-off JSON): "{task_id}" in it becomes the created task's id (an answer in a shape of its own)
   */
  | 'garbled'
  /** a cancel (DELETE /v1/tasks/{id}, the swap terminate) answers 409 while the task runs on to its end */
  | 'cancelConflict'
  /** status answers of a finished task give its result as an object `{url}` (message 'object') or as a Data URI of the file (message 'data') */
  | 'resultShape';

export interface FaultSpec {
  /** exact pathname or a pattern; absent = every path */
  path?: string | RegExp;
  kind: FaultKind;
  /** how many matching requests (or created tasks) it applies to; absent = until cleared */
  count?: number;
  /** latency / slowTask: extra milliseconds */
  ms?: number;
  /** 5xx: the status to answer (default 500); error: default 400 */
  status?: number;
  /** let this many matching requests through untouched before the fault applies */
  skip?: number;
  /** error / quota200: the message of the answer; oddStatus: the status reported */
  message?: string;
  /** fieldError: the request field the answer names (default "prompt") */
  field?: string;
}

interface ActiveFault extends FaultSpec {
  remaining: number;
  skipping: number;
}

export class Faults {
  private list: ActiveFault[] = [];

  inject(spec: FaultSpec): void {
    this.list.push({ ...spec, remaining: spec.count ?? Infinity, skipping: spec.skip ?? 0 });
  }

  clear(): void {
    this.list = [];
  }

  /** Take the first matching fault of these kinds, consuming one use. */
  take(path: string, kinds: FaultKind[]): ActiveFault | undefined {
    const f = this.list.find((x) => kinds.includes(x.kind) && x.remaining > 0 && matches(x.path, path));
    if (!f) return undefined;
    if (f.skipping > 0) {
      f.skipping -= 1;
      return undefined;
    }
    f.remaining -= 1;
    return f;
  }
}

/**
 * Requests held by a `hold` fault: they wait, on the wire, until the test releases them. A
 * test that needs requests in flight at a moment of its choosing waits on `held()` instead of
 * betting on a latency being long enough for a busy machine.
 */
export class Gate {
  private waiting: { path: string; open(): void }[] = [];
  private readonly listeners = new Set<() => void>();

  hold(path: string): Promise<void> {
    return new Promise((open) => {
      this.waiting.push({ path, open });
      this.listeners.forEach((l) => l());
    });
  }

  /** How many requests (on this path, or any) are held now. */
  count(path?: string | RegExp): number {
    return this.waiting.filter((w) => matches(path, w.path)).length;
  }

  /** Let the held requests (on this path, or all) go on. */
  release(path?: string | RegExp): number {
    const go = this.waiting.filter((w) => matches(path, w.path));
    this.waiting = this.waiting.filter((w) => !matches(path, w.path));
    go.forEach((w) => w.open());
    return go.length;
  }

  /** Resolves once at least `n` requests (on this path, or any) are held. */
  async until(n: number, path?: string | RegExp): Promise<void> {
    if (this.count(path) >= n) return;
    await new Promise<void>((resolve) => {
      const check = () => {
        if (this.count(path) < n) return;
        this.listeners.delete(check);
        resolve();
      };
      this.listeners.add(check);
    });
  }
}

function matches(p: string | RegExp | undefined, path: string): boolean {
  if (p === undefined) return true;
  return typeof p === 'string' ? p === path : p.test(path);
}
