import { recordOperations } from './change-log';
import { stmt, type Db } from './statements';

// Metadata presets (templates), saved and deleted through the door: each recorded in the change
// log as preset.save / preset.delete.

/** Create or replace (by name, case-insensitively) a preset; `fields` is what it holds. */
export function savePresetRow(db: Db, name: string, fields: Record<string, unknown>): void {
  db.transaction(() => {
    stmt(
      db,
      `INSERT INTO metadata_presets (name, fields, updated_at) VALUES (?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET name = excluded.name, fields = excluded.fields, updated_at = excluded.updated_at`,
    ).run(name, JSON.stringify(fields), Date.now());
    recordOperations(db, null, [{ op: 'preset.save', value: { name, fields } }]);
  })();
}

/** Delete a preset; false when there is none with that id. */
export function deletePresetRow(db: Db, id: number): boolean {
  return db.transaction(() => {
    const name = stmt(db, 'DELETE FROM metadata_presets WHERE id = ? RETURNING name').pluck().get(id) as string | undefined;
    if (name === undefined) return false;
    recordOperations(db, null, [{ op: 'preset.delete', value: { id, name } }]);
    return true;
  })();
}

/** A preset another member of the studio saved, as they saved it (the caller records their change). */
export function putPresetRow(db: Db, name: string, fields: Record<string, unknown>): void {
  stmt(
    db,
    `INSERT INTO metadata_presets (name, fields, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (name) DO UPDATE SET name = excluded.name, fields = excluded.fields, updated_at = excluded.updated_at`,
  ).run(name, JSON.stringify(fields), Date.now());
}

/** A preset another member of the studio deleted, by its name (the caller records their change); false when none is here. */
export function dropPresetByName(db: Db, name: string): boolean {
  return stmt(db, 'DELETE FROM metadata_presets WHERE name = ?').run(name).changes > 0;
}
