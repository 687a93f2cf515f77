import type { ChangeIn, ChangeOut } from '../protocol';
import type { Session } from './accounts';
import { LOCK, type StudioStore } from './store';

// The studio's change log. Every change is numbered in COMMIT order: pushes take one advisory
// lock for their transaction, so a number is never visible before a smaller one (a replica that
// pulled up to N never misses a change numbered below N). A change is unique by its device and
// that device's sequence: a replay or a retry after a cut connection is counted, not applied
// again; the same number with other content is refused.

export class ChangeConflict extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChangeConflict';
  }
}

const MAX_PULL = 5000;

type Waiter = () => void;

export class ChangeLog {
  private readonly waiters = new Set<Waiter>();
  /** how many pushes have landed: a long poll notes it before its pull, so a push between that pull and its wait is not missed */
  private landed = 0;

  get pushes(): number {
    return this.landed;
  }

  constructor(private readonly store: StudioStore) {}

  async head(): Promise<number> {
    const r = await this.store.pool.query<{ n: string | null }>('SELECT max(seq) AS n FROM changes');
    return Number(r.rows[0].n ?? 0);
  }

  async push(session: Session, changes: readonly ChangeIn[]): Promise<{ applied: number; duplicates: number; last: number }> {
    const out = await this.store.tx(async (db) => {
      await db.query('SELECT pg_advisory_xact_lock($1)', [LOCK.changes]);
      let next = Number((await db.query<{ n: string | null }>('SELECT max(seq) AS n FROM changes')).rows[0].n ?? 0);
      let applied = 0;
      let duplicates = 0;
      // What the log already holds of these (one query, not one per change), then the new ones
      // in one INSERT: a push of thousands after a week offline is a few statements.
      const had = new Map<number, { hlc: string; kind: string; body: unknown }>();
      const held = await db.query<{ device_seq: string; hlc: string; kind: string; body: unknown }>('SELECT device_seq, hlc, kind, body FROM changes WHERE device_id = $1 AND device_seq = ANY($2::bigint[])', [session.deviceId, changes.map((c) => c.deviceSeq)]);
      for (const r of held.rows) had.set(Number(r.device_seq), { hlc: r.hlc, kind: r.kind, body: r.body });
      const rows = { seq: [] as number[], deviceSeq: [] as number[], hlc: [] as string[], kind: [] as string[], body: [] as string[] };
      for (const c of changes) {
        const h = had.get(c.deviceSeq);
        if (h) {
          if (h.hlc !== c.hlc || h.kind !== c.kind || canonical(h.body) !== canonical(c.body)) {
            throw new ChangeConflict(`This device's change number ${c.deviceSeq} is already in the studio with other content; nothing of this push was applied. The replica's change log does not match what it sent before (was the library restored from an old backup?).`);
          }
          duplicates++;
          continue;
        }
        next++;
        // The same change twice in one push is held once (as when it came in two pushes).
        had.set(c.deviceSeq, { hlc: c.hlc, kind: c.kind, body: JSON.parse(JSON.stringify(c.body)) as unknown });
        rows.seq.push(next);
        rows.deviceSeq.push(c.deviceSeq);
        rows.hlc.push(c.hlc);
        rows.kind.push(c.kind);
        rows.body.push(JSON.stringify(c.body));
        applied++;
      }
      if (applied) {
        await db.query(
          `INSERT INTO changes (seq, device_id, device_seq, hlc, user_id, kind, body)
           SELECT t.seq, $1, t.device_seq, t.hlc, $2, t.kind, t.body::jsonb FROM unnest($3::bigint[], $4::bigint[], $5::text[], $6::text[], $7::text[]) AS t (seq, device_seq, hlc, kind, body)`,
          [session.deviceId, session.user.id, rows.seq, rows.deviceSeq, rows.hlc, rows.kind, rows.body],
        );
      }
      return { applied, duplicates, last: next };
    });
    if (out.applied) this.wake();
    return out;
  }

  async pull(after: number, limit: number): Promise<{ changes: ChangeOut[]; last: number; head: number }> {
    const r = await this.store.pool.query<{ seq: string; device_id: string; device_seq: string; hlc: string; kind: string; body: unknown; name: string; received_at: Date }>(
      `SELECT c.seq, c.device_id, c.device_seq, c.hlc, c.kind, c.body, u.name, c.received_at
         FROM changes c JOIN users u ON u.id = c.user_id WHERE c.seq > $1 ORDER BY c.seq LIMIT $2`,
      [after, Math.min(Math.max(1, limit), MAX_PULL)],
    );
    const changes = r.rows.map((c) => ({ seq: Number(c.seq), deviceId: c.device_id, deviceSeq: Number(c.device_seq), hlc: c.hlc, kind: c.kind, body: c.body, user: c.name, receivedAt: c.received_at.toISOString() }));
    return { changes, last: changes.at(-1)?.seq ?? after, head: await this.head() };
  }

  /**
   * Resolves when a push lands or `ms` pass, whichever is first (a long poll's wait); at once
   * when one landed since `since` (`pushes` read before the pull that found nothing).
   */
  waitForNew(ms: number, signal: AbortSignal, since = this.landed): Promise<void> {
    return new Promise((resolve) => {
      if (this.landed !== since) {
        resolve();
        return;
      }
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  private wake(): void {
    this.landed++;
    for (const w of [...this.waiters]) w();
  }
}

/** JSON with every object's keys sorted: jsonb hands objects back in its own key order. */
function canonical(v: unknown): string {
  const sort = (x: unknown): unknown =>
    Array.isArray(x) ? x.map(sort) : x && typeof x === 'object' ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, sort((x as Record<string, unknown>)[k])])) : x;
  return JSON.stringify(sort(v));
}
