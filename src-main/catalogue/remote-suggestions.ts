import { stmt, type Db } from './statements';

// AI suggestions awaiting review, as another replica of the studio made or decided them: a
// keyword or caption suggestion made on one machine is there to review on every machine, and
// accepting, rejecting or putting it back on one settles it on all. A suggestion is named by its
// run's batch id (the same everywhere) and its photo, and a keyword suggestion by its keyword
// too. Decisions of one suggestion take the latest by the clock, as a scalar field does (what
// an acceptance does to the photo's keywords or caption is an edit of its own, synced as such).
// A suggestion holds a keyword or a caption, its score and language: nothing that identifies
// a person (faces and ages stay on each machine; analysis.* changes are not applied here).

export const SUGGESTION_OPS: ReadonlySet<string> = new Set(['suggestion.add', 'suggestion.accept', 'suggestion.reject', 'suggestion.reset', 'caption.add', 'caption.accept', 'caption.reject', 'caption.edit']);

type Outcome = 'applied' | 'older' | 'not_here' | 'not_yet';
type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);
const STATE = { 'suggestion.accept': 'accepted', 'suggestion.reject': 'rejected', 'suggestion.reset': 'pending', 'caption.accept': 'accepted', 'caption.reject': 'rejected' } as const;

/** This library's row of the studio's run `batch` (made, as a finished run, when a suggestion of it first arrives). */
function runOf(db: Db, batch: string, kind: 'keywords' | 'caption', lang: string | null): number {
  stmt(db, "INSERT INTO ai_runs (kind, params, params_key, lang, created_at, batch_id, status) VALUES (?, '{}', ?, ?, ?, ?, 'done') ON CONFLICT (batch_id) DO NOTHING").run(kind, `studio:${batch}`, lang, Date.now(), batch);
  return stmt(db, 'SELECT id FROM ai_runs WHERE batch_id = ?').pluck().get(batch) as number;
}

/** The newest time this library knows of these changes of one suggestion (by batch, and keyword for a keyword suggestion). */
function newest(db: Db, after: number, assetId: number, ops: readonly string[], batch: string, keyword: string | null): string | null {
  return stmt(
    db,
    `SELECT max(hlc) FROM change_log WHERE asset_id = ? AND op IN (${ops.map(() => '?').join(', ')}) AND position > ?
       AND json_extract(value, '$.batch') = ? AND (? IS NULL OR json_extract(value, '$.keyword') = ?)`,
  )
    .pluck()
    .get(assetId, ...ops, after, batch, keyword, keyword) as string | null;
}

/** Apply another replica's suggestion change to photo `assetId` (inside the batch's transaction). */
export function applySuggestion(db: Db, c: { op: string; hlc: string; value: unknown }, assetId: number, after: number): Outcome {
  const v = obj(c.value);
  const batch = str(v.batch);
  // A change recorded before suggestions named their run's batch cannot be matched here.
  if (!batch) return 'not_yet';
  if (c.op === 'suggestion.add') {
    const lang = str(v.lang) ?? 'en';
    const run = runOf(db, batch, 'keywords', lang);
    const insert = stmt(db, 'INSERT INTO suggestions (asset_id, run_id, keyword, raw, lang, score, position) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (run_id, asset_id, keyword) DO NOTHING');
    let any = false;
    for (const [i, k] of (Array.isArray(v.keywords) ? v.keywords : []).map(obj).entries()) {
      const keyword = str(k.keyword);
      if (!keyword || typeof k.score !== 'number') continue;
      any = insert.run(assetId, run, keyword, str(k.raw) ?? keyword, lang, k.score, typeof k.position === 'number' ? k.position : i).changes > 0 || any;
    }
    return any ? 'applied' : 'older';
  }
  if (c.op === 'caption.add') {
    const text = str(v.text);
    if (text === null) return 'not_yet';
    const run = runOf(db, batch, 'caption', null);
    const added = stmt(db, 'INSERT INTO caption_suggestions (asset_id, run_id, text, raw, caption_len) VALUES (?, ?, ?, ?, ?) ON CONFLICT (run_id, asset_id) DO NOTHING').run(assetId, run, text, str(v.raw) ?? text, str(v.length) ?? 'short').changes;
    return added ? 'applied' : 'older';
  }
  const run = stmt(db, 'SELECT id FROM ai_runs WHERE batch_id = ?').pluck().get(batch) as number | undefined;
  if (run === undefined) return 'not_here';
  if (c.op.startsWith('suggestion.')) {
    const keyword = str(v.keyword);
    if (!keyword) return 'not_yet';
    const t = newest(db, after, assetId, ['suggestion.accept', 'suggestion.reject', 'suggestion.reset'], batch, keyword);
    if (t !== null && t > c.hlc) return 'older';
    const state: string | undefined = STATE[c.op as keyof typeof STATE];
    if (!state) return 'not_yet';
    const changed = stmt(db, 'UPDATE suggestions SET state = ?, decided_at = ? WHERE run_id = ? AND asset_id = ? AND keyword = ?').run(state, state === 'pending' ? null : Date.now(), run, assetId, keyword).changes;
    return changed ? 'applied' : 'not_here';
  }
  if (c.op === 'caption.edit') {
    const text = str(v.text);
    if (text === null) return 'not_yet';
    const t = newest(db, after, assetId, ['caption.edit'], batch, null);
    if (t !== null && t > c.hlc) return 'older';
    return stmt(db, 'UPDATE caption_suggestions SET text = ? WHERE run_id = ? AND asset_id = ?').run(text, run, assetId).changes ? 'applied' : 'not_here';
  }
  const state: string | undefined = STATE[c.op as keyof typeof STATE];
  if (!state) return 'not_yet';
  const t = newest(db, after, assetId, ['caption.accept', 'caption.reject'], batch, null);
  if (t !== null && t > c.hlc) return 'older';
  const as = c.op === 'caption.accept' && (v.as === 'caption' || v.as === 'title') ? v.as : null;
  const changed = stmt(db, 'UPDATE caption_suggestions SET state = ?, accepted_as = ?, decided_at = ? WHERE run_id = ? AND asset_id = ?').run(state, as, Date.now(), run, assetId).changes;
  return changed ? 'applied' : 'not_here';
}
