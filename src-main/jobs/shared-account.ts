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
}
