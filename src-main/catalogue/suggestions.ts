import { recordOperations } from './change-log';
import { stmt, type Db } from './statements';

// The review of AI suggestions, through the door: a keyword or caption suggestion accepted,
// rejected or put back to pending, and a suggested caption edited, each recorded in the change
// log (suggestion.accept | suggestion.reject | suggestion.reset | caption.accept |
// caption.reject | caption.edit) on its asset. What an acceptance does to the asset (its
// keywords, caption or title) is an edit of its own (edit-log.ts).

type Decision = 'accepted' | 'rejected' | 'pending';
const OP = { accepted: 'suggestion.accept', rejected: 'suggestion.reject', pending: 'suggestion.reset' } as const;

/** Decide a keyword suggestion (inside the caller's transaction). `pending` only puts back a rejected one. */
export function decideSuggestion(db: Db, s: { id: number; assetId: number; keyword: string }, state: Decision, at: number): void {
  const changed =
    state === 'pending'
      ? stmt(db, "UPDATE suggestions SET state = 'pending', decided_at = NULL WHERE id = ? AND state = 'rejected'").run(s.id).changes
      : stmt(db, 'UPDATE suggestions SET state = ?, decided_at = ? WHERE id = ?').run(state, at, s.id).changes;
  if (changed) recordOperations(db, null, [{ op: OP[state], assetId: s.assetId, field: 'suggestions', value: { suggestion: s.id, keyword: s.keyword } }]);
}

/** Accept a caption suggestion as the caption or title; the asset's other pending ones are rejected (it has one caption). */
export function acceptCaptionSuggestion(db: Db, s: { id: number; assetId: number }, as: 'caption' | 'title', at: number): void {
  stmt(db, "UPDATE caption_suggestions SET state = 'accepted', accepted_as = ?, decided_at = ? WHERE id = ?").run(as, at, s.id);
  const others = stmt(db, "UPDATE caption_suggestions SET state = 'rejected', decided_at = ? WHERE asset_id = ? AND state = 'pending' AND id <> ? RETURNING id")
    .pluck()
    .all(at, s.assetId, s.id) as number[];
  recordOperations(db, null, [
    { op: 'caption.accept', assetId: s.assetId, field: 'caption_suggestions', value: { suggestion: s.id, as } },
    ...others.map((id) => ({ op: 'caption.reject' as const, assetId: s.assetId, field: 'caption_suggestions', value: { suggestion: id } })),
  ]);
}

/** Reject a caption suggestion. */
export function rejectCaptionSuggestion(db: Db, s: { id: number; assetId: number }, at: number): void {
  stmt(db, "UPDATE caption_suggestions SET state = 'rejected', decided_at = ? WHERE id = ?").run(at, s.id);
  recordOperations(db, null, [{ op: 'caption.reject', assetId: s.assetId, field: 'caption_suggestions', value: { suggestion: s.id } }]);
}

/** Change a suggested caption's text before it is accepted. */
export function editCaptionSuggestionText(db: Db, s: { id: number; assetId: number }, text: string): void {
  db.transaction(() => {
    stmt(db, 'UPDATE caption_suggestions SET text = ? WHERE id = ?').run(text, s.id);
    recordOperations(db, null, [{ op: 'caption.edit', assetId: s.assetId, field: 'caption_suggestions', value: { suggestion: s.id, text } }]);
  })();
}
