import { basename } from 'node:path';
import type { LibraryCtx } from '../library/context';
import { getAssetRow } from '../library/assets';
import { getAssetKeywords } from '../library/keywords';
import { checkKeywords, checkTextLimits, LIMIT_PRESETS } from './stock-limits';
import { exportCsv, type Agency, type CsvRow } from './csv';

export interface CsvExport {
  csv: string;
  rows: number;
  /** Per asset, what the agency would object to (count, title or description length). */
  assets: { assetId: number; warnings: string[] }[];
}

/** The agency CSV for these assets, keywords in their order, with the agency's checks. Shared by the Api and the CLI. */
export function buildAgencyCsv(ctx: LibraryCtx, ids: readonly number[], agency: Agency): CsvExport {
  const rows: CsvRow[] = [];
  const assets: CsvExport['assets'] = [];
  for (const id of ids) {
    const row = getAssetRow(ctx, id);
    if (!row) continue;
    const keywords = getAssetKeywords(ctx.db, id);
    rows.push({ filename: basename(row.rel_path), title: row.title, description: row.caption, keywords });
    const warnings = [
      ...checkKeywords(keywords, LIMIT_PRESETS[agency]).warnings,
      ...checkTextLimits({ title: row.title, caption: row.caption }, agency).map((w) => w.message),
    ];
    assets.push({ assetId: id, warnings });
  }
  return { csv: exportCsv(rows, agency), rows: rows.length, assets };
}
