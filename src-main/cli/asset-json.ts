import { existsSync } from 'node:fs';
import type { AssetKind, Exposure } from '../../src-preload/contract';
import type { LibraryCtx } from '../library/context';
import { getAssetAnalysis } from '../analysis/store';
import { assetErrors, assetKeywords, assetPath, exposureOfRow, getAssetRow, thumbPath } from '../library/assets';
import { labelOf } from '../library/labels';
import { collectionNamesOf } from '../library/collection-store';
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
  /** Always an object; each member null where the file does not record it. */
  exposure: Exposure;
  gps: { lat: number; lon: number } | null;
  rating: number;
  /**
   * show (and label) only, so search's documented shape stays as it was: red, yellow, green,
   * blue or purple; another program's label text as it is; null for none.
   */
  label?: string | null;
  /** show only: the names of the (manual) collections the file is in. */
  collections?: string[];
  keywords: string[];
  caption: string | null;
  title: string | null;
  thumbnail: string | null;
  // What the service measured; each key only where something was measured (so the shape of
  // an unmeasured asset is unchanged). In quality, the kind not measured is null.
  quality?: { score: number | null; ugcScore: number | null; ugcClass: number | null };
  faces?: { age: number; score: number; bbox: [number, number, number, number]; class: string }[];
  colors?: { name: string; hex: string; percentage: number }[];
}

/** The measurement keys of the CLI's asset shape (quality, faces, colors), where measured. */
export function cliMeasurements(ctx: LibraryCtx, id: number): Pick<CliAsset, 'quality' | 'faces' | 'colors'> {
  const m = getAssetAnalysis(ctx, id);
  const out: Pick<CliAsset, 'quality' | 'faces' | 'colors'> = {};
  if (m.quality || m.ugc) out.quality = { score: m.quality?.score ?? null, ugcScore: m.ugc?.score ?? null, ugcClass: m.ugc?.class ?? null };
  if (m.faces) out.faces = m.faces.map((f) => ({ age: f.age, score: f.score, bbox: f.bbox, class: f.class }));
  if (m.colors) out.colors = m.colors.map((c) => ({ name: c.name, hex: c.hex, percentage: c.percentage }));
  return out;
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
    exposure: exposureOfRow(row),
    gps: row.gps_lat !== null && row.gps_lon !== null ? { lat: row.gps_lat, lon: row.gps_lon } : null,
    rating: row.rating,
    keywords: assetKeywords(row),
    caption: row.caption,
    title: row.title,
    thumbnail: thumb && existsSync(thumb) ? thumb : null,
    ...cliMeasurements(ctx, id),
  };
}

/** The colour label as the CLI prints it (see CliAsset.label). */
export function cliLabel(ctx: LibraryCtx, id: number): string | null {
  const text = getAssetRow(ctx, id)?.color_label ?? null;
  return labelOf(text) ?? (text?.trim() || null);
}

/** The asset with its colour label (the `label` command's result). */
export const cliAssetWithLabel = (ctx: LibraryCtx, id: number): CliAsset => ({ ...cliAsset(ctx, id), label: cliLabel(ctx, id) });

export function cliAssetWithErrors(ctx: LibraryCtx, id: number): CliAssetWithErrors {
  return { ...cliAssetWithLabel(ctx, id), collections: collectionNamesOf(ctx.db, id), errors: assetErrors(ctx, id).map((e) => ({ stage: e.stage, reason: e.reason })) };
}

/** One line per asset for people: path, then what is worth a glance. */
export function humanAsset(a: CliAsset): string {
  const bits = [a.kind, a.takenAt ?? 'no date'];
  if (a.rating) bits.push('★'.repeat(a.rating));
  if (a.label) bits.push(`label ${a.label}`);
  if (a.keywords.length) bits.push(a.keywords.join(', '));
  if (a.quality?.score != null) bits.push(`quality ${Math.round(a.quality.score * 100)}%`);
  if (a.quality?.ugcClass != null) bits.push(`UGC class ${a.quality.ugcClass}`);
  if (a.faces?.length) bits.push(`${a.faces.length} face${a.faces.length === 1 ? '' : 's'}`);
  return `${a.path}  (${bits.join('; ')})`;
}
