import type { AgencyId } from '../../src-preload/contract';
import type { LibraryCtx } from '../library/context';
import { agencyProfile } from './agencies';
import { checkAssets } from './agency-check';
import { csvText } from './csv';

export interface CsvExport {
  csv: string;
  rows: number;
  /** Per asset, the agency check's verdict; failing ones are left out unless forced. */
  assets: { assetId: number; path: string; ok: boolean; problems: string[]; included: boolean }[];
}

/**
 * The agency CSV for these assets, keywords in their order, after the agency check: a photo
 * that fails it is held back unless `force` (the CLI's --force, the app's override). Shared
 * by the Api and the CLI.
 */
export async function buildAgencyCsv(ctx: LibraryCtx, ids: readonly number[], agency: AgencyId, opts: { force?: boolean } = {}): Promise<CsvExport> {
  const profile = agencyProfile(agency);
  if (!profile.csv) throw new Error(`${profile.name} documents no metadata CSV that Tagsmith could write.`);
  const checked = await checkAssets(ctx, ids, agency);
  const assets = checked.map((c) => ({ assetId: c.assetId, path: c.path, ok: c.ok, problems: c.problems, included: c.ok || opts.force === true }));
  const rows = checked.filter((c, i) => assets[i].included).map((c) => profile.csv!.cells(c.row));
  return { csv: csvText(profile.csv.header, rows), rows: rows.length, assets };
}
