import { statSync } from 'node:fs';
import { log } from '../core/log';
import type { Claim, SharedAccount, SharedResult, StudioCaps, UsageRow } from '../jobs/shared-account';
import { StudioError } from './client';
import { membershipFile, readMembership, type Membership } from './membership';
import type { ClaimAnswer, LeaseAnswer, SlotAnswer, UsageAnswer } from './protocol';
import { connect } from './replica';

// The studio's service account as the job queue sees it (jobs/shared-account.ts): results
// looked up and shared through the studio server, the claim on an answer being paid for, and
// a slot of the account's pace for every call. A library that is not a member, a viewer, or a
// studio that cannot be reached right now: the queue goes on alone at once (offline-first),
// and what it paid for meanwhile reaches the studio with the next sync (replica.ts).

const WAIT_S = 25;
/** After the studio failed to answer, go on alone for this long before asking again. */
const ALONE_MS = 10_000;

/** A lease held from the studio (renewed while held); release it once the work is done. */
export interface Lease {
  release(): Promise<void>;
}

/** A lease, who holds it now, or null: not a member, or the studio cannot be reached (go on alone). */
export type LeaseOutcome = { lease: Lease } | { busy: { user: string; device: string } } | null;

const accounts = new Map<string, StudioAccount>();

/** The studio account of the library in `dataDir` (one per library in a process, so "going on alone" is shared). */
export function studioAccountOf(dataDir: string): StudioAccount {
  let a = accounts.get(dataDir);
  if (!a) accounts.set(dataDir, (a = new StudioAccount(dataDir)));
  return a;
}

type Call = <T>(method: 'GET' | 'POST', path: string, body?: unknown, signal?: AbortSignal) => Promise<T>;

export class StudioAccount implements SharedAccount {
  private conn: { key: string; call: Promise<Call> } | null = null;
  private aloneUntil = 0;
  /** shares on their way, by key: a claim is released only once its result is shared (or failed to be) */
  private readonly sharing = new Map<string, Promise<boolean>>();

  /** the other machines' billed counts and the studio's caps, as last heard, for the studio it was heard from */
  private heard: { conn: string; month: string; others: UsageRow[]; caps: StudioCaps | null } | null = null;
  private reporting: Promise<void> | null = null;
  private nextReport: { month: string; rows: readonly UsageRow[] } | null = null;

  /** studio.json as last read, and the file's identity then: read again only when it changed */
  private known: { stamp: string; m: Membership | null } | null = null;

  constructor(private readonly dataDir: string) {}

  /** This library's membership (studio.json), read again only when the file changed: a job asks several times. */
  private member(): Membership | null {
    const p = membershipFile(this.dataDir);
    let stamp = 'none';
    try {
      const st = statSync(p);
      stamp = `${st.ino}:${st.size}:${st.mtimeMs}`;
    } catch {
      // no file: not a member
    }
    if (this.known?.stamp !== stamp) this.known = { stamp, m: stamp === 'none' ? null : readMembership(this.dataDir) };
    return this.known.m;
  }

  active(): boolean {
    if (Date.now() < this.aloneUntil) return false;
    try {
      return this.member() !== null;
    } catch {
      return false;
    }
  }

  /**
   * Shares and the report of billed counts still on their way, for a process about to end (the
   * CLI, the app quitting): a call this machine was billed for must reach the studio before it
   * ends, or the other members count without it and the studio's cap lets one more through.
   */
  async flush(): Promise<void> {
    await Promise.all([...this.sharing.values()]);
    // A report may start another (counts that came while it was on its way): wait for the last.
    while (this.reporting) await this.reporting.catch(() => undefined);
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

  /**
   * The studio's lease on `key` (a file being written, a one-at-a-time lane), waiting up to
   * `waitS` seconds while another machine holds it. Held leases are renewed until released, so
   * a long write keeps its file; a machine that dies loses its lease when it expires.
   */
  async lease(key: string, waitS: number, signal?: AbortSignal): Promise<LeaseOutcome> {
    const call = await this.ready();
    if (!call) return null;
    let a: LeaseAnswer;
    try {
      a = await call<LeaseAnswer>('POST', '/v1/leases/take', { key, wait: waitS }, signal);
    } catch (err) {
      this.failed(err, signal);
      return null;
    }
    if ('busy' in a) return { busy: a.busy };
    const { id, ttlMs } = a.lease;
    const renew = setInterval(() => {
      call<LeaseAnswer>('POST', '/v1/leases/renew', { key, id }).then(
        (r) => { if ('busy' in r) log.warn(`studio: the hold on ${key} lapsed; ${r.busy.user} on ${r.busy.device} holds it now.`); },
        (err: unknown) => this.failed(err),
      );
    }, Math.max(200, Math.floor(ttlMs / 3)));
    renew.unref();
    let released: Promise<void> | null = null;
    return {
      lease: {
        release: () => {
          clearInterval(renew);
          released ??= call('POST', '/v1/leases/release', { key, id }).then(() => undefined, (err: unknown) => this.failed(err));
          return released;
        },
      },
    };
  }

  /**
   * The studio-wide turn of a one-at-a-time lane (text to speech, lip sync, face swap): held
   * for a whole job, so two machines never run that lane at once. Waits while another machine
   * has it; null when not shared now (this machine's own one-at-a-time lane alone applies).
   */
  async lane(lane: string, signal: AbortSignal): Promise<(() => void) | null> {
    for (;;) {
      if (!(await this.ready(true))) return null;
      const got = await this.lease(`lane:${lane}`, WAIT_S, signal);
      if (!got) return null;
      if ('lease' in got) return () => void got.lease.release();
      if (signal.aborted) throw new StudioError('aborted', 'Stopped.');
      // Another machine runs this lane now: wait for its turn to end (ask again).
    }
  }

  report(month: string, rows: readonly UsageRow[]): Promise<void> {
    // One report at a time; the newest counts wait for the one on its way (they include it).
    this.nextReport = { month, rows };
    if (this.reporting) return this.reporting.then(() => this.reporting ?? undefined);
    const run = async (): Promise<void> => {
      while (this.nextReport) {
        const next = this.nextReport;
        this.nextReport = null;
        const call = await this.ready();
        const conn = this.memberKey();
        if (!call || !conn) return;
        try {
          const a = await call<UsageAnswer>('POST', '/v1/account/usage', { month: next.month, rows: this.canEdit() ? next.rows : [] });
          this.heard = { conn, month: next.month, others: a.others, caps: a.caps };
        } catch (err) {
          this.failed(err);
          return;
        }
      }
    };
    this.reporting = run().finally(() => {
      this.reporting = null;
    });
    return this.reporting;
  }

  accounting(): { month: string; others: UsageRow[]; caps: StudioCaps | null } | null {
    const h = this.heard;
    // Offline, the last heard counts and caps still hold (a cap the admin set keeps applying).
    if (!h || this.memberKey() !== h.conn) return null;
    return { month: h.month, others: h.others, caps: h.caps };
  }

  private memberKey(): string | null {
    try {
      const m = this.member();
      return m ? `${m.server} ${m.studio.id} ${m.device.id} ${m.user}` : null;
    } catch {
      return null;
    }
  }

  private canEdit(): boolean {
    try {
      const m = this.member();
      return !!m && m.role !== 'viewer';
    } catch {
      return false;
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
      m = this.member();
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
