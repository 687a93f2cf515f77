import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import type { AssetKind, SearchQuery, SortKey } from '../../../src-preload/contract';
import { listFolders } from '../../library/folders';
import { COLOR_LABELS } from '../../library/labels';
import { searchIds } from '../../library/search';
import { isInside } from '../../core/media';
import type { LibraryCtx } from '../../library/context';
import { parseHex } from '../../core/color';
import { importKeywordColors } from '../../analysis/runs';
import { AGENCY_IDS, isAgencyId } from '../../metadata/agencies';
import { CliError, UsageError, intValue, listValue, rangeValue } from '../args';
import { cliAsset, humanAsset } from '../asset-json';
import type { Command } from '../command';

const KINDS: AssetKind[] = ['image', 'video', 'audio'];
const LABELS = [...COLOR_LABELS, 'none'] as string[];
const FLAGS = ['pick', 'reject', 'none'];
const SORTS: SortKey[] = ['takenAt', 'name', 'addedAt', 'size', 'quality', 'ugcQuality', 'colorMatch'];

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
  usage: 'search [TEXT] [--keyword K]... [--no-keywords] [--type image|video|audio] [--folder F] [--limit N] [--sort takenAt|name|addedAt|size|quality|ugcQuality|colorMatch] [--desc] [--min-quality S] [--ugc-class N]... [--has-faces] [--child] [--color HEX] [--lens TEXT] [--iso MIN-MAX] [--focal MIN-MAX] [--aperture MIN-MAX] [--label red|yellow|green|blue|purple|none] [--flag pick|reject|none] [--sent-to ID] [--not-sent-to ID]',
  summary: 'Find assets; lists every match (every file of a RAW+JPEG pair) unless --limit is given.',
  help: [
    'TEXT                 words matched as prefixes in file name, keywords, caption and title',
    '--keyword K          must have keyword K (repeatable, or K1,K2)',
    '--no-keywords        only assets without any keyword',
    '--type T             image, video or audio',
    '--folder F           only assets under folder F',
    '--limit N            at most N results',
    '--sort S             takenAt (default), name, addedAt, size, quality, ugcQuality or colorMatch (with --color)',
    '--desc               descending order',
    '--min-quality S      stock quality score at least S (0-1, inclusive)',
    '--ugc-class N        UGC quality class N, 1-5 (repeatable: any of them)',
    '--has-faces          at least one face found',
    '--child              a face estimated under 18',
    '--color HEX          mostly this colour (perceptual match, e.g. #1e50c8)',
    '--lens TEXT          lens name contains TEXT (case-insensitive)',
    '--iso MIN-MAX        ISO in the range; either end may be left open: 800-, -400',
    '--focal MIN-MAX      focal length in mm (as recorded, not 35 mm equivalent), e.g. -35',
    '--aperture MIN-MAX   F-number, e.g. 1.4-2.8',
    '--label L            colour label red, yellow, green, blue or purple; none = no label',
    '--flag F             pick, reject, or none (unflagged)',
    '--sent-to ID         photos sent to that stock agency (tagsmith upload); --not-sent-to ID: never sent there',
  ],
  options: {
    keyword: { type: 'string', multiple: true },
    'no-keywords': { type: 'boolean' },
    type: { type: 'string' },
    folder: { type: 'string' },
    limit: { type: 'string' },
    sort: { type: 'string' },
    desc: { type: 'boolean' },
    'min-quality': { type: 'string' },
    'ugc-class': { type: 'string', multiple: true },
    'has-faces': { type: 'boolean' },
    child: { type: 'boolean' },
    color: { type: 'string' },
    lens: { type: 'string' },
    iso: { type: 'string' },
    focal: { type: 'string' },
    aperture: { type: 'string' },
    label: { type: 'string' },
    'sent-to': { type: 'string' },
    'not-sent-to': { type: 'string' },
    flag: { type: 'string' },
  },
  async run(ctx, { values, positionals }, out) {
    const type = values.type as string | undefined;
    if (type !== undefined && !KINDS.includes(type as AssetKind)) throw new UsageError(`--type must be one of ${KINDS.join(', ')} (got “${type}”).`, 'search');
    const sort = values.sort as string | undefined;
    if (sort !== undefined && !SORTS.includes(sort as SortKey)) throw new UsageError(`--sort must be one of ${SORTS.join(', ')} (got “${sort}”).`, 'search');
    const limit = intValue(values.limit, 'limit', 1, Number.MAX_SAFE_INTEGER, 'search');
    const minQualityText = values['min-quality'] === undefined ? undefined : String(values['min-quality']).trim();
    const minQuality = minQualityText === undefined ? undefined : Number(minQualityText);
    if (minQualityText !== undefined && (!/^\d*\.?\d+$/.test(minQualityText) || minQuality! > 1)) {
      throw new UsageError(`--min-quality must be a score from 0 to 1 (got “${minQualityText}”).`, 'search');
    }
    const ugcClasses = listValue(values['ugc-class']).map((c) => {
      if (!/^[1-5]$/.test(c.trim())) throw new UsageError(`--ugc-class must be a class from 1 to 5 (got “${c}”).`, 'search');
      return Number(c);
    });
    const color = values.color as string | undefined;
    if (color !== undefined && !parseHex(color)) throw new UsageError(`--color must be a hex colour such as #1e50c8 (got “${color}”).`, 'search');
    const label = values.label as string | undefined;
    if (label !== undefined && !LABELS.includes(label)) throw new UsageError(`--label must be one of ${LABELS.join(', ')} (got “${label}”).`, 'search');
    const flag = values.flag as string | undefined;
    if (flag !== undefined && !FLAGS.includes(flag)) throw new UsageError(`--flag must be one of ${FLAGS.join(', ')} (got “${flag}”).`, 'search');
    for (const o of ['sent-to', 'not-sent-to']) {
      const a = values[o];
      if (a !== undefined && !isAgencyId(String(a))) throw new UsageError(`--${o} must be an agency id: ${AGENCY_IDS.join(', ')} (got “${String(a)}”).`, 'search');
    }
    const query: SearchQuery = {
      text: positionals.join(' ') || undefined,
      keywords: listValue(values.keyword),
      noKeywords: values['no-keywords'] === true || undefined,
      kinds: type ? [type as AssetKind] : undefined,
      sort: sort as SortKey | undefined,
      order: values.desc ? 'desc' : 'asc',
      minQuality,
      ugcClasses: ugcClasses.length ? ugcClasses : undefined,
      hasFaces: values['has-faces'] === true || undefined,
      child: values.child === true || undefined,
      color: color !== undefined ? { hex: color } : undefined,
      lens: typeof values.lens === 'string' && values.lens.trim() ? values.lens.trim() : undefined,
      iso: rangeValue(values.iso, 'iso', 'search'),
      focalLength: rangeValue(values.focal, 'focal', 'search'),
      aperture: rangeValue(values.aperture, 'aperture', 'search'),
      label: label as SearchQuery['label'],
      flag: flag === undefined ? undefined : flag === 'none' ? 'unflagged' : (flag as 'pick' | 'reject'),
      sentTo: values['sent-to'] as string | undefined,
      notSentTo: values['not-sent-to'] as string | undefined,
    };
    // Palettes of keyword runs made by `tagsmith keyword --colors` (no queue listener there).
    if (color !== undefined) importKeywordColors(ctx, null);
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
