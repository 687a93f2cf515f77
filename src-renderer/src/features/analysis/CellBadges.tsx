import { createContext, useContext } from 'react';
import { useAssetAnalysis, type FlagSets } from './useAnalysis';
import { pct, tier, UGC_LABELS } from './format';
import './analysis.css';

// What the analysis adds to a grid cell: a pick/reject flag where known, and (when the user
// turns scores on) the quality percentage with the UGC class label.

export interface CellDecorations {
  flags: FlagSets;
  showScores: boolean;
}

export const CellDecorationsContext = createContext<CellDecorations | null>(null);

/** Pick/reject badge (top-left) and, when scores are on, the quality chip (bottom-left). */
export function CellAnalysisBadges({ id }: { id: number }) {
  const deco = useContext(CellDecorationsContext);
  if (!deco) return null;
  const flag = deco.flags.picks.has(id) ? 'pick' : deco.flags.rejects.has(id) ? 'reject' : null;
  return (
    <>
      {flag && (
        <span className={`flag-badge flag-${flag}`} data-testid="cell-flag" data-flag={flag} title={flag === 'pick' ? 'Picked (P)' : 'Rejected (X)'}>
          {flag === 'pick' ? '⚑' : '✕'}
        </span>
      )}
      {deco.showScores && <CellScore id={id} />}
    </>
  );
}

function CellScore({ id }: { id: number }) {
  const analysis = useAssetAnalysis(id);
  const a = analysis.data;
  if (!a || (!a.quality && !a.ugc)) return null;
  const score = a.quality?.score ?? a.ugc!.score;
  return (
    <span className={`score-chip tier-${tier(score)}`} data-testid="cell-score" data-score={score} title={a.quality ? `Stock quality ${pct(a.quality.score)}` : 'UGC quality'}>
      <b>{pct(score)}</b>
      {a.ugc && <span>{UGC_LABELS[a.ugc.class] ?? a.ugc.label}</span>}
    </span>
  );
}
