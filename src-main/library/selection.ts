import { setImmediate as nextTurn } from 'node:timers/promises';
import { ApiError } from '../core/errors';
import { distinctInSteps } from '../core/steps';
import type { LibraryCtx } from './context';
import { prepared } from './db';

// A selection as the window sends it: asset ids, as many as a million (select all), perhaps
// repeated, perhaps naming assets removed since. Checked in steps, never in one piece: a
// select-all in a million-photo library was a Set of the ids and then a query per id.

/** Selections up to this size are checked an asset at a time; larger ones against every live id, read in steps. */
const FEW = 2_000;
/** Live ids read per turn of the event loop when checking a large selection. */
const LIVE_STEP = 20_000;

/**
 * The selected assets, each once, in the order given; refused (not_found, before anything is
 * done) when one of them is no longer in the library.
 */
export async function liveSelection(ctx: LibraryCtx, asked: readonly number[]): Promise<number[]> {
  const ids = await distinctInSteps(asked);
  let missing = 0;
  if (ids.length <= FEW) {
    const live = prepared(ctx.db, 'SELECT 1 FROM assets WHERE id = ? AND removed_at IS NULL');
    for (const id of ids) if (!live.get(id)) missing++;
  } else {
    const top = (prepared(ctx.db, 'SELECT max(id) AS top FROM assets').get() as { top: number | null }).top ?? 0;
    const live = new Uint8Array(top + 1);
    const read = prepared(ctx.db, 'SELECT id FROM assets WHERE removed_at IS NULL AND id > ? ORDER BY id LIMIT ?').pluck(true);
    for (let after = 0; ; await nextTurn()) {
      const rows = read.all(after, LIVE_STEP) as number[];
      for (const id of rows) live[id] = 1;
      if (rows.length < LIVE_STEP) break;
      after = rows[rows.length - 1];
    }
    for (const id of ids) if (!(id <= top && live[id])) missing++;
  }
  if (missing) {
    throw new ApiError('not_found', `${missing === 1 ? 'One' : missing} of the selected items ${missing === 1 ? 'is' : 'are'} no longer in the library. Refresh and try again.`);
  }
  return ids;
}
