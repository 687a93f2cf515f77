import { format, parse, receive } from './hlc';
import { stmt, type Db } from './statements';

// Changes made on other machines of a studio, as this catalogue records them: under their own
// device, sequence and clock time (so a change pulled twice is recognised, and "the latest edit
// wins" compares the same times on every replica), on no edit of this library's undo stack.

/** A change another device made, as the studio's log hands it over. */
export interface RemoteChange {
  device: string;
  seq: number;
  hlc: string;
  op: string;
  assetId: number | null;
  field: string | null;
  value: unknown;
  undo: boolean;
}

/** Whether this catalogue already holds the change (device + sequence). */
export function hasChange(db: Db, device: string, seq: number): boolean {
  return stmt(db, 'SELECT 1 FROM change_log WHERE device = ? AND seq = ?').get(device, seq) !== undefined;
}

/**
 * The newest time this catalogue knows for an asset's field (for keywords, of one keyword: its
 * adds and removes; a change of the list's order alone does not decide whether it is there),
 * or null when it knows none.
 */
export function newestTime(db: Db, assetId: number, field: string, keyword?: string): string | null {
  if (keyword === undefined) return stmt(db, 'SELECT max(hlc) FROM change_log WHERE asset_id = ? AND field = ?').pluck().get(assetId, field) as string | null;
  return stmt(db, "SELECT max(hlc) FROM change_log WHERE asset_id = ? AND field = ? AND op IN ('add', 'remove') AND value = ?").pluck().get(assetId, field, JSON.stringify(keyword)) as string | null;
}

/**
 * Record another device's change (inside the transaction that applied it) and move this
 * library's clock past its time, so the next local edit is later than everything seen.
 */
export function recordRemote(db: Db, c: RemoteChange, wallMs = Date.now()): void {
  stmt(
    db,
    `INSERT INTO change_log (device, seq, hlc, op, field, value, edit_id, undo, asset_id, asset_folder, asset_path, asset_hash)
     SELECT ?, ?, ?, ?, ?, ?, NULL, ?, x.id, f.path, a.rel_path, a.content_hash
     FROM (SELECT ? AS id) x LEFT JOIN assets a ON a.id = x.id LEFT JOIN folders f ON f.id = a.folder_id`,
  ).run(c.device, c.seq, c.hlc, c.op, c.field, c.value === undefined ? null : JSON.stringify(c.value), c.undo ? 1 : 0, c.assetId);
  const clock = stmt(db, 'SELECT hlc FROM catalogue_clock WHERE id = 1').pluck().get() as string;
  stmt(db, 'UPDATE catalogue_clock SET hlc = ? WHERE id = 1').run(format(receive(parse(clock), parse(c.hlc), wallMs)));
}
