import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { LibraryCtx } from '../library/context';
import { assetPath, findAssetByPath, getAssetRow } from '../library/assets';
import { resolveTarget, type RunTarget } from '../workflows';
import { CliError, UsageError } from './args';

/**
 * The assets named on the command line, all of them or none: an edit command that cannot
 * find one of its files changes nothing and says which (exit 1), so a script never tags half
 * a batch by accident.
 */
export function assetIdsForPaths(ctx: LibraryCtx, paths: readonly string[]): number[] {
  const ids: number[] = [];
  const missing: string[] = [];
  for (const p of paths) {
    const id = findAssetByPath(ctx, p);
    if (id === null) missing.push(resolve(p));
    else if (!ids.includes(id)) ids.push(id);
  }
  if (missing.length) {
    const first = missing[0];
    const why = existsSync(first) ? 'is not in the library (run `tagsmith index` on its folder first)' : 'does not exist';
    const more = missing.length > 1 ? ` (and ${missing.length - 1} more)` : '';
    throw new CliError(`“${first}” ${why}${more}. Nothing was changed.`);
  }
  return ids;
}

/** PATH... or --query Q (full text, as `search` matches it), never both. */
export async function targetOf(ctx: LibraryCtx, positionals: string[], query: unknown, command: string): Promise<{ target: RunTarget; ids: number[] }> {
  if (positionals.length && query !== undefined) throw new UsageError(`${command} takes PATHs or --query, not both.`, command);
  if (!positionals.length && query === undefined) throw new UsageError(`${command} needs at least one PATH or --query TEXT.`, command);
  const target: RunTarget = query !== undefined ? { query: { text: String(query) } } : { assetIds: assetIdsForPaths(ctx, positionals) };
  const ids = await resolveTarget(ctx, target);
  if (!ids.length) throw new CliError(`No asset matches “${String(query)}”. Nothing was sent.`);
  return { target, ids };
}

export const pathOf = (ctx: LibraryCtx, id: number): string => {
  const row = getAssetRow(ctx, id);
  return row ? assetPath(row) : String(id);
};
