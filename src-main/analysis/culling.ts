import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Flag, FlagEditResult, HistogramField, QualityHistogram, RunTarget, SearchQuery } from '../../src-preload/contract';
import { setAssetColumn } from '../catalogue/asset-fields';
import { ApiError } from '../core/errors';
import type { LibraryCtx } from '../library/context';
import { prepared } from '../library/db';
import { matchingIds } from '../search/search';
import { resolveTarget } from '../workflows/runs';
import { countNoun } from '../workflows/edit-log';
import { inTurns } from '../core/steps';
import { EditLogWriter, type LoggedChange } from '../library/edit-log-writer';
import { inEditLane } from '../library/edit-lane';

// Culling: picks and rejects (assets.flag), "reject everything below X" and the score
// histogram of the current view. Flag changes go into the edit log (edits/edit_changes,
// field 'flag') as ONE edit, a turn's budget of photos per transaction; undo
// (library/edits.ts) puts the flags back.

const TABLE: Record<HistogramField, string> = { quality: 'asset_quality', ugc: 'asset_ugc_quality' };

function checkField(field: HistogramField): string {
  if (!Object.hasOwn(TABLE, field)) throw new ApiError('validation', 'The score is quality or ugc.', 'field');
  return TABLE[field];
}

/** Score rows read per turn of the event loop. */
const SCORE_STEP = 20_000;

/**
 * Scores of these assets (measured ones only), by id. The score table is read in steps by id
 * and each row tested against the ids: the view of a million-photo library was one join of a
 * million-id JSON array, 150-250 ms on the main thread.
 */
async function scoresOf(ctx: LibraryCtx, ids: ArrayLike<number> & Iterable<number>, field: HistogramField): Promise<Map<number, number>> {
  const read = prepared(ctx.db, `SELECT asset_id AS id, score FROM ${checkField(field)} WHERE asset_id > ? ORDER BY asset_id LIMIT ?`);
  let top = 0;
  for (const id of ids) if (id > top) top = id;
  const wanted = new Uint8Array(top + 1);
  for (const id of ids) wanted[id] = 1;
  const scores = new Map<number, number>();
  for (let after = 0; ; await nextTurn()) {
    const rows = read.all(after, SCORE_STEP) as { id: number; score: number }[];
    for (const r of rows) if (r.id <= top && wanted[r.id]) scores.set(r.id, r.score);
    if (rows.length < SCORE_STEP) return scores;
    after = rows[rows.length - 1].id;
  }
}

/** Write the flags and log them as one edit, a chunk at a time; returns the assets that changed. */
async function applyFlags(ctx: LibraryCtx, changes: { id: number; flag: Flag | null }[], description: (n: number[]) => string): Promise<FlagEditResult> {
  const read = prepared(ctx.db, 'SELECT flag FROM assets WHERE id = ?');
  const log = new EditLogWriter(ctx, description(changes.map((c) => c.id)));
  const chunk = ctx.db.transaction((from: number, more: () => boolean): number => {
    const logged: LoggedChange[] = [];
    let i = from;
    do {
      const c = changes[i++];
      const old = (read.get(c.id) as { flag: Flag | null } | undefined)?.flag ?? null;
      if (old === c.flag) continue;
      setAssetColumn(ctx.db, c.id, 'flag', c.flag);
      logged.push({ assetId: c.id, field: 'flag', old, new: c.flag });
    } while (i < changes.length && more());
    log.add(logged);
    return i;
  });
  let text: string | null = null;
  try {
    await inTurns(changes.length, chunk);
  } finally {
    // Named by the photos whose flag changed, once every chunk is in.
    if (log.logged) log.describe((text = description([...log.changed])));
    log.announce();
  }
  return { description: text, assetIds: [...log.changed] };
}

/** Pick, reject or unflag (null) these assets: one undoable edit. */
export async function setFlag(ctx: LibraryCtx, ids: readonly number[], flag: Flag | null): Promise<FlagEditResult> {
  if (flag !== null && flag !== 'pick' && flag !== 'reject') throw new ApiError('validation', 'A flag is pick, reject or none.', 'flag');
  return inEditLane(ctx, async () => {
    const live = await resolveTarget(ctx, { assetIds: [...ids] });
    const verb = flag === 'pick' ? 'pick' : flag === 'reject' ? 'reject' : 'unflag';
    return applyFlags(ctx, live.map((id) => ({ id, flag })), (changed) => `${verb} ${countNoun(ctx, changed)}`);
  });
}

/** Reject every measured asset of the target whose score is below `threshold` (0..1): one undoable edit. */
export async function rejectBelow(ctx: LibraryCtx, target: RunTarget | SearchQuery | readonly number[], field: HistogramField, threshold: number): Promise<FlagEditResult> {
  if (!Number.isFinite(threshold) || threshold < 0 || threshold > 1) throw new ApiError('validation', 'The threshold is a score from 0 to 1.', 'threshold');
  return inEditLane(ctx, async () => {
    const t: RunTarget = Array.isArray(target) ? { assetIds: [...(target as number[])] } : 'assetIds' in (target as object) || 'query' in (target as object) ? (target as RunTarget) : { query: target as SearchQuery };
    const ids = await resolveTarget(ctx, t);
    const scores = await scoresOf(ctx, ids, field);
    const below = ids.filter((id) => scores.has(id) && scores.get(id)! < threshold);
    const pct = `${Math.round(threshold * 1000) / 10}%`;
    return applyFlags(ctx, below.map((id) => ({ id, flag: 'reject' as const })), (changed) => `reject ${countNoun(ctx, changed)} scoring below ${pct}${field === 'ugc' ? ' (UGC)' : ''}`);
  });
}

/** The scores of the current view in `bins` equal-width bins over 0..1 (the last one includes 1). */
export async function histogram(ctx: LibraryCtx, query: SearchQuery, field: HistogramField, bins = 20): Promise<QualityHistogram> {
  if (!Number.isInteger(bins) || bins < 1 || bins > 1000) throw new ApiError('validation', 'The number of bins is a whole number from 1 to 1000.', 'bins');
  checkField(field);
  const ids = matchingIds(ctx, { ...query, sort: 'name' });
  const scores = await scoresOf(ctx, ids, field);
  const out = Array.from({ length: bins }, (_, i) => ({ from: i / bins, to: (i + 1) / bins, count: 0 }));
  for (const s of scores.values()) out[Math.min(bins - 1, Math.max(0, Math.floor(s * bins)))].count++;
  return { field, bins: out, measured: scores.size, unmeasured: ids.length - scores.size };
}
