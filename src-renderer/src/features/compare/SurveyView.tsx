import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useClient } from '../../api/ClientContext';
import type { FlagSets } from '../analysis/useAnalysis';
import { useAssetDetail } from '../inspector/Inspector';
import { Button, formatCount } from '../../ui/primitives';
import { IconClose } from '../../ui/icons';
import { flagOf } from './CompareView';
import { JudgeFrame } from './JudgeFrame';
import { useJudge } from './useJudge';
import { useJudgeKeys } from './useJudgeKeys';
import { FIT, toggled, type Zoom } from './zoom';
import { SURVEY_GAP, surveyColumns } from './layout';
import './compare.css';

/**
 * The suggested best frame of each group of similar frames among the surveyed photos (the
 * quality score when measured, else the sharpness measured at scan time). Asked once per
 * survey; photos whose fingerprint is missing get it first.
 */
function useSuggestedBest(ids: number[]): ReadonlySet<number> {
  const { api } = useClient();
  const [best, setBest] = useState<ReadonlySet<number>>(new Set());
  useEffect(() => {
    let current = true;
    api.similarGroups({ ids }).then(
      (groups) => current && setBest(new Set(groups.map((g) => g.best))),
      // A survey works without the suggestion; the marks are simply not shown.
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [api, ids]);
  return best;
}

/**
 * Lightroom's Survey (N): the photos laid out to fill the window, each with its flag, stars
 * and label. A press makes one active; the judging keys apply to it; "/" or its ✕ takes it
 * out of the survey (never out of the library). Z zooms every photo to 100 % on the same
 * place, and a drag pans them all together.
 */
export function SurveyView({ ids: firstIds, flags, groupKind, active, onExit, onLoupe, onActive }: { ids: number[]; flags: FlagSets; groupKind?: 'burst' | 'similar'; active: boolean; onExit(): void; /** E: the active photo in the loupe. */ onLoupe(id: number): void; /** The active photo, whenever it changes: the inspector shows and edits it. */ onActive?(id: number): void }) {
  const judge = useJudge();
  const best = useSuggestedBest(firstIds);
  const [ids, setIds] = useState(firstIds);
  const [activeId, setActiveId] = useState<number>(firstIds[0]);
  const [zoom, setZoom] = useState<Zoom>(FIT);
  const areaRef = useRef<HTMLDivElement>(null);
  const [area, setArea] = useState({ w: 0, h: 0 });
  const detail = useAssetDetail(activeId);
  const activeLabel = detail.data?.id === activeId ? detail.data.label : null;
  useEffect(() => onActive?.(activeId), [activeId, onActive]);

  useLayoutEffect(() => {
    const el = areaRef.current;
    if (!el) return;
    const measure = () => setArea({ w: el.clientWidth, h: el.clientHeight });
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  const cols = surveyColumns(ids.length, area.w, area.h);
  const rows = Math.max(1, Math.ceil(ids.length / cols));

  const remove = (id: number) => {
    const at = ids.indexOf(id);
    const rest = ids.filter((x) => x !== id);
    if (!rest.length) return onExit();
    setIds(rest);
    setActiveId((cur) => (cur === id ? rest[Math.min(at, rest.length - 1)] : cur));
  };

  useJudgeKeys(active, {
    flag: (f) => void judge.setFlag(activeId, f),
    rate: (n) => judge.rate(activeId, n),
    label: (l) => judge.label(activeId, l, activeLabel),
    zoom: () => setZoom(toggled(zoom)),
    move: (d, vertical) => {
      const i = ids.indexOf(activeId) + d * (vertical ? cols : 1);
      if (i >= 0 && i < ids.length) setActiveId(ids[i]);
    },
    remove: () => remove(activeId),
    exit: onExit,
    undo: judge.undo,
    letters: { e: () => onLoupe(activeId) },
  });

  const picks = ids.filter((id) => flags.picks.has(id)).length;
  const rejects = ids.filter((id) => flags.rejects.has(id)).length;
  return (
    <div className="survey" data-testid="survey" data-count={ids.length} data-columns={cols} data-zoom={zoom.on ? '100' : 'fit'}>
      <div className="judge-bar">
        <span className="judge-title">Survey</span>
        <span className="small" data-testid="survey-count">
          {formatCount(ids.length)} photos
        </span>
        {groupKind && (
          <span className="muted small" data-testid="survey-group">
            {groupKind === 'burst' ? 'a burst' : 'similar frames'}
            {best.size > 0 ? ' · ★ marks the suggested best' : ''}
          </span>
        )}
        <div className="segmented" role="group" aria-label="Zoom">
          <button type="button" className={!zoom.on ? 'on' : ''} onClick={() => setZoom({ ...zoom, on: false })} data-testid="survey-fit">
            Fit
          </button>
          <button type="button" className={zoom.on ? 'on' : ''} onClick={() => setZoom({ ...zoom, on: true })} data-testid="survey-100">
            1:1
          </button>
        </div>
        <span className="cull-tally small">
          <span className="tally-pick">⚑ {formatCount(picks)} picked</span>
          <span className="tally-reject">✕ {formatCount(rejects)} rejected</span>
        </span>
        <div className="topbar-spacer" />
        <span className="muted small judge-hint">P X U · 0–5 · 6–9 · Z 1:1 (all) · / remove · E loupe · Esc done</span>
        <Button small onClick={onExit} data-testid="survey-exit">
          Done
        </Button>
      </div>
      <div ref={areaRef} className="survey-area">
        <div className="survey-grid" style={{ gridTemplateColumns: `repeat(${cols}, minmax(0, 1fr))`, gridTemplateRows: `repeat(${rows}, minmax(0, 1fr))`, gap: SURVEY_GAP }}>
          {ids.map((id) => (
            <JudgeFrame
              key={id}
              id={id}
              flag={flagOf(flags, id)}
              active={id === activeId}
              zoom={zoom}
              onZoom={setZoom}
              onActivate={() => setActiveId(id)}
              onRate={(n) => judge.rate(id, n)}
              testId="survey-cell"
              tag={best.has(id) ? <span data-testid="survey-best">★ Suggested best</span> : undefined}
            >
              <button
                type="button"
                className="judge-remove"
                title="Take out of the survey (/) — the photo stays in the library"
                aria-label="Take out of the survey"
                data-testid="survey-remove"
                onClick={() => remove(id)}
              >
                <IconClose />
              </button>
            </JudgeFrame>
          ))}
        </div>
      </div>
    </div>
  );
}
