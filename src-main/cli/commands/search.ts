import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import type { AssetKind, SearchQuery, SortKey } from '../../../src-preload/contract';
import { listFolders } from '../../library/folders';
import { searchIds } from '../../library/search';
import { isInside } from '../../core/media';
import type { LibraryCtx } from '../../library/context';
import { CliError, UsageError, intValue, listValue } from '../args';
import { cliAsset, humanAsset } from '../asset-json';
import type { Command } from '../command';

const KINDS: AssetKind[] = ['image', 'video', 'audio'];
const SORTS: SortKey[] = ['takenAt', 'name', 'addedAt', 'size'];

/** --folder F: a library folder (its id) or a folder inside one (its id plus a path prefix). */
function folderScope(ctx: LibraryCtx, path: string): { folderId: number; prefix: string | null } {
  const given = resolve(path);
  let real = given;
  try {
    real = realpathSync(given);
  } catch {
    // An offline folder is still searchable by the path it was added with.
  }
  for (const f of listFolders(ctx)) {
    for (const p of [given, real]) {
      if (p === f.path) return { folderId: f.id, prefix: null };
      if (isInside(p, f.path)) return { folderId: f.id, prefix: p };
    }
  }
  throw new CliError(`“${given}” is not a library folder or inside one (see \`tagsmith folders\`).`);
}

export const command: Command = {
  name: 'search',
  usage: 'search [TEXT] [--keyword K]... [--no-keywords] [--type image|video|audio] [--folder F] [--limit N] [--sort takenAt|name|addedAt|size] [--desc]',
  summary: 'Find assets; lists every match (every file of a RAW+JPEG pair) unless --limit is given.',
  help: [
    'TEXT                 words matched as prefixes in file name, keywords, caption and title',
    '--keyword K          must have keyword K (repeatable, or K1,K2)',
    '--no-keywords        only assets without any keyword',
    '--type T             image, video or audio',
    '--folder F           only assets under folder F',
    '--limit N            at most N results',
    '--sort S             takenAt (default), name, addedAt or size',
    '--desc               descending order',
  ],
  options: {
    keyword: { type: 'string', multiple: true },
    'no-keywords': { type: 'boolean' },
    type: { type: 'string' },
    folder: { type: 'string' },
    limit: { type: 'string' },
    sort: { type: 'string' },
    desc: { type: 'boolean' },
  },
  async run(ctx, { values, positionals }, out) {
    const type = values.type as string | undefined;
    if (type !== undefined && !KINDS.includes(type as AssetKind)) throw new UsageError(`--type must be one of ${KINDS.join(', ')} (got “${type}”).`, 'search');
    const sort = values.sort as string | undefined;
    if (sort !== undefined && !SORTS.includes(sort as SortKey)) throw new UsageError(`--sort must be one of ${SORTS.join(', ')} (got “${sort}”).`, 'search');
    const limit = intValue(values.limit, 'limit', 1, Number.MAX_SAFE_INTEGER, 'search');
    const query: SearchQuery = {
      text: positionals.join(' ') || undefined,
      keywords: listValue(values.keyword),
      noKeywords: values['no-keywords'] === true || undefined,
      kinds: type ? [type as AssetKind] : undefined,
      sort: sort as SortKey | undefined,
      order: values.desc ? 'desc' : 'asc',
    };
    const scope = typeof values.folder === 'string' ? folderScope(ctx, values.folder) : null;
    if (scope) query.folderId = scope.folderId;
    // A subfolder scope is a path prefix the query cannot express: filter, then apply the limit.
    const ids = searchIds(ctx, query, { expandStacks: true, limit: scope?.prefix ? undefined : limit });
    let assets = ids.map((id) => cliAsset(ctx, id));
    if (scope?.prefix) {
      const prefix = scope.prefix;
      assets = assets.filter((a) => isInside(a.path, prefix));
      if (limit !== undefined) assets = assets.slice(0, limit);
    }
    out.result(assets, () => (assets.length ? assets.map(humanAsset).join('\n') : 'No matches.'));
    return 0;
  },
};
