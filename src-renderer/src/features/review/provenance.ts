import type { KeywordRunOptions, LimitPreset, RunView } from '../../../../src-preload/contract';
import { LANGS } from '../keywording/RunDialog';
import { formatDateTime } from '../../ui/format';

const when = (ms: number): string => formatDateTime(ms);

export function langName(code: string | null): string {
  return LANGS.find((l) => l.code === code)?.label ?? code ?? '';
}

/** "Run 3 · English · 30 keywords, score ≥ 0.20, colours · 14 May, 12:04" */
export function keywordProvenance(runId: number, lang: string, params: KeywordRunOptions, createdAt: number): string {
  const p = [
    params.numKeywords !== undefined ? `${params.numKeywords} keywords` : null,
    params.threshold !== undefined ? `score ≥ ${params.threshold.toFixed(2)}` : null,
    params.colors ? 'colours' : null,
  ].filter(Boolean);
  return [`Run ${runId}`, langName(lang), p.join(', '), when(createdAt)].filter(Boolean).join(' · ');
}

export function runLabel(r: RunView): string {
  if (r.kind === 'keywords') return keywordProvenance(r.id, r.lang ?? 'en', r.params as KeywordRunOptions, r.createdAt);
  const len = (r.params as { length?: string }).length ?? 'normal';
  return `Run ${r.id} · ${len} captions · ${when(r.createdAt)}`;
}

export const PRESET_NAME: Record<LimitPreset, string> = { default: 'Default', adobe: 'Adobe Stock', shutterstock: 'Shutterstock', custom: 'Custom limit' };
