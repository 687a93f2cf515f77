import { describeEdits, isNewestOpenEdit, logFieldChanges, openEdit } from '../catalogue/edit-log';
import type { LibraryCtx } from './context';

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
    if (last === undefined || !isNewestOpenEdit(this.ctx.db, last)) this.rows.push(openEdit(this.ctx.db, this.description, this.batchId));
    return this.rows.at(-1)!;
  }

  /** Log a chunk's changes (inside its transaction), in the edit log and the change log; nothing changed, nothing logged. */
  add(changes: readonly LoggedChange[]): void {
    if (!changes.length) return;
    logFieldChanges(this.ctx.db, this.row(), changes);
    for (const c of changes) this.changed.add(c.assetId);
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
    describeEdits(this.ctx.db, this.rows, description);
  }

  /** Tell listeners which assets changed (after the last chunk, or after a chunk failed). */
  announce(): void {
    if (this.changed.size) this.ctx.events.emit('libraryChanged', { reason: 'edit', assetIds: [...this.changed] });
  }
}
