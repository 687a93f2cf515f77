import { setImmediate as nextTurn } from 'node:timers/promises';

/** Items handled per turn of the event loop by inSteps (a few milliseconds of catalogue work). */
export const STEP = 100;

/** Milliseconds of work per turn of the event loop for work whose cost per item varies (turnBudget). */
export const TURN_MS = 8;

/**
 * Run `each` over `items` a chunk at a time, letting the event loop run between chunks: work
 * over every photo of a large selection never holds the main thread (the window, the media
 * protocol, every IPC answer) for the whole of it. `each` is synchronous, so one chunk may
 * be one transaction.
 */
export async function inSteps<T>(items: readonly T[], each: (chunk: readonly T[], start: number) => void, step = STEP): Promise<void> {
  for (let i = 0; i < items.length; i += step) {
    if (i > 0) await nextTurn();
    each(items.slice(i, i + step), i);
  }
}

/**
 * The budget of one turn of the event loop for work whose items cost very different amounts
 * (a keyword edit writes the keyword store, the index and the full-text table of each photo):
 * call it once per item done; it says whether another may follow in this turn, at most `step`
 * items and TURN_MS of time.
 */
export function turnBudget(step = STEP): () => boolean {
  const deadline = performance.now() + TURN_MS;
  let done = 0;
  return () => ++done < step && performance.now() < deadline;
}

/**
 * Work that must not interleave with other work on the same key (a library): each call starts
 * when the one before it has ended, whether that one succeeded or failed. Steps of two calls
 * never mix, so what one reads between its steps is never half of another's write.
 */
export function oneAtATime<K extends object>(): <T>(key: K, work: () => Promise<T>) => Promise<T> {
  const tails = new WeakMap<K, Promise<unknown>>();
  return (key, work) => {
    const next = (tails.get(key) ?? Promise.resolve()).then(work);
    tails.set(key, next.catch(() => undefined));
    return next;
  };
}

/**
 * Work through `total` items a turn of the event loop at a time: `turn(from, more)` handles
 * items from `from` while `more()` allows (turnBudget: call it once per item done, at least one
 * item is always done) and returns where it stopped. One turn may be one transaction.
 */
export async function inTurns(total: number, turn: (from: number, more: () => boolean) => number): Promise<void> {
  for (let from = 0; from < total; ) {
    if (from > 0) await nextTurn();
    from = turn(from, turnBudget());
  }
}

/**
 * The pace of a loop over many items whose work is not one transaction (file checks, a plan's
 * bookkeeping): await it before each item; once a turn's budget (turnBudget) is spent it lets
 * the event loop run.
 */
export function pace(step = STEP): () => Promise<void> {
  let more = turnBudget(step);
  return async () => {
    if (more()) return;
    await nextTurn();
    more = turnBudget(step);
  };
}

/**
 * A set of very many values (a million cache keys or ids) kept in 64 parts. One Set rehashes
 * every entry at once each time it doubles: one add of the millionth key held the thread
 * ~20 ms; here each part holds a sixty-fourth of them.
 */
export class ManySet<T extends string | number> {
  private readonly parts = Array.from({ length: 64 }, () => new Set<T>());

  private part(v: T): Set<T> {
    if (typeof v === 'number') return this.parts[(v ^ (v >>> 6)) & 63];
    // FNV-1a over the whole string: keys that share a head or a tail still spread.
    let h = 0x811c9dc5;
    for (let i = 0; i < v.length; i++) h = Math.imul(h ^ v.charCodeAt(i), 0x01000193);
    return this.parts[h & 63];
  }

  has(v: T): boolean {
    return this.part(v).has(v);
  }

  add(v: T): void {
    this.part(v).add(v);
  }
}

/** Ids per turn of the event loop in distinctInSteps. */
const DISTINCT_STEP = 100_000;

/**
 * Each id once, in the order given, a turn's worth at a time: `[...new Set(ids)]` of a
 * select-all in a million-photo library held the main thread ~110 ms. Dense ids (a
 * catalogue's own) are marked in a byte per id, others kept in a ManySet.
 */
export async function distinctInSteps(ids: readonly number[]): Promise<number[]> {
  // A small selection: a Set, without a byte for every id up to its largest.
  if (ids.length <= DISTINCT_STEP / 10) return [...new Set(ids)];
  let top = 0;
  for (let i = 0; i < ids.length; i++) if (ids[i] > top) top = ids[i];
  const seen = top <= Math.max(1 << 24, ids.length * 32) ? new Uint8Array(top + 1) : null;
  const sparse = seen ? null : new ManySet<number>();
  const out: number[] = [];
  for (let i = 0; i < ids.length; i++) {
    if (i > 0 && i % DISTINCT_STEP === 0) await nextTurn();
    const id = ids[i];
    if (seen) {
      if (seen[id]) continue;
      seen[id] = 1;
    } else {
      if (sparse!.has(id)) continue;
      sparse!.add(id);
    }
    out.push(id);
  }
  return out;
}
