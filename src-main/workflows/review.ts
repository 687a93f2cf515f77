import { acceptCaptionSuggestion, decideSuggestion, editCaptionSuggestionText, rejectCaptionSuggestion } from '../catalogue/suggestions';
import { ApiError, notFound } from '../core/errors';
import type { LibraryCtx } from '../library/context';
import { getAssetKeywords } from '../library/keywords';
import { prepared } from '../library/db';
import { STEP, distinctInSteps, inSteps, inTurns } from '../core/steps';
import { EditLogWriter } from '../library/edit-log-writer';
import { inEditLane } from '../library/edit-lane';
import { countNoun, logEdit, quote, writeInTurns } from './edit-log';
import type { KeywordSettings } from '../../src-preload/contract';
import { checkKeywords, checkTextLimits } from '../metadata/stock-limits';
import { Vocabulary, getKeywordSettings } from './hygiene';
import { emitWorkflowEvent } from './runs';
import type { AcceptResult, AssetReview, CaptionLength, CaptionSuggestionView, KeywordRunOptions, SuggestionView } from './types';

// Reviewing suggestions. Accepting appends to the asset's keywords — what was there stays
// first and in its order, accepted ones follow strongest first — through the edit log under
// the run's batch id (one undoable edit per run touched), so revertRun can take exactly that
// run's keywords back out later. Decisions over a large selection (accept everything above
// 80 % of a 10,000-photo run) are read and written a chunk at a time with the event loop
// running between, in the edit lane of the library (after any hand edit still being written).

/** Suggestions read per turn of the event loop (one indexed lookup each). */
const READ_STEP = 10 * STEP;

interface SuggestionRow {
  id: number;
  asset_id: number;
  run_id: number;
  keyword: string;
  score: number;
  position: number;
  state: 'pending' | 'accepted' | 'rejected';
  lang: string;
  batch_id: string;
  created_at: number;
  params: string;
}

const lower = (s: string): string => s.toLocaleLowerCase();

const SELECT_SUGGESTIONS = `SELECT s.id, s.asset_id, s.run_id, s.keyword, s.score, s.position, s.state, s.lang, r.batch_id, r.created_at, r.params
  FROM suggestions s JOIN ai_runs r ON r.id = s.run_id AND r.status <> 'reverted'`;

function liveAsset(ctx: LibraryCtx, id: number): void {
  if (!prepared(ctx.db, 'SELECT 1 FROM assets WHERE id = ? AND removed_at IS NULL').get(id)) throw notFound('That photo');
}

/** Everything to review one asset: its keywords, one suggestion per word (strongest first), caption suggestions, checks. */
export function getAssetReview(ctx: LibraryCtx, assetId: number, opts: { runId?: number } = {}): AssetReview {
  liveAsset(ctx, assetId);
  const settings = getKeywordSettings(ctx);
  const keywords = getAssetKeywords(ctx.db, assetId);
  const inAsset = new Set(keywords.map(lower));
  const excluded = new Set(settings.exclude.map(lower));
  const rows = prepared(ctx.db, `${SELECT_SUGGESTIONS} WHERE s.asset_id = ? ORDER BY s.score DESC, s.run_id DESC, s.position`).all(assetId) as SuggestionRow[];
  // A per-group run's members received their representative's answer: say whose.
  const fromStmt = prepared(ctx.db, 'SELECT ra.from_asset_id AS id, a.name FROM ai_run_assets ra JOIN assets a ON a.id = ra.from_asset_id WHERE ra.run_id = ? AND ra.asset_id = ?');
  const fromCache = new Map<number, { assetId: number; name: string } | null>();
  const fromOf = (runId: number): { assetId: number; name: string } | null => {
    if (!fromCache.has(runId)) {
      const f = fromStmt.get(runId, assetId) as { id: number; name: string } | undefined;
      fromCache.set(runId, f ? { assetId: f.id, name: f.name } : null);
    }
    return fromCache.get(runId)!;
  };
  const byWord = new Map<string, SuggestionView>();
  for (const r of rows) {
    if (opts.runId !== undefined && r.run_id !== opts.runId) continue;
    const key = lower(r.keyword);
    const seen = byWord.get(key);
    if (seen) {
      // One line per word: the strongest suggestion, 'accepted' if any run's was, else 'pending' if any is.
      if (r.state === 'accepted' || (r.state === 'pending' && seen.state === 'rejected')) seen.state = r.state;
      continue;
    }
    const from = fromOf(r.run_id);
    byWord.set(key, {
      id: r.id, keyword: r.keyword, score: r.score, state: r.state, lang: r.lang, runId: r.run_id, createdAt: r.created_at,
      params: JSON.parse(r.params) as KeywordRunOptions, inAsset: inAsset.has(key), excluded: excluded.has(key), ...(from ? { from } : {}),
    });
  }
  const asset = prepared(ctx.db, 'SELECT caption, title FROM assets WHERE id = ?').get(assetId) as { caption: string | null; title: string | null };
  const captions = (
    prepared(
      ctx.db,
      `SELECT c.id, c.text, c.raw, c.caption_len, c.state, c.accepted_as, c.run_id, r.created_at FROM caption_suggestions c
       JOIN ai_runs r ON r.id = c.run_id AND r.status <> 'reverted' WHERE c.asset_id = ? ORDER BY c.id DESC`,
    ).all(assetId) as { id: number; text: string; raw: string; caption_len: CaptionLength; state: SuggestionView['state']; accepted_as: 'caption' | 'title' | null; run_id: number; created_at: number }[]
  )
    .filter((c) => opts.runId === undefined || c.run_id === opts.runId)
    .map((c): CaptionSuggestionView => ({
      id: c.id, text: c.text, raw: c.raw, length: c.caption_len, state: c.state, acceptedAs: c.accepted_as, runId: c.run_id, createdAt: c.created_at,
      warnings: [...checkTextLimits({ title: c.text }, 'adobe'), ...checkTextLimits({ caption: c.text }, 'shutterstock')],
      ...(fromOf(c.run_id) ? { from: fromOf(c.run_id)! } : {}),
    }));
  const errors = (
    prepared(
      ctx.db,
      `SELECT ra.run_id, ra.error FROM ai_run_assets ra JOIN ai_runs r ON r.id = ra.run_id AND r.status <> 'reverted'
       WHERE ra.asset_id = ? AND ra.state = 'failed' ORDER BY ra.run_id DESC`,
    ).all(assetId) as { run_id: number; error: string | null }[]
  ).map((e) => ({ runId: e.run_id, message: e.error ?? 'The analysis failed.' }));
  return {
    assetId, keywords, caption: asset.caption, title: asset.title, suggestions: [...byWord.values()], captions,
    check: checkKeywords(keywords, settings.limit), textWarnings: checkTextLimits(asset), errors,
  };
}

// ---- accepting keywords ------------------------------------------------------------------

/**
 * The asset's new keyword list with `picks` accepted: existing keywords first and in their
 * order; each accepted one goes before the first AI-accepted keyword with a lower score (so
 * accepted ones read strongest first even when accepted one at a time); required keywords
 * follow when missing; past the limit the weakest new ones are left pending.
 */
function mergeAccepted(
  current: string[], picks: SuggestionRow[], acceptedScores: Map<string, number>, settings: KeywordSettings, vocab: Vocabulary, addRequired: boolean,
): { list: string[]; added: SuggestionRow[]; skipped: { row: SuggestionRow; reason: 'excluded' | 'limit' | 'already_present' }[]; required: number } {
  const excluded = new Set(settings.exclude.map(lower));
  const list = [...current];
  const present = new Set(list.map(lower));
  const scores = new Map(acceptedScores);
  const added: SuggestionRow[] = [];
  const skipped: { row: SuggestionRow; reason: 'excluded' | 'limit' | 'already_present' }[] = [];
  for (const row of [...picks].sort((a, b) => b.score - a.score || a.position - b.position)) {
    const word = vocab.spell(row.keyword, settings.casing, row.lang);
    const key = lower(word);
    if (excluded.has(key)) { skipped.push({ row, reason: 'excluded' }); continue; }
    if (present.has(key)) { skipped.push({ row, reason: 'already_present' }); continue; }
    let at = list.findIndex((k) => (scores.get(lower(k)) ?? Infinity) < row.score);
    if (at < 0) at = list.length;
    list.splice(at, 0, word);
    present.add(key);
    scores.set(key, row.score);
    added.push(row);
  }
  let required = 0;
  const requiredWords: string[] = [];
  if (addRequired) {
    for (const r of settings.required) {
      const word = vocab.spell(r, 'asSent');
      if (present.has(lower(word))) continue;
      list.push(word);
      present.add(lower(word));
      requiredWords.push(word);
      required++;
    }
  }
  // Over the limit: the weakest newly accepted keywords wait (they stay pending); what the
  // user had before and the required keywords are never dropped here.
  while (list.length > settings.limit.max && added.length) {
    const weakest = added.reduce((w, r) => (r.score < w.score ? r : w));
    added.splice(added.indexOf(weakest), 1);
    const key = lower(vocab.spell(weakest.keyword, settings.casing, weakest.lang));
    list.splice(list.findIndex((k) => lower(k) === key), 1);
    skipped.push({ row: weakest, reason: 'limit' });
  }
  return { list, added, skipped, required };
}

function acceptedScoresOf(ctx: LibraryCtx, assetId: number): Map<string, number> {
  const m = new Map<string, number>();
  for (const r of prepared(ctx.db, `${SELECT_SUGGESTIONS} WHERE s.asset_id = ? AND s.state = 'accepted'`).all(assetId) as SuggestionRow[]) {
    const k = lower(r.keyword);
    m.set(k, Math.max(m.get(k) ?? 0, r.score));
  }
  return m;
}

/**
 * Accept suggestion rows (pending ones; others are ignored): one edit per run, a turn's budget
 * of photos per transaction (each photo's keywords and its suggestions' states together).
 */
async function acceptRows(ctx: LibraryCtx, rows: SuggestionRow[]): Promise<AcceptResult> {
  const result: AcceptResult = { added: 0, assetIds: [], skipped: [], required: 0 };
  const pending = rows.filter((r) => r.state === 'pending');
  if (!pending.length) return result;
  const settings = getKeywordSettings(ctx);
  const vocab = new Vocabulary(ctx);
  const changed = new Set<number>();
  const decided = new Set<number>();
  try {
    const runs = [...new Set(pending.map((r) => r.run_id))].sort((a, b) => a - b);
    for (const runId of runs) {
      const ofRun = pending.filter((r) => r.run_id === runId);
      const byAsset = new Map<number, SuggestionRow[]>();
      for (const r of ofRun) {
        const picks = byAsset.get(r.asset_id);
        if (picks) picks.push(r);
        else byAsset.set(r.asset_id, [r]);
      }
      const photos = countNoun(ctx, [...byAsset.keys()]);
      const log = new EditLogWriter(ctx, `accept suggested keywords on ${photos}`, ofRun[0].batch_id);
      let accepted = 0;
      try {
        await writeInTurns(ctx, [...byAsset], log, ([assetId, picks]) => {
          const m = mergeAccepted(getAssetKeywords(ctx.db, assetId), picks, acceptedScoresOf(ctx, assetId), settings, vocab, true);
          const acceptedHere = [...m.added];
          result.added += m.added.length;
          result.required += m.required;
          const now = Date.now();
          for (const s of m.skipped) {
            result.skipped.push({ assetId, keyword: s.row.keyword, reason: s.reason });
            // Already there: the suggestion is settled as accepted. Excluded: settled as rejected. Limit: stays pending.
            if (s.reason === 'already_present') acceptedHere.push(s.row);
            else if (s.reason === 'excluded') {
              decideSuggestion(ctx.db, { id: s.row.id, assetId, keyword: s.row.keyword }, 'rejected', now);
              decided.add(assetId);
            }
          }
          // Only these rows become 'accepted' (not the same word of other runs): revertRun keeps a
          // word another live run accepted, so each acceptance must be the user's own.
          for (const r of acceptedHere) {
            decideSuggestion(ctx.db, { id: r.id, assetId, keyword: r.keyword }, 'accepted', now);
            decided.add(assetId);
          }
          accepted += acceptedHere.length;
          return [{ assetId, field: 'keywords', value: m.list }];
        });
      } finally {
        // The edit is named by what it did once every photo is in.
        if (log.logged) log.describe(`accept ${accepted} suggested keyword${accepted === 1 ? '' : 's'} on ${photos}`);
        for (const id of log.changed) changed.add(id);
      }
    }
  } finally {
    result.assetIds = [...changed];
    if (changed.size) ctx.events.emit('libraryChanged', { reason: 'edit', assetIds: result.assetIds });
    if (decided.size) emitWorkflowEvent(ctx, 'suggestions', { runId: null, assetIds: [...decided] });
  }
  return result;
}

async function rowsByIds(ctx: LibraryCtx, ids: readonly number[]): Promise<SuggestionRow[]> {
  const get = prepared(ctx.db, `${SELECT_SUGGESTIONS} WHERE s.id = ?`);
  const rows: SuggestionRow[] = [];
  await inSteps(await distinctInSteps(ids), (chunk) => {
    for (const id of chunk) {
      const r = get.get(id) as SuggestionRow | undefined;
      if (!r) throw new ApiError('not_found', 'That suggestion is gone (its run was reverted or the photo removed). Refresh and try again.');
      rows.push(r);
    }
  }, READ_STEP);
  return rows;
}

function runFilter(runIds?: readonly number[]): (r: SuggestionRow) => boolean {
  return runIds && runIds.length ? (r) => runIds.includes(r.run_id) : () => true;
}

async function pendingOf(ctx: LibraryCtx, assetIds: readonly number[], runIds?: readonly number[]): Promise<SuggestionRow[]> {
  const q = prepared(ctx.db, `${SELECT_SUGGESTIONS} WHERE s.asset_id = ? AND s.state = 'pending' ORDER BY s.score DESC, s.position`);
  const keep = runFilter(runIds);
  const rows: SuggestionRow[] = [];
  await inSteps(await distinctInSteps(assetIds), (chunk) => {
    for (const id of chunk) rows.push(...(q.all(id) as SuggestionRow[]).filter(keep));
  }, STEP);
  return rows;
}

/** Accept suggestions by id (one, or several across assets). */
export function acceptSuggestions(ctx: LibraryCtx, suggestionIds: readonly number[]): Promise<AcceptResult> {
  return inEditLane(ctx, async () => acceptRows(ctx, await rowsByIds(ctx, suggestionIds)));
}

/** Accept every pending suggestion scoring at least `minScore` on these assets (optionally of some runs only). */
export async function acceptAbove(ctx: LibraryCtx, assetIds: readonly number[], minScore: number, opts: { runIds?: number[] } = {}): Promise<AcceptResult> {
  if (!(minScore >= 0 && minScore <= 1)) throw new ApiError('validation', 'The score is a number from 0 to 1.', 'minScore');
  return inEditLane(ctx, async () => acceptRows(ctx, (await pendingOf(ctx, assetIds, opts.runIds)).filter((r) => r.score >= minScore)));
}

/** Accept one word wherever it is suggested across a selection. */
export function acceptKeyword(ctx: LibraryCtx, assetIds: readonly number[], keyword: string, opts: { runIds?: number[] } = {}): Promise<AcceptResult> {
  const key = lower(keyword.normalize('NFC').trim());
  return inEditLane(ctx, async () => acceptRows(ctx, (await pendingOf(ctx, assetIds, opts.runIds)).filter((r) => lower(r.keyword) === key)));
}

/** Reject pending rows (and the same word's other pending rows on the photo), a turn's budget per transaction. */
async function reject(ctx: LibraryCtx, rows: SuggestionRow[]): Promise<number> {
  const pending = rows.filter((r) => r.state === 'pending');
  if (!pending.length) return 0;
  const sameWord = prepared(ctx.db, "SELECT id, keyword FROM suggestions WHERE asset_id = ? AND state = 'pending'");
  const chunk = ctx.db.transaction((from: number, more: () => boolean): number => {
    const now = Date.now();
    let i = from;
    do {
      const r = pending[i++];
      for (const o of sameWord.all(r.asset_id) as { id: number; keyword: string }[]) {
        if (lower(o.keyword) === lower(r.keyword)) decideSuggestion(ctx.db, { id: o.id, assetId: r.asset_id, keyword: o.keyword }, 'rejected', now);
      }
    } while (i < pending.length && more());
    return i;
  });
  try {
    await inTurns(pending.length, chunk);
  } finally {
    emitWorkflowEvent(ctx, 'suggestions', { runId: null, assetIds: [...new Set(pending.map((r) => r.asset_id))] });
  }
  return pending.length;
}

/** Reject suggestions by id. Returns how many were pending. Rejecting never changes an asset. */
export function rejectSuggestions(ctx: LibraryCtx, suggestionIds: readonly number[]): Promise<number> {
  return inEditLane(ctx, async () => reject(ctx, await rowsByIds(ctx, suggestionIds)));
}

/** Reject the pending suggestions of a selection: all, those below a score, or one word. */
export function rejectPending(ctx: LibraryCtx, assetIds: readonly number[], opts: { belowScore?: number; keyword?: string; runIds?: number[] } = {}): Promise<number> {
  const key = opts.keyword !== undefined ? lower(opts.keyword.normalize('NFC').trim()) : null;
  return inEditLane(ctx, async () =>
    reject(
      ctx,
      (await pendingOf(ctx, assetIds, opts.runIds)).filter((r) => (opts.belowScore === undefined || r.score < opts.belowScore) && (key === null || lower(r.keyword) === key)),
    ),
  );
}

/** Put a decided suggestion back to pending (it does not change the asset; remove the keyword by hand or revert the run for that). */
export function resetSuggestions(ctx: LibraryCtx, suggestionIds: readonly number[]): Promise<void> {
  return inEditLane(ctx, async () => {
    const rows = await rowsByIds(ctx, suggestionIds);
    const chunk = ctx.db.transaction((chunkRows: readonly SuggestionRow[]) =>
      chunkRows.forEach((r) => decideSuggestion(ctx.db, { id: r.id, assetId: r.asset_id, keyword: r.keyword }, 'pending', 0)),
    );
    try {
      await inSteps(rows, chunk, READ_STEP);
    } finally {
      emitWorkflowEvent(ctx, 'suggestions', { runId: null, assetIds: [...new Set(rows.map((r) => r.asset_id))] });
    }
  });
}

// ---- ordering ----------------------------------------------------------------------------

/** Move one keyword of an asset from index `from` to index `to` (an undoable edit). */
export function moveKeyword(ctx: LibraryCtx, assetId: number, from: number, to: number): string[] {
  liveAsset(ctx, assetId);
  const list = getAssetKeywords(ctx.db, assetId);
  if (!Number.isInteger(from) || from < 0 || from >= list.length) throw new ApiError('validation', `There is no keyword at position ${from + 1}.`, 'from');
  if (!Number.isInteger(to) || to < 0 || to >= list.length) throw new ApiError('validation', `Position ${to + 1} is past the last keyword.`, 'to');
  if (from === to) return list;
  const next = [...list];
  const [word] = next.splice(from, 1);
  next.splice(to, 0, word);
  const name = (prepared(ctx.db, 'SELECT name FROM assets WHERE id = ?').get(assetId) as { name: string }).name;
  const changed = ctx.db.transaction(() => logEdit(ctx, [{ assetId, field: 'keywords', value: next }], `move keyword ${quote(word)} on ${quote(name)}`, null))();
  if (changed.length) ctx.events.emit('libraryChanged', { reason: 'edit', assetIds: changed });
  return getAssetKeywords(ctx.db, assetId);
}

// ---- captions ----------------------------------------------------------------------------

interface CaptionRow {
  id: number;
  asset_id: number;
  run_id: number;
  text: string;
  state: SuggestionView['state'];
  batch_id: string;
}

function captionRow(ctx: LibraryCtx, id: number): CaptionRow {
  const r = prepared(
    ctx.db,
    `SELECT c.id, c.asset_id, c.run_id, c.text, c.state, r.batch_id FROM caption_suggestions c
     JOIN ai_runs r ON r.id = c.run_id AND r.status <> 'reverted' WHERE c.id = ?`,
  ).get(id) as CaptionRow | undefined;
  if (!r) throw new ApiError('not_found', 'That caption suggestion is gone (its run was reverted or the photo removed). Refresh and try again.');
  return r;
}

async function captionRows(ctx: LibraryCtx, ids: readonly number[]): Promise<CaptionRow[]> {
  const rows: CaptionRow[] = [];
  await inSteps(await distinctInSteps(ids), (chunk) => chunk.forEach((id) => rows.push(captionRow(ctx, id))), READ_STEP);
  return rows;
}

/** Edit a suggested caption before accepting it. */
export function editCaptionSuggestion(ctx: LibraryCtx, id: number, text: string): void {
  const row = captionRow(ctx, id);
  const clean = text.normalize('NFC').replace(/\s+/g, ' ').trim();
  if (!clean) throw new ApiError('validation', 'A caption cannot be empty: reject the suggestion instead.', 'text');
  editCaptionSuggestionText(ctx.db, { id: row.id, assetId: row.asset_id }, clean);
  emitWorkflowEvent(ctx, 'suggestions', { runId: row.run_id, assetIds: [row.asset_id] });
}

/**
 * Accept caption suggestions: each sets its asset's caption (or title) through the edit log
 * under its run's batch id, one edit per run, a turn's budget of photos per transaction. Other
 * pending caption suggestions of those assets are rejected (an asset has one caption).
 * Returns the assets that changed.
 */
export function acceptCaptions(ctx: LibraryCtx, ids: readonly number[], opts: { as?: 'caption' | 'title' } = {}): Promise<number[]> {
  return inEditLane(ctx, async () => {
    const field = opts.as ?? 'caption';
    const rows = (await captionRows(ctx, ids)).filter((r) => r.state === 'pending');
    const perAsset = new Map<number, CaptionRow>();
    for (const r of rows) perAsset.set(r.asset_id, r); // the last named wins for one asset
    const chosen = [...perAsset.values()];
    if (!chosen.length) return [];
    const changed = new Set<number>();
    try {
      for (const runId of [...new Set(chosen.map((r) => r.run_id))]) {
        const ofRun = chosen.filter((r) => r.run_id === runId);
        const log = new EditLogWriter(ctx, `accept the suggested ${field} of ${countNoun(ctx, ofRun.map((r) => r.asset_id))}`, ofRun[0].batch_id);
        try {
          await writeInTurns(ctx, ofRun, log, (r) => {
            acceptCaptionSuggestion(ctx.db, { id: r.id, assetId: r.asset_id }, field, Date.now());
            return [{ assetId: r.asset_id, field, value: r.text }];
          });
        } finally {
          for (const id of log.changed) changed.add(id);
        }
      }
    } finally {
      if (changed.size) ctx.events.emit('libraryChanged', { reason: 'edit', assetIds: [...changed] });
      emitWorkflowEvent(ctx, 'suggestions', { runId: null, assetIds: chosen.map((r) => r.asset_id) });
    }
    return [...changed];
  });
}

export function rejectCaptions(ctx: LibraryCtx, ids: readonly number[]): Promise<number> {
  return inEditLane(ctx, async () => {
    const rows = (await captionRows(ctx, ids)).filter((r) => r.state === 'pending');
    const chunk = ctx.db.transaction((chunkRows: readonly CaptionRow[]) => chunkRows.forEach((r) => rejectCaptionSuggestion(ctx.db, { id: r.id, assetId: r.asset_id }, Date.now())));
    try {
      await inSteps(rows, chunk, READ_STEP);
    } finally {
      if (rows.length) emitWorkflowEvent(ctx, 'suggestions', { runId: null, assetIds: rows.map((r) => r.asset_id) });
    }
    return rows.length;
  });
}

/** Pending caption suggestions of a selection (the latest per asset), for "accept all captions". */
export async function pendingCaptionIds(ctx: LibraryCtx, assetIds: readonly number[], opts: { runIds?: number[] } = {}): Promise<number[]> {
  const q = prepared(
    ctx.db,
    `SELECT c.id, c.run_id FROM caption_suggestions c JOIN ai_runs r ON r.id = c.run_id AND r.status <> 'reverted'
     WHERE c.asset_id = ? AND c.state = 'pending' ORDER BY c.id DESC`,
  );
  const out: number[] = [];
  await inSteps(await distinctInSteps(assetIds), (chunk) => {
    for (const id of chunk) {
      const rows = (q.all(id) as { id: number; run_id: number }[]).filter((r) => !opts.runIds?.length || opts.runIds.includes(r.run_id));
      if (rows.length) out.push(rows[0].id);
    }
  }, READ_STEP);
  return out;
}
