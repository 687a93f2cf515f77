import { existsSync } from 'node:fs';
import type { AssetKind } from '../../src-preload/contract';
import type { LibraryCtx } from '../library/context';
import { assetErrors, assetKeywords, assetPath, getAssetRow, thumbPath } from '../library/assets';
import { CliError } from './args';

// The one shape the CLI prints for an asset (search, show, tag, caption, rate). It is a
// contract outside checks rely on: absolute paths, camera-local takenAt as stored, keywords
// in order, gps in signed decimal degrees, thumbnail only when the file is really there.

export interface CliAsset {
  path: string;
  kind: AssetKind;
  width: number | null;
  height: number | null;
  durationS: number | null;
  takenAt: string | null;
  cameraMake: string | null;
  cameraModel: string | null;
  gps: { lat: number; lon: number } | null;
  rating: number;
  keywords: string[];
  caption: string | null;
  title: string | null;
  thumbnail: string | null;
}

export interface CliAssetWithErrors extends CliAsset {
  errors: { stage: string; reason: string }[];
}

export function cliAsset(ctx: LibraryCtx, id: number): CliAsset {
  const row = getAssetRow(ctx, id);
  if (!row) throw new CliError(`Asset ${id} is no longer in the library.`);
  const thumb = thumbPath(ctx, row);
  return {
    path: assetPath(row),
    kind: row.kind,
    width: row.width,
    height: row.height,
    durationS: row.duration_s,
    takenAt: row.taken_at,
    cameraMake: row.camera_make,
    cameraModel: row.camera_model,
    gps: row.gps_lat !== null && row.gps_lon !== null ? { lat: row.gps_lat, lon: row.gps_lon } : null,
    rating: row.rating,
    keywords: assetKeywords(row),
    caption: row.caption,
    title: row.title,
    thumbnail: thumb && existsSync(thumb) ? thumb : null,
  };
}

export function cliAssetWithErrors(ctx: LibraryCtx, id: number): CliAssetWithErrors {
  return { ...cliAsset(ctx, id), errors: assetErrors(ctx, id).map((e) => ({ stage: e.stage, reason: e.reason })) };
}

/** One line per asset for people: path, then what is worth a glance. */
export function humanAsset(a: CliAsset): string {
  const bits = [a.kind, a.takenAt ?? 'no date'];
  if (a.rating) bits.push('★'.repeat(a.rating));
  if (a.keywords.length) bits.push(a.keywords.join(', '));
  return `${a.path}  (${bits.join('; ')})`;
}
