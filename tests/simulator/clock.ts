/**
 * The simulator's clock: its per-second rate limits, task progress and result retention count
 * by it. Real time unless a test moves it: a test of the limits freezes it, so "two requests in
 * the same second" is true however slowly a busy machine carries them, and advances it instead
 * of sleeping out a window or a retention period.
 */
export class SimClock {
  private offset = 0;
  private frozen: number | null = null;

  now = (): number => this.frozen ?? Date.now() + this.offset;

  /** Stop the clock where it is (requests from now on arrive at the same instant). */
  freeze(): void {
    this.frozen = this.now();
  }

  /** Let the clock run on from where it stands. */
  thaw(): void {
    if (this.frozen === null) return;
    this.offset = this.frozen - Date.now();
    this.frozen = null;
  }

  /** Move the clock forward (frozen or running). */
  advance(ms: number): void {
    if (this.frozen !== null) this.frozen += ms;
    else this.offset += ms;
  }
}
