import type { CellState } from '../../src-preload/contract';
import type { LibraryCtx } from './context';
import { prepared } from './db';
import { getSyncState } from '../metadata/file-state';

// What a grid cell shows beside the picture (issue 35): whether the library holds metadata the
// file does not have yet (or the last write failed), how many AI suggestions wait for review,
// and the agencies the file was sent to. Asked for the cells on screen only.

export function cellStates(ctx: LibraryCtx, ids: readonly number[]): CellState[] {
  const waiting = prepared(
    ctx.db,
    `SELECT (SELECT count(*) FROM suggestions WHERE asset_id = ? AND state = 'pending')
          + (SELECT count(*) FROM caption_suggestions WHERE asset_id = ? AND state = 'pending') AS n`,
  );
  const sent = prepared(ctx.db, 'SELECT agency FROM asset_sent WHERE asset_id = ? ORDER BY sent_at DESC');
  return ids.map((id) => {
    const sync = getSyncState(ctx, id);
    return {
      id,
      write: sync.status === 'unsaved' ? 'unsaved' : sync.status === 'failed' ? 'failed' : null,
      suggestions: (waiting.get(id, id) as { n: number }).n,
      sentTo: (sent.all(id) as { agency: string }[]).map((r) => r.agency),
    };
  });
}
