import type { UgcClass } from '../../src-preload/contract';
import { ugcClassOf } from '../service/parse';

// Interface 4.7's class table: 1 Very Bad 0-20 %, 2 Poor 20-40 %, 3 Normal 40-60 %,
// 4 Good 60-80 %, 5 Excellent 80-100 %. A score on a boundary belongs to the upper class.

export const UGC_LABELS: Record<UgcClass, string> = { 1: 'Very Bad', 2: 'Poor', 3: 'Normal', 4: 'Good', 5: 'Excellent' };

/** The class of a UGC score (used when the service sends none): min(5, floor(score * 5) + 1). */
export const ugcClass = (score: number): UgcClass => ugcClassOf(score);

export const ugcLabel = (cls: number): string => UGC_LABELS[cls as UgcClass] ?? 'Unknown';
