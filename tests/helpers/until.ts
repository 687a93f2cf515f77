/**
 * Poll until `probe` answers something truthy, and return it. Tests wait on what a user waits
 * on (a state, a file, a line printed), never on a clock: there is no deadline here, only the
 * test's own timeout, so a slow or busy machine makes a test slower, never red.
 */
export async function until<T>(probe: () => T | undefined | null | false | Promise<T | undefined | null | false>, what = 'a condition', everyMs = 20): Promise<T> {
  for (;;) {
    let v: T | undefined | null | false;
    try {
      v = await probe();
    } catch (err) {
      throw new Error(`while waiting for ${what}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    if (v) return v as T;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
