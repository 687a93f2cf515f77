import type { AnalysisKind, MeasurementInfo } from '../../../../src-preload/contract';
import { formatDateTime, formatTime } from '../../ui/format';

// Wording of measurements for people: percentages, the interface's UGC labels, and when and
// with which settings something was measured.

export const UGC_LABELS: Record<number, string> = { 1: 'Very bad', 2: 'Poor', 3: 'Normal', 4: 'Good', 5: 'Excellent' };

export const KIND_NAMES: Record<AnalysisKind, string> = {
  quality: 'Stock quality',
  qualityUgc: 'UGC quality',
  faces: 'Faces and ages',
  colors: 'Colours',
};

export const KIND_HINTS: Record<AnalysisKind, string> = {
  quality: 'How sellable the photo is as stock (0–100%)',
  qualityUgc: 'Quality for social and user content, with a class from Very bad to Excellent',
  faces: 'Finds faces and estimates each one’s age (never who it is)',
  colors: 'The main colours with their names and shares',
};

export const pct = (score: number): string => `${Math.round(score * 100)}%`;

/** A quality tier for colouring a score (the same 20/40/60/80 edges as the UGC classes). */
export function tier(score: number): 1 | 2 | 3 | 4 | 5 {
  return score < 0.2 ? 1 : score < 0.4 ? 2 : score < 0.6 ? 3 : score < 0.8 ? 4 : 5;
}

export function formatWhen(ms: number): string {
  const d = new Date(ms);
  const today = new Date();
  const sameDay = d.toDateString() === today.toDateString();
  const time = formatTime(d);
  return sameDay ? `today, ${time}` : formatDateTime(d);
}

/** '{lang: en, colors: true, num_colors: 5}' -> 'lang en · 5 colours'; nothing for no parameters. */
export function formatParams(params: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(params)) {
    if (k === 'colors' && v === true) continue;
    if (k === 'num_colors' || k === 'numColors') parts.push(`${String(v)} colours`);
    else if (k === 'lang') parts.push(`language ${String(v)}`);
    else if (k === 'force') continue;
    else parts.push(`${k.replace(/_/g, ' ')} ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`);
  }
  return parts.join(' · ');
}

export function provenance(m: MeasurementInfo): string {
  const p = formatParams(m.params);
  return `Analysed ${formatWhen(m.measuredAt)}${p ? ` · ${p}` : ' · default settings'}`;
}

/** "Age - Child" (the service's label) -> "Child". */
export function ageClassLabel(cls: string): string {
  return cls.replace(/^age\s*-\s*/i, '').trim() || cls;
}
