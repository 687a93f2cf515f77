import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import type { AssetKind, SearchQuery, SortKey } from '../../src-preload/contract';
import { collectionByName } from '../library/collections';
import { listFolders } from '../library/folders';
import { COLOR_LABELS } from '../library/labels';
import { AGENCY_IDS, isAgencyId } from '../metadata/agencies';
import { isInside } from '../core/media';
import type { LibraryCtx } from '../library/context';
import { parseHex } from '../core/color';
import { CliError, UsageError, intValue, listValue, rangeValue, type OptionSpecs, type Parsed } from './args';

// The filters of a search as command-line options: `search` and `collection smart` take the
// same ones and build the same SearchQuery.

const KINDS: AssetKind[] = ['image', 'video', 'audio'];
const LABELS = [...COLOR_LABELS, 'none'] as string[];
const FLAGS = ['pick', 'reject', 'none'];
const SORTS: SortKey[] = ['takenAt', 'name', 'addedAt', 'size', 'quality', 'ugcQuality', 'colorMatch', 'custom'];

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

/** The filters of a search as options: `search` and `collection smart` take the same ones. */
export const SEARCH_HELP: string[] = [
  'TEXT                 words matched as prefixes in file name, keywords, caption and title',
  '--keyword K          must have keyword K (repeatable, or K1,K2)',
  '--no-keywords        only assets without any keyword',
  '--type T             image, video or audio',
  '--folder F           only assets under folder F',
  '--limit N            at most N results',
  '--sort S             takenAt (default), name, addedAt, size, quality, ugcQuality, colorMatch (with --color) or custom (with --collection)',
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
'--min-rating N       at least N stars (1-5)',
'--without-keyword K  must not have keyword K (repeatable, or K1,K2)',
'--from DATE          taken on or after DATE (YYYY-MM-DD)',
'--to DATE            taken on or before DATE (YYYY-MM-DD)',
'--camera NAME        camera model or make, exactly as `tagsmith show` prints it',
'--errors             only files that could not be read',
'--similar-groups     only photos in a group of similar frames (two or more; see `tagsmith similar`); --bursts: in a burst',
'--sent-to ID         photos sent to that stock agency (tagsmith upload); --not-sent-to ID: never sent there',
  '--collection NAME    only photos in collection NAME (a smart collection: its live matches; a set: its collections\' photos)',
];

export const SEARCH_OPTIONS = {
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
  flag: { type: 'string' },
  collection: { type: 'string' },
  'min-rating': { type: 'string' },
  'without-keyword': { type: 'string', multiple: true },
  from: { type: 'string' },
  to: { type: 'string' },
  camera: { type: 'string' },
  errors: { type: 'boolean' },
  'similar-groups': { type: 'boolean' },
  bursts: { type: 'boolean' },
  'sent-to': { type: 'string' },
  'not-sent-to': { type: 'string' },
} satisfies OptionSpecs;

/**
 * The SearchQuery the options and words ask for (with --folder F: its library folder; a
 * folder inside one is the returned path prefix, which the query cannot hold).
 */
export function queryFromArgs(ctx: LibraryCtx, { values, positionals }: Pick<Parsed, 'values' | 'positionals'>, command: string): { query: SearchQuery; prefix: string | null } {
  const type = values.type as string | undefined;
  if (type !== undefined && !KINDS.includes(type as AssetKind)) throw new UsageError(`--type must be one of ${KINDS.join(', ')} (got “${type}”).`, command);
  const sort = values.sort as string | undefined;
  if (sort !== undefined && !SORTS.includes(sort as SortKey)) throw new UsageError(`--sort must be one of ${SORTS.join(', ')} (got “${sort}”).`, command);
  const minQualityText = values['min-quality'] === undefined ? undefined : String(values['min-quality']).trim();
  const minQuality = minQualityText === undefined ? undefined : Number(minQualityText);
  if (minQualityText !== undefined && (!/^\d*\.?\d+$/.test(minQualityText) || minQuality! > 1)) {
    throw new UsageError(`--min-quality must be a score from 0 to 1 (got “${minQualityText}”).`, command);
  }
  const ugcClasses = listValue(values['ugc-class']).map((c) => {
    if (!/^[1-5]$/.test(c.trim())) throw new UsageError(`--ugc-class must be a class from 1 to 5 (got “${c}”).`, command);
    return Number(c);
  });
  const color = values.color as string | undefined;
  if (color !== undefined && !parseHex(color)) throw new UsageError(`--color must be a hex colour such as #1e50c8 (got “${color}”).`, command);
  const label = values.label as string | undefined;
  if (label !== undefined && !LABELS.includes(label)) throw new UsageError(`--label must be one of ${LABELS.join(', ')} (got “${label}”).`, command);
  const flag = values.flag as string | undefined;
  if (flag !== undefined && !FLAGS.includes(flag)) throw new UsageError(`--flag must be one of ${FLAGS.join(', ')} (got “${flag}”).`, command);
  for (const o of ['sent-to', 'not-sent-to'] as const) {
    const a = values[o];
    if (a !== undefined && !isAgencyId(String(a))) throw new UsageError(`--${o} must be an agency id: ${AGENCY_IDS.join(', ')} (got “${String(a)}”).`, command);
  }
  const date = (key: 'from' | 'to'): string | undefined => {
    const v = values[key];
    if (v === undefined) return undefined;
    if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(v.trim())) throw new UsageError(`--${key} must be a date like 2024-05-31 (got “${String(v)}”).`, command);
    return v.trim();
  };
  const withoutKeywords = listValue(values['without-keyword']);
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
    iso: rangeValue(values.iso, 'iso', command),
    focalLength: rangeValue(values.focal, 'focal', command),
    aperture: rangeValue(values.aperture, 'aperture', command),
    label: label as SearchQuery['label'],
    flag: flag === undefined ? undefined : flag === 'none' ? 'unflagged' : (flag as 'pick' | 'reject'),
    minRating: intValue(values['min-rating'], 'min-rating', 1, 5, command),
    withoutKeywords: withoutKeywords.length ? withoutKeywords : undefined,
    takenFrom: date('from'),
    takenTo: date('to'),
    camera: typeof values.camera === 'string' && values.camera.trim() ? values.camera.trim() : undefined,
    errorsOnly: values.errors === true || undefined,
    similarGroups: values.bursts === true ? 'burst' : values['similar-groups'] === true ? 'any' : undefined,
    sentTo: values['sent-to'] as string | undefined,
    notSentTo: values['not-sent-to'] as string | undefined,
  };
  const scope = typeof values.folder === 'string' ? folderScope(ctx, values.folder) : null;
  if (scope) query.folderId = scope.folderId;
  if (typeof values.collection === 'string') query.collectionId = collectionByName(ctx, values.collection).id;
  return { query, prefix: scope?.prefix ?? null };
}

