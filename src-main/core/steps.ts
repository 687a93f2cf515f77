import { setImmediate as nextTurn } from 'node:timers/promises';

/** Items handled per turn of the event loop by inSteps (a few milliseconds of catalogue work). */
export const STEP = 100;

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
