// Analysis: quality, faces and colours; picks and rejects.
// Types only; contract.ts re-exports every one.

import type { SearchQuery } from './library';
import type { RunPreview, RunStarted, RunTarget } from './workflows';

export type AnalysisKind = 'quality' | 'qualityUgc' | 'faces' | 'colors';

export interface AnalysisRunOptions {
  kind: AnalysisKind;
  /** colors: how many colours the service returns (its default when absent). */
  numColors?: number;
  /** Measure again assets already measured with these settings (a cached answer still costs nothing). */
  force?: boolean;
}

export interface MeasurementInfo {
  runId: number | null;
  params: Record<string, unknown>;
  measuredAt: number;
}

export type UgcClass = 1 | 2 | 3 | 4 | 5;

export interface QualityView extends MeasurementInfo {
  score: number;
}

export interface UgcQualityView extends MeasurementInfo {
  score: number;
  class: UgcClass;
  /** The interface's label: Very Bad, Poor, Normal, Good, Excellent. */
  label: string;
}

export interface FaceView {
  age: number;
  score: number;
  /** The service's age-range label, e.g. "Age - Child". */
  class: string;
  /** [x0, y0, x1, y1] as fractions 0..1 of the displayed (EXIF-rotated) picture. */
  bbox: [number, number, number, number];
}

export interface ColorSwatch {
  name: string;
  hex: string;
  rgb: [number, number, number];
  /** Share of the picture as the service gives it (0..100). */
  percentage: number;
}

export interface AssetAnalysis {
  assetId: number;
  quality: QualityView | null;
  ugc: UgcQualityView | null;
  /** null: faces not looked for yet. */
  faces: FaceView[] | null;
  facesMeasured: MeasurementInfo | null;
  colors: ColorSwatch[] | null;
  colorsMeasured: MeasurementInfo | null;
  /** null until faces were looked for. */
  releaseNeeded: boolean | null;
}

export type HistogramField = 'quality' | 'ugc';

export interface QualityHistogram {
  field: HistogramField;
  /** Equal-width bins over 0..1; the last includes 1. */
  bins: { from: number; to: number; count: number }[];
  measured: number;
  /** Assets of the view with no score of this kind. */
  unmeasured: number;
}

export type Flag = 'pick' | 'reject';

export interface FlagEditResult {
  /** What undo will say; null when nothing changed. */
  description: string | null;
  assetIds: number[];
}

export interface AnalysisApi {
  previewAnalysisRun(args: { target: RunTarget; options: AnalysisRunOptions }): Promise<RunPreview>;
  /** Queue the measurements; results land as the jobs end (also after a restart). */
  startAnalysisRun(args: { target: RunTarget; options: AnalysisRunOptions }): Promise<RunStarted>;
  getAssetAnalysis(args: { id: number }): Promise<AssetAnalysis>;
  /** Scores of the current view in equal-width bins (for the threshold slider). */
  qualityHistogram(args: { query: SearchQuery; field: HistogramField; bins?: number }): Promise<QualityHistogram>;
  /** Reject every measured asset of the target scoring below the threshold, as one undoable edit. */
  rejectBelow(args: { target: RunTarget; field: HistogramField; threshold: number }): Promise<FlagEditResult>;
  /** Pick, reject or unflag (null); one undoable edit. */
  setFlag(args: { ids: number[]; flag: Flag | null }): Promise<FlagEditResult>;
}
