import { getAssetRow } from '../library/assets';
import type { LibraryCtx } from '../library/context';
import { probe } from '../library/video';
import type { ResolvedMedia } from './media';

// Budgets of creative tasks: the interface's typical times, shared with the plain 'task' job
// kind (src-main/jobs/deadlines.ts).
export { budgetFor, type BudgetInput } from '../jobs/deadlines';

/** Seconds of a medium: the library's record, else a probe; null when neither knows. */
export async function durationOf(ctx: LibraryCtx, m: ResolvedMedia): Promise<number | null> {
  if (m.assetId !== null) {
    const d = getAssetRow(ctx, m.assetId)?.duration_s;
    if (d !== null && d !== undefined) return d;
  }
  try {
    return (await probe(m.path)).durationS ?? null;
  } catch {
    return null;
  }
}
