import type { MetadataPreset, RightsFields } from '../../src-preload/contract';
import { deletePresetRow, savePresetRow } from '../catalogue/presets';
import { ApiError } from '../core/errors';
import type { LibraryCtx } from './context';
import { RIGHTS_FIELDS, setRightsFields } from './edits';
import { prepared } from './db';
import { EXTENDED_FIELDS } from '../metadata/extended-fields';
import { cleanKeywordList } from './keywords';

// Named metadata templates (the "IPTC templates" of Lightroom and digiKam): the IPTC Core /
// Extension fields a photographer puts on every picture of a shoot (rights, creator contact
// info, usage terms, locations, ...) and keywords to add, applied in one undoable step.
// Stored as one JSON object (migration 009): the fields, and `keywords` as a list.

const TEMPLATE_FIELDS = [...RIGHTS_FIELDS, ...EXTENDED_FIELDS] as const;
type TemplateField = (typeof TEMPLATE_FIELDS)[number];

function parseStored(json: string): { fields: RightsFields; keywords: string[] } {
  const raw = JSON.parse(json) as Record<string, unknown>;
  const fields: RightsFields = {};
  for (const f of TEMPLATE_FIELDS) if (typeof raw[f] === 'string') fields[f] = raw[f];
  const keywords = Array.isArray(raw.keywords) ? cleanKeywordList(raw.keywords.filter((k): k is string => typeof k === 'string')) : [];
  return { fields, keywords };
}

export function listPresets(ctx: LibraryCtx): MetadataPreset[] {
  const rows = prepared(ctx.db, 'SELECT id, name, fields, updated_at FROM metadata_presets ORDER BY name COLLATE NOCASE').all() as {
    id: number;
    name: string;
    fields: string;
    updated_at: number;
  }[];
  return rows.map((r) => ({ id: r.id, name: r.name, ...parseStored(r.fields), updatedAt: r.updated_at }));
}

/** Create or replace (by name, case-insensitively) a template. Empty fields are left out. */
export function savePreset(ctx: LibraryCtx, name: string, fields: RightsFields, keywords: readonly string[] = []): MetadataPreset {
  const clean = name.normalize('NFC').trim();
  if (!clean) throw new ApiError('validation', 'Give the preset a name.', 'name');
  const kept: Partial<Record<TemplateField, string>> & { keywords?: string[] } = {};
  for (const f of TEMPLATE_FIELDS) {
    const v = fields[f]?.normalize('NFC').trim();
    if (v) kept[f] = v;
  }
  const words = cleanKeywordList(keywords);
  if (words.length) kept.keywords = words;
  if (!Object.keys(kept).length) throw new ApiError('validation', 'A preset needs at least one field (for example the copyright) or a keyword to add.', 'fields');
  savePresetRow(ctx.db, clean, kept);
  return listPresets(ctx).find((p) => p.name.toLocaleLowerCase() === clean.toLocaleLowerCase())!;
}

export function deletePreset(ctx: LibraryCtx, id: number): void {
  if (!deletePresetRow(ctx.db, id)) throw new ApiError('not_found', 'That preset no longer exists.');
}

/**
 * Put the template's fields on the assets and add its keywords, as ONE undoable edit (fields
 * the template leaves out are kept; keywords are only added).
 */
export async function applyPreset(ctx: LibraryCtx, id: number, assetIds: number[]): Promise<void> {
  const preset = listPresets(ctx).find((p) => p.id === id);
  if (!preset) throw new ApiError('not_found', 'That preset no longer exists.');
  const n = assetIds.length;
  return setRightsFields(ctx, assetIds, preset.fields, `apply the preset “${preset.name}” to ${n} item${n === 1 ? '' : 's'}`, preset.keywords);
}
