import { randomUUID } from 'node:crypto';
import type { LeaseAnswer } from '../protocol';
import type { Session } from './accounts';
import type { StudioStore } from './store';
import { KeyedWaiters } from './waiters';

// Leases: one holder at a time across the studio for something two machines must never do at
// once (issue 34):
// - `file:…`  writing into one file (point 7): a member writes a photo's metadata only while it
//   holds the file's lease, so two machines never rewrite the same file at the same moment;
// - `lane:…`  a one-at-a-time lane of the service account (point 8): text to speech, lip sync
//   and face swap run one task at a time per account, so one machine of the studio at a time.
// A lease lasts `ttlMs` unless renewed (a long write, a long task renews it), so a writer that
// is killed holds nothing for longer than that. Leases live in memory: after a restart of the
// server a holder's renewal takes its lease again when nobody else took it meanwhile.

const MIN_TTL_MS = 1000;
export const DEFAULT_LEASE_MS = 60_000;
export const MAX_LEASE_KEY = 4096;

interface Held {
  id: string;
  device: string;
  deviceName: string;
  user: string;
  expires: number;
}

export class LeaseHub {
  private readonly held = new Map<string, Held>();
  private readonly waiters = new KeyedWaiters();
  private readonly deviceNames = new Map<string, string>();

  constructor(
    private readonly store: StudioStore,
    /** how long a lease lasts unless renewed (`tagsmith serve --lease-seconds`) */
    readonly ttlMs = DEFAULT_LEASE_MS,
  ) {
    if (!(ttlMs >= MIN_TTL_MS)) throw new Error(`A lease lasts at least ${MIN_TTL_MS / 1000} s.`);
  }

  /**
   * The lease on `key` for this session, or who holds it. Waits up to `waitMs` for the holder
   * to release it (or for it to expire). `id`: a lease this holder had (a renewal after a
   * restart of the server, or taking it again).
   */
  async take(s: Session, key: string, waitMs: number, signal: AbortSignal, id?: string): Promise<LeaseAnswer> {
    const until = Date.now() + waitMs;
    for (;;) {
      const now = Date.now();
      const h = this.held.get(key);
      if (!h || h.expires <= now || (id !== undefined && h.id === id)) {
        const lease: Held = { id: id ?? randomUUID(), device: s.deviceId, deviceName: await this.deviceName(s.deviceId), user: s.user.name, expires: now + this.ttlMs };
        // Another request may have taken it while the device's name was read.
        const again = this.held.get(key);
        if (again && again !== h && again.expires > Date.now() && again.id !== id) continue;
        this.held.set(key, lease);
        return { lease: { id: lease.id, key, ttlMs: this.ttlMs } };
      }
      const left = Math.min(until, h.expires) - now;
      if (left <= 0 || signal.aborted) return { busy: { user: h.user, device: h.deviceName } };
      await this.waiters.waitFor(key, left, signal);
    }
  }

  /** Extend a lease this holder has; when it lapsed and nobody took it, it is taken again. */
  renew(s: Session, key: string, id: string): Promise<LeaseAnswer> {
    return this.take(s, key, 0, new AbortController().signal, id);
  }

  release(s: Session, key: string, id: string): void {
    const h = this.held.get(key);
    if (h && h.id === id && h.device === s.deviceId) this.end(key);
  }

  /** Who holds `key` now (null: nobody). */
  holder(key: string): { user: string; device: string } | null {
    const h = this.held.get(key);
    return h && h.expires > Date.now() ? { user: h.user, device: h.deviceName } : null;
  }

  close(): void {
    this.waiters.wakeAll();
  }

  private async deviceName(id: string): Promise<string> {
    let n = this.deviceNames.get(id);
    if (n === undefined) {
      const r = await this.store.pool.query<{ name: string }>('SELECT name FROM devices WHERE id = $1', [id]);
      n = r.rows[0]?.name ?? id;
      this.deviceNames.set(id, n);
    }
    return n;
  }

  private end(key: string): void {
    this.held.delete(key);
    this.waiters.wake(key);
  }
}
