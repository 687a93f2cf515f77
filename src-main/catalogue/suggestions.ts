import { recordOperations } from './change-log';
import { stmt, type Db } from './statements';

// AI suggestions, through the door: what a run suggests, and its review (a keyword or caption
// suggestion accepted, rejected or put back to pending, a suggested caption edited), each
// recorded in the change log on its asset (suggestion.add | caption.add | suggestion.accept |
// suggestion.reject | suggestion.reset | caption.accept | caption.reject | caption.edit). What an acceptance does to the asset (its
// keywords, caption or title) is an edit of its own (edit-log.ts).

type Decision = 'accepted' | 'rejected' | 'pending';

/**
 * The run a suggestion came from, by its batch id: the same on every replica of a studio (the
 * run's row id is this library's own), so another replica finds the suggestion it names.
 */
function batchOf(db: Db, table: 'suggestions' | 'caption_suggestions', id: number): string | null {
  return (stmt(db, `SELECT r.batch_id FROM ${table} s JOIN ai_runs r ON r.id = s.run_id WHERE s.id = ?`).pluck().get(id) as string | undefined) ?? null;
}
const OP = { accepted: 'suggestion.accept', rejected: 'suggestion.reject', pending: 'suggestion.reset' } as const;

/** Decide a keyword suggestion (inside the caller's transaction). `pending` only puts back a rejected one. */
export function decideSuggestion(db: Db, s: { id: number; assetId: number; keyword: string }, state: Decision, at: number): void {
  const changed =
    state === 'pending'
      ? stmt(db, "UPDATE suggestions SET state = 'pending', decided_at = NULL WHERE id = ? AND state = 'rejected'").run(s.id).changes
      : stmt(db, 'UPDATE suggestions SET state = ?, decided_at = ? WHERE id = ?').run(state, at, s.id).changes;
  if (changed) recordOperations(db, null, [{ op: OP[state], assetId: s.assetId, field: 'suggestions', value: { suggestion: s.id, keyword: s.keyword, batch: batchOf(db, 'suggestions', s.id) } }]);
}

/** Accept a caption suggestion as the caption or title; the asset's other pending ones are rejected (it has one caption). */
export function acceptCaptionSuggestion(db: Db, s: { id: number; assetId: number }, as: 'caption' | 'title', at: number): void {
  stmt(db, "UPDATE caption_suggestions SET state = 'accepted', accepted_as = ?, decided_at = ? WHERE id = ?").run(as, at, s.id);
  const others = stmt(db, "UPDATE caption_suggestions SET state = 'rejected', decided_at = ? WHERE asset_id = ? AND state = 'pending' AND id <> ? RETURNING id")
    .pluck()
    .all(at, s.assetId, s.id) as number[];
  recordOperations(db, null, [
    { op: 'caption.accept', assetId: s.assetId, field: 'caption_suggestions', value: { suggestion: s.id, as, batch: batchOf(db, 'caption_suggestions', s.id) } },
    ...others.map((id) => ({ op: 'caption.reject' as const, assetId: s.assetId, field: 'caption_suggestions', value: { suggestion: id, batch: batchOf(db, 'caption_suggestions', id) } })),
  ]);
}

/** Reject a caption suggestion. */
export function rejectCaptionSuggestion(db: Db, s: { id: number; assetId: number }, at: number): void {
  stmt(db, "UPDATE caption_suggestions SET state = 'rejected', decided_at = ? WHERE id = ?").run(at, s.id);
  recordOperations(db, null, [{ op: 'caption.reject', assetId: s.assetId, field: 'caption_suggestions', value: { suggestion: s.id, batch: batchOf(db, 'caption_suggestions', s.id) } }]);
}

/** Change a suggested caption's text before it is accepted. */
export function editCaptionSuggestionText(db: Db, s: { id: number; assetId: number }, text: string): void {
  db.transaction(() => {
    stmt(db, 'UPDATE caption_suggestions SET text = ? WHERE id = ?').run(text, s.id);
    recordOperations(db, null, [{ op: 'caption.edit', assetId: s.assetId, field: 'caption_suggestions', value: { suggestion: s.id, text, batch: batchOf(db, 'caption_suggestions', s.id) } }]);
  })();
}

/** A keyword an AI run suggests for a photo, as stored (spelled as the library spells it; `raw` as the service said it). */
export interface KeywordSuggestion {
  keyword: string;
  raw: string;
  score: number;
  position: number;
}

/**
 * Store what a keyword run suggests for a photo (inside the caller's transaction); a suggestion
 * already stored for that run and photo is kept (collecting a job twice adds nothing). The new
 * ones are recorded as one suggestion.add on the photo.
 */
export function addKeywordSuggestions(db: Db, to: { assetId: number; runId: number; lang: string }, list: readonly KeywordSuggestion[]): void {
  const insert = stmt(
    db,
    `INSERT INTO suggestions (asset_id, run_id, keyword, raw, lang, score, position) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (run_id, asset_id, keyword) DO NOTHING`,
  );
  const added: Array<{ keyword: string; score: number; raw: string; position: number }> = [];
  for (const k of list) {
    if (insert.run(to.assetId, to.runId, k.keyword, k.raw, to.lang, k.score, k.position).changes) added.push({ keyword: k.keyword, score: k.score, raw: k.raw, position: k.position });
  }
  const batch = stmt(db, 'SELECT batch_id FROM ai_runs WHERE id = ?').pluck().get(to.runId) as string | undefined;
  if (added.length) recordOperations(db, null, [{ op: 'suggestion.add', assetId: to.assetId, field: 'suggestions', value: { run: to.runId, batch: batch ?? null, lang: to.lang, keywords: added } }]);
}

/** Store the caption a caption run suggests for a photo (inside the caller's transaction), recorded as a caption.add; one already stored for that run is kept. */
export function addCaptionSuggestion(db: Db, to: { assetId: number; runId: number }, text: string, raw: string, length: string): void {
  const id = stmt(
    db,
    `INSERT INTO caption_suggestions (asset_id, run_id, text, raw, caption_len) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (run_id, asset_id) DO NOTHING RETURNING id`,
  )
    .pluck()
    .get(to.assetId, to.runId, text, raw, length) as number | undefined;
  if (id !== undefined) recordOperations(db, null, [{ op: 'caption.add', assetId: to.assetId, field: 'caption_suggestions', value: { suggestion: id, run: to.runId, batch: (stmt(db, 'SELECT batch_id FROM ai_runs WHERE id = ?').pluck().get(to.runId) as string | undefined) ?? null, text, raw, length } }]);
}
