// One service account shared by several machines (a studio, issue 34): what the queue asks of
// whoever coordinates them, so that a picture analysed on one machine is never billed again on
// another and the account's rate limits hold for all of them together. The queue works alone
// when there is no such account (a private library) or when it cannot be reached (offline):
// every method then answers at once with "go on alone".

/** A result another machine paid for: enough to put it into this machine's result cache. */
export interface SharedResult {
  key: string;
  endpoint: string;
  contentHash: string;
  params: unknown;
  result: unknown;
}

/** Billed calls of one day under one billing key, as one machine counted them. */
export interface UsageRow {
  billingKey: string;
  day: string;
  calls: number;
}

/** Caps on billed calls and spend for every machine of the account together (set by an admin). */
export interface StudioCaps {
  dailyCalls?: number | null;
  monthlyCalls?: number | null;
  dailySpend?: number | null;
  monthlySpend?: number | null;
}

export type Claim =
  /** another machine has the answer: no call */
  | { result: SharedResult }
  /** this machine makes the call (it holds the claim until it shares the result or releases it) */
  | { mine: true; release(): void };

export interface SharedAccount {
  /** Whether sharing is on now (a member, not working alone for the moment); asked before each use, cheaply. */
  active(): boolean;
  /** The results the account already holds for these cache keys (those it lacks are left out). */
  lookup(keys: readonly string[], signal?: AbortSignal): Promise<SharedResult[]>;
  /**
   * Before paying for `key`: the account's result, or the right to make it here. While another
   * machine holds the claim this waits for its answer (aborted by `signal`).
   */
  claim(key: string, signal: AbortSignal): Promise<Claim>;
  /** A paid result for every machine of the account (kept and sent later when it cannot go now). */
  share(result: SharedResult): void;
  /**
   * A slot of the account's pace for one call to the service under `rateKey` at `limit` per
   * second; resolves with its release (call it once the answer is back). null: not shared now,
   * this machine's own pacing alone applies.
   */
  slot(rateKey: string, limit: number, signal: AbortSignal): Promise<(() => void) | null>;
  /**
   * The account-wide turn of a one-at-a-time lane, held for a whole job (so two machines never
   * run it at once); resolves with its release. null: not shared now.
   */
  lane(lane: string, signal: AbortSignal): Promise<(() => void) | null>;
  /**
   * This machine's billed calls of `month` (its whole count per day and billing key), for the
   * account's total; resolves once the other machines' counts and the account's caps are known
   * again (or could not be: never throws).
   */
  report(month: string, rows: readonly UsageRow[]): Promise<void>;
  /** What the other machines were billed and the account's caps, as last heard; null when never heard. */
  accounting(): { month: string; others: UsageRow[]; caps: StudioCaps | null } | null;
}
