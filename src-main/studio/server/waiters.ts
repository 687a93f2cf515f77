// Requests of the studio server that wait for something keyed to happen (a claimed answer to be
// shared, a lease to be released): each waits until the key is woken, its time is up, or its
// client goes away, whichever comes first.

export class KeyedWaiters {
  private readonly waiters = new Map<string, Set<() => void>>();

  /** Resolves when `key` is woken, after `ms`, or when `signal` aborts. */
  waitFor(key: string, ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      let set = this.waiters.get(key);
      if (!set) this.waiters.set(key, (set = new Set()));
      const done = () => {
        clearTimeout(timer);
        set!.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(1, ms));
      set.add(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  /** Every request waiting on `key` goes on. */
  wake(key: string): void {
    const set = this.waiters.get(key);
    this.waiters.delete(key);
    for (const w of set ?? []) w();
  }

  /** Every waiting request goes on (the server closes). */
  wakeAll(): void {
    for (const key of [...this.waiters.keys()]) this.wake(key);
  }
}
