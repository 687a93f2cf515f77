import { access } from 'node:fs/promises';
import { notFound } from '../core/errors';
import { assetPath, getAssetRow } from '../library/assets';
import type { LibraryCtx } from '../library/context';
import { FIELD_NAMES, sameField, type FieldName } from './managed-fields';
import { fieldsFromTags } from './fields';
import { readTags } from './file-writer';
import { getFileSnapshot, libraryFields } from './file-state';
import { targetsFor } from './targets';

// What a batch write would change, per asset and field, before anything is written.

export interface FieldChange {
  assetId: number;
  /** The file (or sidecar) that would change. */
  path: string;
  field: FieldName;
  fileValue: unknown;
  libraryValue: unknown;
}

export interface PreviewProblem {
  assetId: number;
  path: string | null;
  reason: string;
}

export interface PreviewResult {
  changes: FieldChange[];
  /** Assets whose file could not be read (the write would fail the same way). */
  problems: PreviewProblem[];
}

/** Read each asset's file(s) and list the fields whose library value differs. Reads only. */
export async function previewWrite(ctx: LibraryCtx, assetIds: readonly number[]): Promise<PreviewResult> {
  const out: PreviewResult = { changes: [], problems: [] };
  for (const assetId of assetIds) {
    const row = getAssetRow(ctx, assetId);
    if (!row) throw notFound('That photo');
    const desired = libraryFields(ctx, assetId, getFileSnapshot(ctx, assetId));
    if (!desired) throw notFound('That photo');
    if (row.online !== 1) {
      out.problems.push({ assetId, path: null, reason: 'The folder holding this file is offline.' });
      continue;
    }
    for (const target of await targetsFor(assetPath(row))) {
      let tags: Record<string, unknown> = {};
      try {
        const exists = target.role === 'file' || (await access(target.path).then(() => true, () => false));
        if (exists) {
          tags = await readTags(target.path);
        }
      } catch (e) {
        out.problems.push({ assetId, path: target.path, reason: `The file's metadata could not be read: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}` });
        continue;
      }
      const file = fieldsFromTags(tags);
      for (const field of FIELD_NAMES) {
        const want = desired[field];
        if (want === undefined || sameField(field, file[field], want)) continue;
        out.changes.push({ assetId, path: target.path, field, fileValue: file[field], libraryValue: want });
      }
    }
  }
  return out;
}
