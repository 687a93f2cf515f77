import type { SimilarApi } from '../../src-preload/contract';
import { ApiError } from '../core/errors';
import type { LibraryCtx } from '../library/context';
import { summariesByIds } from '../search/search';
import { fillMissingFingerprints, nearestTo } from '../library/similarity';

/** "Find similar" (issue 17): the nearest photos to one, ranked, as grid summaries with their distance. */
export function similarMethods(ctx: LibraryCtx): SimilarApi {
  return {
    async findSimilar({ assetId, limit }) {
      const [source] = summariesByIds(ctx, [assetId]);
      if (!source) throw new ApiError('not_found', 'That photo is no longer in the library.');
      // Its own fingerprint first, then any the library still lacks (a library scanned before them).
      await fillMissingFingerprints(ctx, { assetIds: [assetId] });
      await fillMissingFingerprints(ctx);
      const near = nearestTo(ctx.db, assetId, limit ?? 100);
      if (near === null) {
        throw new ApiError(
          'validation',
          `“${source.name}” has no picture Tagsmith could read for comparing (no thumbnail could be made from it), so there is nothing to find similar photos by.`,
        );
      }
      const byId = new Map(summariesByIds(ctx, near.map((n) => n.assetId)).map((s) => [s.id, s]));
      return { source, items: near.flatMap((n) => (byId.has(n.assetId) ? [{ ...byId.get(n.assetId)!, distance: n.distance }] : [])) };
    },
  };
}
