import { isInside } from '../../core/media';
import { importKeywordColors } from '../../analysis/runs';
import { searchIds } from '../../search/search';
import { fillMissingFingerprints } from '../../library/similarity';
import { intValue } from '../args';
import { cliAsset, humanAsset } from '../asset-json';
import type { Command } from '../command';
import { SEARCH_HELP, SEARCH_OPTIONS, queryFromArgs } from '../search-query';

export const command: Command = {
  name: 'search',
  usage: 'search [TEXT] [--keyword K]... [--no-keywords] [--type image|video|audio] [--folder F] [--limit N] [--sort takenAt|name|addedAt|size|quality|ugcQuality|colorMatch|custom] [--desc] [--min-quality S] [--ugc-class N]... [--has-faces] [--child] [--color HEX] [--lens TEXT] [--iso MIN-MAX] [--focal MIN-MAX] [--aperture MIN-MAX] [--label red|yellow|green|blue|purple|none] [--flag pick|reject|none] [--collection NAME] [--min-rating N] [--without-keyword K]... [--from DATE] [--to DATE] [--camera NAME] [--errors] [--similar-groups|--bursts] [--sent-to ID] [--not-sent-to ID]',
  summary: 'Find assets; lists every match (every file of a RAW+JPEG pair) unless --limit is given.',
  help: SEARCH_HELP,
  options: SEARCH_OPTIONS,
  async run(ctx, args, out) {
    const limit = intValue(args.values.limit, 'limit', 1, Number.MAX_SAFE_INTEGER, 'search');
    const { query, prefix } = queryFromArgs(ctx, args, 'search');
    const color = query.color?.hex;
    // Palettes of keyword runs made by `tagsmith keyword --colors` (no queue listener there).
    if (color !== undefined) importKeywordColors(ctx, null);
    // Similar groups: fingerprints still missing (a library scanned before them) are computed first.
    if (query.similarGroups) await fillMissingFingerprints(ctx);
    // A subfolder scope is a path prefix the query cannot express: filter, then apply the limit.
    const ids = searchIds(ctx, query, { expandStacks: true, limit: prefix ? undefined : limit });
    let assets = ids.map((id) => cliAsset(ctx, id));
    if (prefix) {
      assets = assets.filter((a) => isInside(a.path, prefix));
      if (limit !== undefined) assets = assets.slice(0, limit);
    }
    out.result(assets, () => (assets.length ? assets.map(humanAsset).join('\n') : 'No matches.'));
    return 0;
  },
};
