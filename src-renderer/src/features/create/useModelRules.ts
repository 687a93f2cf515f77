import type { ModelRules } from '../../../../src-preload/contract';
import { useQuery } from '../../api/useQuery';

/** The per-model tables the forms obey (main's one data table; free, never changes while running). */
export function useModelRules() {
  return useQuery<ModelRules>('creative:modelRules', [], (a) => a.modelRules());
}
