import { oneAtATime } from '../core/steps';
import { keepIndexCurrent } from '../search/catalogue-index';
import type { LibraryCtx } from './context';

const lane = oneAtATime<LibraryCtx>();

/**
 * Edits (and undo) of one library run one at a time: `work` starts when the edit before it has
 * ended, so the chunks of two edits never mix and an undo takes back a whole edit. Every writer
 * of the edit log that works in steps (hand edits, review decisions, keyword-list edits,
 * reverts, flags, renames) runs its reads and its writes in here. Meanwhile the catalogue
 * index takes in each turn's changes as they are made (keepIndexCurrent).
 */
export function inEditLane<T>(ctx: LibraryCtx, work: () => Promise<T>): Promise<T> {
  return lane(ctx, async () => {
    const stop = keepIndexCurrent(ctx.db);
    try {
      return await work();
    } finally {
      stop();
    }
  });
}
