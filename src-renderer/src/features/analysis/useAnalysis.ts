import type { AssetAnalysis, SearchQuery } from '../../../../src-preload/contract';
import { useQuery } from '../../api/useQuery';

/**
 * One asset's measurements. Measurements landing and flag edits emit libraryChanged, which
 * invalidates the 'assets' tag, so the entry re-fetches by itself.
 */
export function useAssetAnalysis(id: number | null) {
  return useQuery<AssetAnalysis>(id === null ? null : `analysis:${id}`, ['assets'], (a) => a.getAssetAnalysis({ id: id! }));
}

export interface FlagSets {
  picks: ReadonlySet<number>;
  rejects: ReadonlySet<number>;
}

const NONE: FlagSets = { picks: new Set(), rejects: new Set() };

/**
 * Picks and rejects among the current view. AssetSummary carries no flag yet, so the view's
 * query is asked twice with a flag filter (two id lists, not one call per cell).
 */
export function useFlagSets(query: SearchQuery | null): FlagSets {
  const base = query ? { ...query, sort: 'name' as const, order: 'asc' as const } : null;
  const picks = useQuery<Int32Array>(base ? `flags:pick:${JSON.stringify(base)}` : null, ['assets'], (a) => a.searchIds({ query: { ...base!, flag: 'pick' } }));
  const rejects = useQuery<Int32Array>(base ? `flags:reject:${JSON.stringify(base)}` : null, ['assets'], (a) => a.searchIds({ query: { ...base!, flag: 'reject' } }));
  if (!query) return NONE;
  return { picks: setOf(picks.data), rejects: setOf(rejects.data) };
}

const sets = new WeakMap<Int32Array, Set<number>>();
function setOf(list: Int32Array | undefined): ReadonlySet<number> {
  if (!list) return NONE.picks;
  let s = sets.get(list);
  if (!s) {
    s = new Set(list);
    sets.set(list, s);
  }
  return s;
}
