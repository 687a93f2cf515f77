import type { LibraryCtx } from './context';
import { prepared } from './db';

/** One change of one asset's field, as the edit log keeps it (values as JSON). */
export interface LoggedChange {
  assetId: number;
  field: string;
  old: unknown;
  new: unknown;
}

/**
 * The log of ONE edit written a chunk of assets at a time (each chunk its own transaction):
 * `add` runs inside a chunk's transaction. The edits row is made at the first change and the
 * next chunks join it while it is still the newest entry of the log and not undone; when
 * anything else was logged (or undone) meanwhile, the rest of the edit gets a new row with the
 * same description. Each asset's changes so stay in the log's order, and undo (newest first)
 * puts every asset back exactly, whatever ran between the chunks.
 */
export class EditLogWriter {
  /** The assets whose values changed, for the libraryChanged event once the edit is done. */
  readonly changed = new Set<number>();
  private readonly rows: number[] = [];

  constructor(
    private readonly ctx: LibraryCtx,
    private description: string,
    private readonly batchId: string | null = null,
  ) {}

  /** The edit's current row, made or renewed as above (inside the caller's transaction). */
  row(): number {
    const last = this.rows.at(-1);
    if (last === undefined || !prepared(this.ctx.db, 'SELECT 1 FROM edits WHERE id = ? AND undone = 0 AND id = (SELECT max(id) FROM edits)').get(last)) {
      const id = prepared(this.ctx.db, 'INSERT INTO edits (at, description, batch_id) VALUES (?, ?, ?)').run(Date.now(), this.description, this.batchId).lastInsertRowid;
      this.rows.push(Number(id));
    }
    return this.rows.at(-1)!;
  }

  /** Log a chunk's changes (inside its transaction); nothing changed, nothing logged. */
  add(changes: readonly LoggedChange[]): void {
    if (!changes.length) return;
    const editId = this.row();
    const log = prepared(this.ctx.db, 'INSERT INTO edit_changes (edit_id, asset_id, field, old_value, new_value) VALUES (?, ?, ?, ?, ?)');
    for (const c of changes) {
      log.run(editId, c.assetId, c.field, JSON.stringify(c.old), JSON.stringify(c.new));
      this.changed.add(c.assetId);
    }
  }

  /** The first row of the edit, when any was made (a library change goes with it). */
  firstRow(): number | null {
    return this.rows[0] ?? null;
  }

  /** Whether any row was made. */
  get logged(): boolean {
    return this.rows.length > 0;
  }

  /** Name the edit once every chunk is in, when its description counts what it did. */
  describe(description: string): void {
    this.description = description;
    const rename = prepared(this.ctx.db, 'UPDATE edits SET description = ? WHERE id = ?');
    for (const id of this.rows) rename.run(description, id);
  }

  /** Tell listeners which assets changed (after the last chunk, or after a chunk failed). */
  announce(): void {
    if (this.changed.size) this.ctx.events.emit('libraryChanged', { reason: 'edit', assetIds: [...this.changed] });
  }
}
