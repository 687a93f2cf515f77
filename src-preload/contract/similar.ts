// Similarity (issue 17): "find similar" from any photo. Types only; contract.ts re-exports them.
import type { AssetSummary } from './library';

/** A photo near the one asked about: its grid summary and how far it is (0: the same picture; about 26 and beyond, nothing in common). */
export interface SimilarPhoto extends AssetSummary {
  distance: number;
}

export interface SimilarResult {
  /** The photo the search started from. */
  source: AssetSummary;
  /** The nearest photos, nearest first (the source itself left out). */
  items: SimilarPhoto[];
}

export interface SimilarApi {
  /**
   * "Find similar": the photos nearest to `assetId` by their fingerprints, nearest first, at
   * most `limit` (default 100). Fingerprints still missing are computed first.
   */
  findSimilar(req: { assetId: number; limit?: number }): Promise<SimilarResult>;
}
