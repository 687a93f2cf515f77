import type { AnalysisKind, AssetAnalysis, ColorSwatch, FaceView, MeasurementInfo, UgcClass } from '../../src-preload/contract';
import { setColors, setFaces, setQualityScore, setUgcScore, type ColorRow, type FaceRow } from '../catalogue/analysis-scores';
import { ApiError, notFound } from '../core/errors';
import type { LibraryCtx } from '../library/context';
import { prepared } from '../library/db';
import type { FacesResult, KeywordsResult, QualityResult, UgcQualityResult } from '../service/types';
import { parseHex, rgbToLab, type Rgb } from '../core/color';
import { ugcClass, ugcLabel } from './ugc';

/** One asset of an analysis run, as the run's ended job is collected (runs.ts) and stored here. */
export interface RunAssetRow {
  run_id: number;
  asset_id: number;
  kind: AnalysisKind;
  params_key: string;
  derivative_width: number | null;
  derivative_height: number | null;
}

// Measurements per asset, checked and scaled here and written through the catalogue's door
// (catalogue/analysis-scores.ts: the latest of each kind replaces the one before, recorded in
// the change log). Called inside collectAnalysisJobs' transaction.

const clamp01 = (n: number): number => (Number.isFinite(n) ? Math.max(0, Math.min(1, n)) : 0);

export function storeQuality(ctx: LibraryCtx, ra: RunAssetRow, params: object, r: QualityResult): void {
  setQualityScore(ctx.db, { assetId: ra.asset_id, runId: ra.run_id, params, at: Date.now() }, clamp01(r.score));
}

export function storeUgc(ctx: LibraryCtx, ra: RunAssetRow, params: object, r: UgcQualityResult): void {
  const score = clamp01(r.score);
  const cls = Number.isInteger(r.class) && r.class >= 1 && r.class <= 5 ? r.class : ugcClass(score);
  setUgcScore(ctx.db, { assetId: ra.asset_id, runId: ra.run_id, params, at: Date.now() }, score, cls);
}

/**
 * The interface gives bbox as [x_min, y_min, x_max, y_max] without a unit. Pixels of the upload
 * is what has been seen; fractions 0..1 of it are accepted too, detected from the values: when
 * every coordinate of every face lies within 0..1 (and the upload is larger than a few pixels,
 * where a pixel box that small would be a speck), the boxes are taken as fractions.
 */
export function boxesAreNormalised(faces: { bbox: number[] }[], w: number, h: number): boolean {
  const all = faces.flatMap((f) => f.bbox);
  return all.length > 0 && Math.min(w, h) > 8 && all.every((v) => Number.isFinite(v) && v >= 0 && v <= 1) && all.some((v) => v > 0 && v < 1);
}

/** Boxes come in pixels of the uploaded derivative (already EXIF-rotated), or as fractions of it: stored as fractions of the displayed picture. */
export function storeFaces(ctx: LibraryCtx, ra: RunAssetRow, params: object, r: FacesResult): void {
  const faces = (r.faces ?? []).filter((f) => Number.isFinite(f.age));
  const normalised = boxesAreNormalised(faces, ra.derivative_width ?? 0, ra.derivative_height ?? 0);
  const w = normalised ? 1 : ra.derivative_width;
  const h = normalised ? 1 : ra.derivative_height;
  if (!w || !h) throw new ApiError('io', 'The size of the picture could not be read, so its faces cannot be placed.');
  const rows: FaceRow[] = faces.map((f) => {
    const [bx0, by0, bx1, by1] = f.bbox;
    return {
      age: f.age,
      score: clamp01(f.score),
      class: f.class,
      x0: clamp01(Math.min(bx0, bx1) / w),
      y0: clamp01(Math.min(by0, by1) / h),
      x1: clamp01(Math.max(bx0, bx1) / w),
      y1: clamp01(Math.max(by0, by1) / h),
    };
  });
  setFaces(ctx.db, { assetId: ra.asset_id, runId: ra.run_id, params, at: Date.now() }, rows, { width: ra.derivative_width, height: ra.derivative_height });
}

/** A palette measured by an analysis run, or taken from a keyword run's (`run_id` null). */
export function storeColors(ctx: LibraryCtx, ra: { asset_id: number; run_id: number | null }, params: object, r: KeywordsResult, at = Date.now()): void {
  const colors = (r.colors ?? [])
    .map((c) => {
      const rgb: Rgb | null = c.rgb.length === 3 && c.rgb.every((v) => Number.isFinite(v)) ? (c.rgb.map((v) => Math.max(0, Math.min(255, Math.round(v)))) as Rgb) : parseHex(c.hex);
      return rgb ? { ...c, rgb } : null;
    })
    .filter((c): c is NonNullable<typeof c> => c !== null);
  // The interface says "share of the image" without a unit; the service sends percentages.
  const scale = colors.some((c) => c.percentage > 1) ? 100 : 1;
  const rows: ColorRow[] = colors.map((c) => ({
    name: c.name,
    hex: parseHex(c.hex) ? c.hex.toLowerCase() : '#' + c.rgb.map((v) => v.toString(16).padStart(2, '0')).join(''),
    rgb: c.rgb,
    percentage: c.percentage,
    share: clamp01(c.percentage / scale),
    lab: rgbToLab(c.rgb),
  }));
  setColors(ctx.db, { assetId: ra.asset_id, runId: ra.run_id, params, at }, rows);
}

// ---- reading ---------------------------------------------------------------------------------

interface InfoRow {
  run_id: number | null;
  params: string;
  measured_at: number;
}

const info = (r: InfoRow): MeasurementInfo => ({ runId: r.run_id, params: JSON.parse(r.params) as Record<string, unknown>, measuredAt: r.measured_at });

export function getFaces(ctx: LibraryCtx, id: number): FaceView[] {
  return (prepared(ctx.db, 'SELECT age, score, class, x0, y0, x1, y1 FROM asset_faces WHERE asset_id = ? ORDER BY position').all(id) as {
    age: number; score: number; class: string; x0: number; y0: number; x1: number; y1: number;
  }[]).map((f) => ({ age: f.age, score: f.score, class: f.class, bbox: [f.x0, f.y0, f.x1, f.y1] }));
}

export function getColors(ctx: LibraryCtx, id: number): ColorSwatch[] {
  return (prepared(ctx.db, 'SELECT name, hex, r, g, b, percentage FROM asset_colors WHERE asset_id = ? ORDER BY position').all(id) as {
    name: string; hex: string; r: number; g: number; b: number; percentage: number;
  }[]).map((c) => ({ name: c.name, hex: c.hex, rgb: [c.r, c.g, c.b], percentage: c.percentage }));
}

/** Everything measured about one asset, with provenance; null parts were never measured. */
export function getAssetAnalysis(ctx: LibraryCtx, id: number): AssetAnalysis {
  if (!prepared(ctx.db, 'SELECT 1 FROM assets WHERE id = ? AND removed_at IS NULL').get(id)) throw notFound('That photo');
  const q = prepared(ctx.db, 'SELECT score, run_id, params, measured_at FROM asset_quality WHERE asset_id = ?').get(id) as (InfoRow & { score: number }) | undefined;
  const u = prepared(ctx.db, 'SELECT score, class, run_id, params, measured_at FROM asset_ugc_quality WHERE asset_id = ?').get(id) as
    | (InfoRow & { score: number; class: number })
    | undefined;
  const f = prepared(ctx.db, 'SELECT face_count, release_needed, run_id, params, measured_at FROM asset_face_scans WHERE asset_id = ?').get(id) as
    | (InfoRow & { face_count: number; release_needed: number })
    | undefined;
  const c = prepared(ctx.db, 'SELECT run_id, params, measured_at FROM asset_color_scans WHERE asset_id = ?').get(id) as InfoRow | undefined;
  return {
    assetId: id,
    quality: q ? { score: q.score, ...info(q) } : null,
    ugc: u ? { score: u.score, class: u.class as UgcClass, label: ugcLabel(u.class), ...info(u) } : null,
    faces: f ? getFaces(ctx, id) : null,
    facesMeasured: f ? info(f) : null,
    colors: c ? getColors(ctx, id) : null,
    colorsMeasured: c ? info(c) : null,
    releaseNeeded: f ? f.release_needed === 1 : null,
  };
}
