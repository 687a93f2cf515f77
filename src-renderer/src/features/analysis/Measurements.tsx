import type { ReactNode } from 'react';
import { Section } from '../../ui/primitives';
import { useAssetAnalysis } from './useAnalysis';
import { ageClassLabel, pct, provenance, tier, UGC_LABELS } from './format';
import './analysis.css';

function Block({ title, info, children, testId }: { title: string; info: string | null; children: ReactNode; testId: string }) {
  return (
    <div className="measure-block" data-testid={testId}>
      <div className="measure-head">
        <span className="measure-title">{title}</span>
      </div>
      {children}
      {info && <div className="measure-prov muted small">{info}</div>}
    </div>
  );
}

/** The inspector's "Measurements": what the service measured for this asset, each with when and how. */
export function MeasurementsSection({ id }: { id: number }) {
  const q = useAssetAnalysis(id);
  const a = q.data?.assetId === id ? q.data : undefined;
  if (!a) return null;
  const nothing = !a.quality && !a.ugc && a.faces === null && a.colors === null;
  return (
    <Section title="Measurements" testId="measurements">
      {nothing && <p className="muted small measure-empty">Not measured yet. Use Analyse… to score quality, find faces and name the colours.</p>}
      {(a.quality || a.ugc) && (
        <div className="measure-scores">
          {a.quality && (
            <Block title="Stock quality" info={provenance(a.quality)} testId="measure-quality">
              <ScoreBar score={a.quality.score} label={pct(a.quality.score)} testId="measure-quality-value" />
            </Block>
          )}
          {a.ugc && (
            <Block title="UGC quality" info={provenance(a.ugc)} testId="measure-ugc">
              <ScoreBar score={a.ugc.score} label={`${pct(a.ugc.score)} · ${UGC_LABELS[a.ugc.class] ?? a.ugc.label}`} testId="measure-ugc-value" />
            </Block>
          )}
        </div>
      )}
      {a.faces !== null && (
        <Block title={a.faces.length ? `Faces · ${a.faces.length}` : 'Faces'} info={a.facesMeasured ? provenance(a.facesMeasured) : null} testId="measure-faces">
          {a.faces.length === 0 ? (
            <div className="muted small">No faces found.</div>
          ) : (
            <table className="face-table" data-testid="face-list">
              <thead>
                <tr>
                  <th>#</th>
                  <th>Est. age</th>
                  <th>Age range</th>
                  <th className="num">Confidence</th>
                </tr>
              </thead>
              <tbody>
                {a.faces.map((f, i) => (
                  <tr key={i} data-testid="face-row">
                    <td className="muted">{i + 1}</td>
                    <td>{Math.round(f.age)}</td>
                    <td>{ageClassLabel(f.class)}</td>
                    <td className="num">{pct(f.score)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {a.releaseNeeded && (
            <div className="release-note" data-testid="release-needed">
              Faces found — a model release is likely needed. Ages are estimates; Tagsmith never identifies anyone.
            </div>
          )}
        </Block>
      )}
      {a.colors !== null && (
        <Block title="Colours" info={a.colorsMeasured ? provenance(a.colorsMeasured) : null} testId="measure-colors">
          <div className="swatch-bar" aria-hidden>
            {a.colors.map((c, i) => (
              <span key={i} style={{ background: c.hex, flexGrow: Math.max(0.5, c.percentage) }} />
            ))}
          </div>
          <ul className="swatch-list">
            {a.colors.map((c, i) => (
              <li key={i} data-testid="swatch" data-hex={c.hex}>
                <span className="swatch" style={{ background: c.hex }} />
                <span className="swatch-name">{c.name}</span>
                <span className="swatch-hex muted">{c.hex.toUpperCase()}</span>
                <span className="swatch-share">{c.percentage.toFixed(c.percentage < 10 ? 1 : 0)}%</span>
              </li>
            ))}
          </ul>
        </Block>
      )}
    </Section>
  );
}

function ScoreBar({ score, label, testId }: { score: number; label: string; testId: string }) {
  return (
    <div className="score-bar-row">
      <span className={`score-bar tier-${tier(score)}`}>
        <span style={{ width: `${Math.max(2, score * 100)}%` }} />
      </span>
      <span className="score-value" data-testid={testId}>{label}</span>
    </div>
  );
}
