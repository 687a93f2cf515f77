import type { AnalysisApi } from '../../src-preload/contract';
import * as an from '../analysis';
import type { LibraryCtx } from '../library/context';
import { forWindow } from '../workflows';
import type { ServiceHost } from './service';

// Quality, faces and colours as Api methods; the logic lives in analysis/. Measurements land
// as their jobs end (attached by createTagsmith, also for runs resumed after a restart) and
// each landing sends libraryChanged so views re-query.

export function analysisMethods(ctx: LibraryCtx, service: ServiceHost): AnalysisApi {
  const queue = service.queue;
  return {
    async previewAnalysisRun({ target, options }) {
      return forWindow(await an.previewAnalysisRun(ctx, queue, target, options));
    },
    async startAnalysisRun({ target, options }) {
      return forWindow(await an.startAnalysisRun(ctx, queue, target, options));
    },
    async getAssetAnalysis({ id }) {
      return an.getAssetAnalysis(ctx, id);
    },
    async qualityHistogram({ query, field, bins }) {
      return an.histogram(ctx, query, field, bins);
    },
    async rejectBelow({ target, field, threshold }) {
      return an.rejectBelow(ctx, target, field, threshold);
    },
    async setFlag({ ids, flag }) {
      return an.setFlag(ctx, ids, flag);
    },
  };
}
