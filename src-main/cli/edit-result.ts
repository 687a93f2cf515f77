import type { LibraryCtx } from '../library/context';
import { cliAsset, humanAsset, type CliAsset } from './asset-json';
import type { Output } from './output';

/**
 * Run an edit and print `{updated, assets}`: `updated` counts the assets whose values
 * actually changed, `assets` shows every named asset after the change.
 */
export async function runEdit(
  ctx: LibraryCtx,
  ids: number[],
  out: Output,
  verb: string,
  edit: () => Promise<void>,
  shape: (ctx: LibraryCtx, id: number) => CliAsset = cliAsset,
): Promise<number> {
  const before = ids.map((id) => JSON.stringify(shape(ctx, id)));
  await edit();
  const assets: CliAsset[] = ids.map((id) => shape(ctx, id));
  const updated = assets.filter((a, i) => JSON.stringify(a) !== before[i]).length;
  out.result({ updated, assets }, () => [`${verb} ${updated} of ${ids.length} file${ids.length === 1 ? '' : 's'}.`, ...assets.map(humanAsset)].join('\n'));
  return 0;
}
