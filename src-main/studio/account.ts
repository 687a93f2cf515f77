import { log } from '../core/log';
import type { Claim, SharedAccount, SharedResult } from '../jobs/shared-account';
import { StudioError } from './client';
import { readMembership, type Membership } from './membership';
import type { ClaimAnswer, SlotAnswer } from './protocol';
import { connect } from './replica';

// The studio's service account as the job queue sees it (jobs/shared-account.ts): results
// looked up and shared through the studio server, the claim on an answer being paid for, and
// a slot of the account's pace for every call. A library that is not a member, a viewer, or a
// studio that cannot be reached right now: the queue goes on alone at once (offline-first),
// and what it paid for meanwhile reaches the studio with the next sync (replica.ts).

const WAIT_S = 25;
/** After the studio failed to answer, go on alone for this long before asking again. */
const ALONE_MS = 10_000;

type Call = <T>(method: 'GET' | 'POST', path: string, body?: unknown, signal?: AbortSignal) => Promise<T>;

export class StudioAccount implements SharedAccount {
  private conn: { key: string; call: Promise<Call> } | null = null;
  private aloneUntil = 0;
  /** shares on their way, by key: a claim is released only once its result is shared (or failed to be) */
  private readonly sharing = new Map<string, Promise<boolean>>();

  constructor(private readonly dataDir: string) {}

  active(): boolean {
    if (Date.now() < this.aloneUntil) return false;
    try {
      return readMembership(this.dataDir) !== null;
    } catch {
      return false;
    }
  }

  /** Shares still on their way, for a process about to end (the CLI). */
  async flush(): Promise<void> {
    await Promise.all([...this.sharing.values()]);
  }

  async lookup(keys: readonly string[], signal?: AbortSignal): Promise<SharedResult[]> {
    const call = await this.ready();
    if (!call) return [];
    try {
      return (await call<{ results: SharedResult[] }>('POST', '/v1/results/lookup', { keys }, signal)).results;
    } catch (err) {
      this.failed(err, signal);
      return [];
    }
  }

  async claim(key: string, signal: AbortSignal): Promise<Claim> {
    const alone: Claim = { mine: true, release: () => undefined };
    for (;;) {
      const call = await this.ready(true);
      if (!call) return alone;
      let a: ClaimAnswer;
      try {
        a = await call<ClaimAnswer>('POST', '/v1/results/claim', { key, wait: WAIT_S }, signal);
      } catch (err) {
        this.failed(err, signal);
        return alone;
      }
      if ('result' in a) return { result: a.result };
      if ('claimed' in a) return { mine: true, release: () => void this.release(key) };
      // Another member is paying for this answer right now: wait for it (ask again).
    }
  }

  share(r: SharedResult): void {
    const p = this.ready(true).then(async (call) => {
      if (!call) return false;
      try {
        await call('POST', '/v1/results', { results: [r] });
        return true;
      } catch (err) {
        this.failed(err);
        return false;
      }
    });
    this.sharing.set(r.key, p);
    void p.finally(() => {
      if (this.sharing.get(r.key) === p) this.sharing.delete(r.key);
    });
  }

  async slot(rateKey: string, _limit: number, signal: AbortSignal): Promise<(() => void) | null> {
    for (;;) {
      const call = await this.ready(true);
      if (!call) return null;
      let a: SlotAnswer;
      try {
        a = await call<SlotAnswer>('POST', '/v1/account/slot', { rateKey }, signal);
      } catch (err) {
        this.failed(err, signal);
        return null;
      }
      if (a.slot) {
        const id = a.slot;
        return () => {
          call('POST', '/v1/account/release', { slot: id }).catch((err: unknown) => this.failed(err));
        };
      }
    }
  }

  private async release(key: string): Promise<void> {
    // Shared: the server ended the claim itself. Otherwise the next member may make it.
    if (await this.sharing.get(key)) return;
    const call = await this.ready(true);
    if (!call) return;
    await call('POST', '/v1/results/release', { key }).catch((err: unknown) => this.failed(err));
  }

  /** A signed-in call to the studio, or null: not a member, a viewer (when `editing`), or going on alone for now. */
  private async ready(editing = false): Promise<Call | null> {
    if (Date.now() < this.aloneUntil) return null;
    let m: Membership | null;
    try {
      m = readMembership(this.dataDir);
    } catch {
      return null;
    }
    if (!m || (editing && m.role === 'viewer')) return null;
    const key = `${m.server} ${m.studio.id} ${m.device.id} ${m.user}`;
    if (this.conn?.key !== key) {
      const member = m;
      this.conn = { key, call: connect(member).then((c) => c.call) };
    }
    try {
      return await this.conn.call;
    } catch (err) {
      this.conn = null;
      this.failed(err);
      return null;
    }
  }

  private failed(err: unknown, signal?: AbortSignal): void {
    if (signal?.aborted) throw new StudioError('aborted', 'Stopped.');
    // Unreachable, or an older server without the shared account (404): go on alone for a
    // while, as a private library does.
    this.aloneUntil = Date.now() + ALONE_MS;
    if (err instanceof StudioError && err.status === 404) return;
    if (err instanceof StudioError) log.warn(`studio account: ${err.message} Going on alone for now.`);
    else log.error('studio account', err);
  }
}
