import { useCallback, useEffect, useState } from 'react';
import type { Flag } from '../../../../src-preload/contract';
import type { FlagSets } from '../analysis/useAnalysis';
import { useAssetDetail } from '../inspector/Inspector';
import { Button, formatCount } from '../../ui/primitives';
import { IconLock } from './icons';
import { JudgeFrame } from './JudgeFrame';
import { useJudge } from './useJudge';
import { useJudgeKeys } from './useJudgeKeys';
import { FIT, toggled, type Zoom } from './zoom';
import './compare.css';

type Side = 'select' | 'candidate';

export const flagOf = (flags: FlagSets, id: number): Flag | null => (flags.picks.has(id) ? 'pick' : flags.rejects.has(id) ? 'reject' : null);

/**
 * Lightroom's Compare (C): the select on the left, a candidate on the right, both at fit or
 * both at 100 % on the same place while the lock is closed. ←/→ bring the next or previous
 * candidate, ↑ makes the candidate the select, ↓ swaps them. P/X/U, 0–5 and 6–9 judge the
 * active photo (outlined; a press on a photo makes it active).
 */
export function CompareView({ ids, select: firstSelect, candidate: firstCandidate, flags, active, onExit, onLoupe, onActive }: { ids: number[]; select: number; candidate: number; flags: FlagSets; active: boolean; onExit(): void; /** E: the active photo in the loupe. */ onLoupe(id: number): void; /** The active photo, whenever it changes: the inspector shows and edits it. */ onActive?(id: number): void }) {
  const judge = useJudge();
  const [pair, setPair] = useState({ select: firstSelect, candidate: firstCandidate });
  const [side, setSide] = useState<Side>('select');
  const [lock, setLock] = useState(true);
  const [zooms, setZooms] = useState<Record<Side, Zoom>>({ select: FIT, candidate: FIT });
  const activeId = side === 'select' ? pair.select : pair.candidate;
  const detail = useAssetDetail(activeId);
  const activeLabel = detail.data?.id === activeId ? detail.data.label : null;
  useEffect(() => onActive?.(activeId), [activeId, onActive]);

  const setZoom = useCallback((s: Side, z: Zoom) => setZooms((all) => (lock ? { select: z, candidate: z } : { ...all, [s]: z })), [lock]);

  /** The next photo of the pool after (or before) the candidate that is not the select. */
  const nextCandidate = useCallback(
    (from: number, delta: number, select: number): number | null => {
      let i = ids.indexOf(from);
      for (let n = 0; n < ids.length; n++) {
        i += delta;
        if (i < 0 || i >= ids.length) return null;
        if (ids[i] !== select) return ids[i];
      }
      return null;
    },
    [ids],
  );

  const stepCandidate = (delta: number) => {
    const next = nextCandidate(pair.candidate, delta, pair.select);
    if (next !== null) {
      setPair((p) => ({ ...p, candidate: next }));
      setSide('candidate');
    }
  };
  const swap = () => {
    setPair((p) => ({ select: p.candidate, candidate: p.select }));
    setSide((s) => (s === 'select' ? 'candidate' : 'select'));
  };
  const makeSelect = () => {
    const next = nextCandidate(pair.candidate, 1, pair.candidate) ?? nextCandidate(pair.candidate, -1, pair.candidate);
    setPair({ select: pair.candidate, candidate: next !== null && next !== pair.candidate ? next : pair.select });
    setSide('select');
  };

  useJudgeKeys(active, {
    flag: (f) => void judge.setFlag(activeId, f),
    rate: (n) => judge.rate(activeId, n),
    label: (l) => judge.label(activeId, l, activeLabel),
    zoom: () => setZoom(side, toggled(zooms[side])),
    move: (d, vertical) => (vertical ? (d < 0 ? makeSelect() : swap()) : stepCandidate(d)),
    exit: onExit,
    undo: judge.undo,
    letters: { e: () => onLoupe(activeId) },
  });

  const pos = ids.indexOf(pair.candidate);
  const frame = (s: Side) => {
    const id = s === 'select' ? pair.select : pair.candidate;
    return (
      <JudgeFrame
        key={s}
        id={id}
        flag={flagOf(flags, id)}
        active={side === s}
        zoom={zooms[s]}
        onZoom={(z) => setZoom(s, z)}
        onActivate={() => setSide(s)}
        onRate={(n) => judge.rate(id, n)}
        testId={`compare-${s}`}
        tag={s === 'select' ? 'Select' : 'Candidate'}
      />
    );
  };

  return (
    <div className="compare" data-testid="compare" data-lock={lock} data-active-side={side}>
      <div className="judge-bar">
        <span className="judge-title">Compare</span>
        <button
          type="button"
          className={`judge-lock small${lock ? ' on' : ''}`}
          aria-pressed={lock}
          title="Zoom and pan both photos together"
          onClick={() => setLock((l) => !l)}
          data-testid="compare-lock"
        >
          <IconLock open={!lock} /> {lock ? 'Zoom locked' : 'Zoom unlocked'}
        </button>
        <div className="segmented" role="group" aria-label="Zoom">
          <button type="button" className={!zooms[side].on ? 'on' : ''} onClick={() => setZoom(side, { ...zooms[side], on: false })} data-testid="compare-fit">
            Fit
          </button>
          <button type="button" className={zooms[side].on ? 'on' : ''} onClick={() => setZoom(side, { ...zooms[side], on: true })} data-testid="compare-100">
            1:1
          </button>
        </div>
        <Button small onClick={swap} title="Swap select and candidate (↓)" data-testid="compare-swap">
          ⇄ Swap
        </Button>
        <Button small onClick={makeSelect} title="The candidate becomes the select (↑)" data-testid="compare-make-select">
          Make select
        </Button>
        <span className="muted small" data-testid="compare-position">
          {pos >= 0 ? `Candidate ${formatCount(pos + 1)} of ${formatCount(ids.length)}` : ''}
        </span>
        <div className="topbar-spacer" />
        <span className="muted small judge-hint">P X U · 0–5 · 6–9 · Z 1:1 · ←/→ candidate · E loupe · Esc done</span>
        <Button small onClick={onExit} data-testid="compare-exit">
          Done
        </Button>
      </div>
      <div className="compare-pair">
        {frame('select')}
        {frame('candidate')}
      </div>
    </div>
  );
}
