import { notFound } from '../core/errors';
import type { LibraryCtx } from '../library/context';
import { getAssetKeywords } from '../library/keywords';
import { prepared } from '../library/db';
import { EditLogWriter } from '../library/edit-log-writer';
import { inEditLane } from '../library/edit-lane';
import { readLogged, writeInTurns, type LoggedField, type LoggedValue, type PlannedChange } from './edit-log';
import { emitWorkflowEvent, getRun } from './runs';
import type { RevertResult } from './types';

// "Revert this batch": take out exactly what one AI run put into assets, and nothing else.
//
// The edit log holds whole before/after values, so restoring the values from before the run
// would wipe every later edit. Instead the asset's history since the run's first edit is
// replayed (edits not undone, in order — undo only ever takes back the latest edit, so those
// form a consistent history) to find who put each current keyword there last:
// - a keyword the run added and nobody touched since is removed;
// - one the run added that the user removed by hand stays removed (nothing to do);
// - one the user removed and later added again by hand is the user's and stays;
// - one the user also accepted from another run that is not reverted stays;
// - keywords added by anyone else, the order the user gave, ratings, titles all stay.
// A caption is restored only when the run's acceptance is still the latest change to it.

interface HistoryRow {
  edit_id: number;
  batch_id: string | null;
  old_value: string;
  new_value: string;
}

const lower = (s: string): string => s.toLocaleLowerCase();

function history(ctx: LibraryCtx, assetId: number, field: LoggedField, sinceEditId: number): HistoryRow[] {
  return prepared(
    ctx.db,
    `SELECT e.id AS edit_id, e.batch_id, c.old_value, c.new_value FROM edit_changes c JOIN edits e ON e.id = c.edit_id
     WHERE c.asset_id = ? AND c.field = ? AND e.undone = 0 AND e.id >= ? ORDER BY e.id, c.rowid`,
  ).all(assetId, field, sinceEditId) as HistoryRow[];
}

/** Keywords (lower-cased) whose latest addition was made by the run and which are still there. */
function keywordsOwnedByRun(rows: HistoryRow[], batchId: string): Set<string> {
  const owner = new Map<string, 'run' | 'other'>();
  for (const r of rows) {
    const before = new Set((JSON.parse(r.old_value) as string[]).map(lower));
    const after = new Set((JSON.parse(r.new_value) as string[]).map(lower));
    for (const k of after) if (!before.has(k)) owner.set(k, r.batch_id === batchId ? 'run' : 'other');
    for (const k of before) if (!after.has(k)) owner.delete(k);
  }
  return new Set([...owner].filter(([, who]) => who === 'run').map(([k]) => k));
}

/** The value to put back, when the latest changes of a text field are the run's and the value is still theirs; else undefined. */
function textToRestore(rows: HistoryRow[], batchId: string, current: LoggedValue): LoggedValue | undefined {
  let i = rows.length - 1;
  if (i < 0 || rows[i].batch_id !== batchId) return undefined;
  if (JSON.stringify(JSON.parse(rows[i].new_value)) !== JSON.stringify(current)) return undefined;
  while (i > 0 && rows[i - 1].batch_id === batchId) i--;
  return JSON.parse(rows[i].old_value) as LoggedValue;
}

export function revertRun(ctx: LibraryCtx, runId: number): Promise<RevertResult> {
  return inEditLane(ctx, () => revertNow(ctx, runId));
}

/** The revert, a turn's budget of touched photos per transaction, as ONE undoable edit; the run is marked reverted with the last. */
async function revertNow(ctx: LibraryCtx, runId: number): Promise<RevertResult> {
  const run = prepared(ctx.db, 'SELECT id, kind, batch_id, status, created_at FROM ai_runs WHERE id = ?').get(runId) as
    | { id: number; kind: string; batch_id: string; status: string; created_at: number }
    | undefined;
  if (!run) throw notFound('That AI run');
  const result: RevertResult = { description: null, assetIds: [], keywordsRemoved: 0, captionsRestored: 0 };
  if (run.status === 'reverted') return result;
  const first = prepared(ctx.db, 'SELECT min(id) FROM edits WHERE batch_id = ? AND undone = 0').pluck().get(run.batch_id) as number | null;
  const touched =
    first === null
      ? []
      : (prepared(
          ctx.db,
          `SELECT DISTINCT c.asset_id, c.field FROM edit_changes c JOIN edits e ON e.id = c.edit_id
           JOIN assets a ON a.id = c.asset_id AND a.removed_at IS NULL
           WHERE e.batch_id = ? AND e.undone = 0 ORDER BY c.asset_id`,
        ).all(run.batch_id) as { asset_id: number; field: LoggedField }[]);
  const acceptedElsewhere = prepared(
    ctx.db,
    `SELECT s.keyword FROM suggestions s JOIN ai_runs r ON r.id = s.run_id AND r.status <> 'reverted'
     WHERE s.asset_id = ? AND s.state = 'accepted' AND s.run_id <> ?`,
  ).pluck();
  const when = new Date(run.created_at).toLocaleString();
  const description = `revert the AI ${run.kind === 'keywords' ? 'keywords' : 'captions'} of run ${run.id} (${when})`;
  const log = new EditLogWriter(ctx, description);
  try {
    // Each photo's history is read in the chunk that writes it: it is the photo as it is now.
    await writeInTurns(ctx, touched, log, (t): PlannedChange[] => {
      const rows = history(ctx, t.asset_id, t.field, first!);
      if (t.field === 'keywords') {
        const owned = keywordsOwnedByRun(rows, run.batch_id);
        // A word the user also accepted from another run (it was already there then) is theirs too.
        for (const k of acceptedElsewhere.all(t.asset_id, run.id) as string[]) owned.delete(lower(k));
        const current = getAssetKeywords(ctx.db, t.asset_id);
        const kept = current.filter((k) => !owned.has(lower(k)));
        if (kept.length === current.length) return [];
        result.keywordsRemoved += current.length - kept.length;
        return [{ assetId: t.asset_id, field: 'keywords', value: kept }];
      }
      const back = textToRestore(rows, run.batch_id, readLogged(ctx, t.asset_id, t.field));
      if (back === undefined) return [];
      result.captionsRestored++;
      return [{ assetId: t.asset_id, field: t.field, value: back }];
    });
    prepared(ctx.db, "UPDATE ai_runs SET status = 'reverted', reverted_at = ? WHERE id = ?").run(Date.now(), run.id);
  } finally {
    log.announce();
  }
  result.assetIds = [...log.changed];
  if (result.assetIds.length) result.description = description;
  const view = getRun(ctx, runId);
  if (view) emitWorkflowEvent(ctx, 'run', view);
  emitWorkflowEvent(ctx, 'suggestions', { runId, assetIds: result.assetIds });
  return result;
}
