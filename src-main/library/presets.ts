import type { MetadataPreset, RightsFields } from '../../src-preload/contract';
import { ApiError } from '../core/errors';
import type { LibraryCtx } from './context';
import { RIGHTS_FIELDS, setRightsFields } from './edits';
import { prepared } from './db';

// Named metadata presets (the "IPTC templates" of Lightroom and digiKam): the stock and
// rights fields a photographer puts on every picture of a shoot, applied in one step.

function parseFields(json: string): RightsFields {
  const raw = JSON.parse(json) as Record<string, unknown>;
  const out: RightsFields = {};
  for (const f of RIGHTS_FIELDS) if (typeof raw[f] === 'string') out[f] = raw[f];
  return out;
}

export function listPresets(ctx: LibraryCtx): MetadataPreset[] {
  const rows = prepared(ctx.db, 'SELECT id, name, fields, updated_at FROM metadata_presets ORDER BY name COLLATE NOCASE').all() as {
    id: number;
    name: string;
    fields: string;
    updated_at: number;
  }[];
  return rows.map((r) => ({ id: r.id, name: r.name, fields: parseFields(r.fields), updatedAt: r.updated_at }));
}

/** Create or replace (by name, case-insensitively) a preset. Empty fields are left out. */
export function savePreset(ctx: LibraryCtx, name: string, fields: RightsFields): MetadataPreset {
  const clean = name.normalize('NFC').trim();
  if (!clean) throw new ApiError('validation', 'Give the preset a name.', 'name');
  const kept: RightsFields = {};
  for (const f of RIGHTS_FIELDS) {
    const v = fields[f]?.normalize('NFC').trim();
    if (v) kept[f] = v;
  }
  if (!Object.keys(kept).length) throw new ApiError('validation', 'A preset needs at least one field (for example the copyright).', 'fields');
  prepared(
    ctx.db,
    `INSERT INTO metadata_presets (name, fields, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (name) DO UPDATE SET name = excluded.name, fields = excluded.fields, updated_at = excluded.updated_at`,
  ).run(clean, JSON.stringify(kept), Date.now());
  return listPresets(ctx).find((p) => p.name.toLocaleLowerCase() === clean.toLocaleLowerCase())!;
}

export function deletePreset(ctx: LibraryCtx, id: number): void {
  const info = prepared(ctx.db, 'DELETE FROM metadata_presets WHERE id = ?').run(id);
  if (info.changes === 0) throw new ApiError('not_found', 'That preset no longer exists.');
}

/** Put the preset's fields on the assets as one undoable edit (fields the preset leaves out are kept). */
export function applyPreset(ctx: LibraryCtx, id: number, assetIds: number[]): void {
  const preset = listPresets(ctx).find((p) => p.id === id);
  if (!preset) throw new ApiError('not_found', 'That preset no longer exists.');
  const n = assetIds.length;
  setRightsFields(ctx, assetIds, preset.fields, `apply the preset “${preset.name}” to ${n} item${n === 1 ? '' : 's'}`);
}
