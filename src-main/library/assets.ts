import { realpathSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import type { AssetDetail, AssetKind, BlockDisagreement, Exposure } from '../../src-preload/contract';
import { notFound } from '../core/errors';
import { isInside, mediaToken } from '../core/media';
import type { LibraryCtx } from './context';
import { prepared } from './db';
import { allExtended, parseExtended } from '../metadata/extended-fields';
import { toSummary } from '../search/search';

// One asset in full (the inspector, the CLI's `show`), and finding an asset by its path.

export interface AssetRow {
  /** JSON of the IPTC template fields beyond the rights columns (extended-fields.ts). */
  iptc_extended: string | null;
  id: number;
  folder_id: number;
  folder_path: string;
  online: number;
  rel_path: string;
  name: string;
  kind: AssetKind;
  format: string;
  is_raw: number;
  size: number;
  mtime_ms: number;
  content_hash: string | null;
  /** Null while a picture just shown by the scan waits for its full thumbnail's job (media-hash.ts). */
  media_hash: string | null;
  width: number | null;
  height: number | null;
  orientation: number | null;
  duration_s: number | null;
  video_codec: string | null;
  audio_codec: string | null;
  taken_at: string | null;
  camera_make: string | null;
  camera_model: string | null;
  lens: string | null;
  aperture: number | null;
  shutter: string | null;
  iso: number | null;
  focal_length: number | null;
  focal_length_35: number | null;
  exposure_bias: number | null;
  flash: number | null;
  /** JSON of a BlockDisagreement (migration 14), or null. */
  block_disagreement: string | null;
  gps_lat: number | null;
  gps_lon: number | null;
  rating: number;
  color_label: string | null;
  caption: string | null;
  title: string | null;
  headline: string | null;
  creator: string | null;
  copyright: string | null;
  credit: string | null;
  city: string | null;
  country: string | null;
  keywords_text: string;
  keyword_count: number;
  thumb: string | null;
  stack_key: string;
  has_error: number;
  added_at: number;
  removed_at: number | null;
}

/** Formats a browser shows as they are, so the original can be its own preview. */
const BROWSER_IMAGE_FORMATS = new Set(['jpeg', 'jpg', 'png', 'webp', 'gif', 'avif']);

/** The row of a live asset, or null. */
export function getAssetRow(ctx: LibraryCtx, id: number): AssetRow | null {
  const row = prepared(
    ctx.db,
    `SELECT a.*, f.path AS folder_path, f.online FROM assets a JOIN folders f ON f.id = a.folder_id
     WHERE a.id = ? AND a.removed_at IS NULL`,
  ).get(id) as AssetRow | undefined;
  return row ?? null;
}

/** The asset's absolute path: folder path + its '/'-separated relative path. */
export function assetPath(row: Pick<AssetRow, 'folder_path' | 'rel_path'>): string {
  return join(row.folder_path, ...row.rel_path.split('/'));
}

export function assetKeywords(row: Pick<AssetRow, 'keywords_text'>): string[] {
  return row.keywords_text ? row.keywords_text.split('\n') : [];
}

/** The exposure columns as the Api and the CLI give them: always an object, null where unknown. */
export function exposureOfRow(row: Pick<AssetRow, 'aperture' | 'shutter' | 'iso' | 'focal_length' | 'focal_length_35' | 'exposure_bias' | 'flash'>): Exposure {
  return {
    aperture: row.aperture,
    shutter: row.shutter,
    iso: row.iso,
    focalLength: row.focal_length,
    focalLength35: row.focal_length_35,
    exposureBias: row.exposure_bias,
    flash: row.flash === null ? null : row.flash === 1,
  };
}

/** Absolute thumbnail path (assets.thumb is relative to the cache dir), or null. */
export function thumbPath(ctx: LibraryCtx, row: Pick<AssetRow, 'thumb'>): string | null {
  return row.thumb ? join(ctx.paths.cacheDir, row.thumb) : null;
}

export function assetErrors(ctx: LibraryCtx, id: number): { stage: string; reason: string; at: number }[] {
  return prepared(ctx.db, 'SELECT stage, reason, at FROM scan_errors WHERE asset_id = ? ORDER BY at, id').all(id) as {
    stage: string;
    reason: string;
    at: number;
  }[];
}

/**
 * Full detail for the inspector. `previewPath` is the absolute path of a large JPEG preview
 * when the caller has one (the indexer makes them on demand); otherwise formats the browser
 * can show are previewed from the original itself.
 */
export function getAssetDetail(ctx: LibraryCtx, id: number, previewPath?: string | null): AssetDetail {
  const row = getAssetRow(ctx, id);
  if (!row) throw notFound('That photo');
  const path = assetPath(row);
  const stack = prepared(
    ctx.db,
    `SELECT id, name, format FROM assets WHERE folder_id = ? AND stack_key = ? AND id <> ? AND removed_at IS NULL ORDER BY is_raw, id`,
  ).all(row.folder_id, row.stack_key, row.id) as { id: number; name: string; format: string }[];
  const duplicates = row.content_hash
    ? (
        prepared(
          ctx.db,
          `SELECT a.id, f.path AS folder_path, a.rel_path FROM assets a JOIN folders f ON f.id = a.folder_id
           WHERE a.content_hash = ? AND a.id <> ? AND a.removed_at IS NULL ORDER BY a.id`,
        ).all(row.content_hash, row.id) as { id: number; folder_path: string; rel_path: string }[]
      ).map((d) => ({ id: d.id, path: assetPath(d) }))
    : [];
  const preview = previewPath ? mediaToken(previewPath) : BROWSER_IMAGE_FORMATS.has(row.format) ? mediaToken(path) : null;
  return {
    ...toSummary(ctx, {
      ...row,
      stack_size: stack.length + 1,
      ...(prepared(ctx.db, 'SELECT g.id AS group_id, g.size AS group_size, g.kind AS group_kind FROM similar_members m JOIN similar_groups g ON g.id = m.group_id WHERE m.asset_id = ?').get(row.id) as
        | { group_id: number; group_size: number; group_kind: 'burst' | 'similar' }
        | undefined),
    }),
    path,
    folderId: row.folder_id,
    size: row.size,
    mtimeMs: row.mtime_ms,
    contentHash: row.content_hash,
    orientation: row.orientation,
    cameraMake: row.camera_make,
    cameraModel: row.camera_model,
    lens: row.lens,
    exposure: exposureOfRow(row),
    gps: row.gps_lat !== null && row.gps_lon !== null ? { lat: row.gps_lat, lon: row.gps_lon } : null,
    colorLabel: row.color_label,
    videoCodec: row.video_codec,
    audioCodec: row.audio_codec,
    keywords: assetKeywords(row),
    caption: row.caption,
    title: row.title,
    rights: {
      headline: row.headline, creator: row.creator, copyright: row.copyright, credit: row.credit, city: row.city, country: row.country,
      ...allExtended(parseExtended(row.iptc_extended)),
    },
    blockDisagreement: row.block_disagreement ? (JSON.parse(row.block_disagreement) as BlockDisagreement) : null,
    addedAt: row.added_at,
    preview,
    original: mediaToken(path),
    errors: assetErrors(ctx, row.id),
    stack,
    duplicates,
  };
}

/**
 * The live asset at a file path, or null. The path is tried as given and with symlinks
 * resolved, against every library folder (folders may have been added through either form).
 */
export function findAssetByPath(ctx: LibraryCtx, path: string): number | null {
  const given = resolve(path);
  const candidates = [given];
  try {
    const real = realpathSync(given);
    if (real !== given) candidates.push(real);
  } catch {
    // An offline or deleted file is still in the catalogue: look it up by the given path.
  }
  const folders = prepared(ctx.db, 'SELECT id, path FROM folders').all() as { id: number; path: string }[];
  const find = prepared(ctx.db, 'SELECT id FROM assets WHERE folder_id = ? AND rel_path = ? AND removed_at IS NULL');
  for (const candidate of candidates) {
    for (const folder of folders) {
      if (candidate === folder.path || !isInside(candidate, folder.path)) continue;
      const rel = relative(folder.path, candidate).split(sep).join('/');
      const hit = find.get(folder.id, rel) as { id: number } | undefined;
      if (hit) return hit.id;
    }
  }
  return null;
}
