import { useEffect, useState } from 'react';
import type { AnalysisKind, AnalysisRunOptions, RunPreview, RunStarted, RunTarget } from '../../../../src-preload/contract';
import { useClient } from '../../api/ClientContext';
import { useDebounced } from '../../state/useDebounced';
import { IconWarn } from '../../ui/icons';
import { Modal } from '../../ui/Modal';
import { Button, Spinner, formatCount } from '../../ui/primitives';
import { errorText, useToast } from '../../ui/Toasts';
import type { RunScope } from '../keywording/RunDialog';
import { KIND_HINTS, KIND_NAMES } from './format';
import { formatMoney } from '../../ui/format';
import './analysis.css';

const KINDS: AnalysisKind[] = ['quality', 'qualityUgc', 'faces', 'colors'];

export interface AnalysisStarted {
  kind: AnalysisKind;
  run: RunStarted;
}

/** What was ticked last time, for the next Analyse… in this session. */
let lastKinds: AnalysisKind[] = ['quality', 'faces'];
let lastNumColors = 5;

interface KindPreview {
  kind: AnalysisKind;
  preview: RunPreview;
}

/**
 * Analyse…: quality, UGC quality, faces, colours for the selection or the search. Before
 * anything is sent it shows, per measurement, the billable calls (cache hits and photos
 * already measured with the same settings left out) and the cost under the caps.
 */
export function AnalyseDialog({ scope, onClose, onStarted }: { scope: RunScope; onClose(): void; onStarted(started: AnalysisStarted[]): void }) {
  const { api } = useClient();
  const toast = useToast();
  const [useQueryScope, setUseQueryScope] = useState(scope.selected.length === 0);
  const [kinds, setKinds] = useState<AnalysisKind[]>(lastKinds);
  const [numColors, setNumColors] = useState(lastNumColors);
  const [force, setForce] = useState(false);
  const [answer, setAnswer] = useState<{ request: string; previews: KindPreview[] | null; problem: string | null } | null>(null);
  const [starting, setStarting] = useState(false);

  const target: RunTarget = useQueryScope && scope.query ? scope.query.target : { assetIds: scope.selected };
  const targetCount = useQueryScope && scope.query ? scope.query.total : scope.selected.length;
  const colorsOk = Number.isInteger(numColors) && numColors >= 1 && numColors <= 10;
  const options = (kind: AnalysisKind): AnalysisRunOptions => ({ kind, ...(kind === 'colors' ? { numColors } : {}), ...(force ? { force } : {}) });
  const request = useDebounced(JSON.stringify({ target, kinds, numColors, force }), 120);

  useEffect(() => {
    let live = true;
    const { target: t, kinds: ks } = JSON.parse(request) as { target: RunTarget; kinds: AnalysisKind[] };
    if (!ks.length || !colorsOk) return;
    Promise.all(ks.map(async (kind) => ({ kind, preview: await api.previewAnalysisRun({ target: t, options: options(kind) }) }))).then(
      (p) => live && setAnswer({ request, previews: p, problem: null }),
      (err: unknown) => live && setAnswer({ request, previews: null, problem: errorText(err) }),
    );
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the serialised request is the identity
  }, [api, request]);

  // Answers belong to one request: while a newer one is counted, show "counting".
  const settled = answer?.request === request ? answer : null;
  const previews = !kinds.length || !colorsOk ? [] : (settled?.previews ?? null);
  const problem = settled?.problem ?? null;
  const sum = (f: (p: RunPreview) => number) => (previews ?? []).reduce((n, p) => n + f(p.preview), 0);
  const jobs = sum((p) => p.jobs);
  const billable = sum((p) => p.billable);
  const fits = (previews ?? []).every((p) => p.preview.fitsCaps);
  const costs = (previews ?? []).map((p) => p.preview.estimatedCost);
  const cost = costs.some((c) => c === null) ? null : costs.reduce<number>((n, c) => n + (c ?? 0), 0);
  const canStart = !!previews && previews.length > 0 && fits && jobs > 0 && !starting && colorsOk;

  const start = async () => {
    if (!canStart) return;
    setStarting(true);
    const started: AnalysisStarted[] = [];
    try {
      for (const { kind, preview } of previews!) {
        if (preview.jobs === 0) continue;
        started.push({ kind, run: await api.startAnalysisRun({ target, options: options(kind) }) });
      }
      lastKinds = kinds;
      lastNumColors = numColors;
      onStarted(started);
      onClose();
    } catch (err) {
      if (started.length) onStarted(started);
      toast.error(err);
      setStarting(false);
    }
  };

  const toggle = (k: AnalysisKind) => setKinds((l) => (l.includes(k) ? l.filter((x) => x !== k) : KINDS.filter((x) => x === k || l.includes(x))));

  return (
    <Modal
      title="Analyse photos"
      subtitle="Scores, faces and colours are measured by the service and stored with the photo. Nothing in the files changes."
      onClose={onClose}
      testId="analyse-dialog"
      footer={
        <>
          <span className="modal-hint muted small">Enter to start · Esc to close</span>
          <Button onClick={onClose} data-testid="analyse-cancel">Cancel</Button>
          <Button variant="primary" disabled={!canStart} onClick={() => void start()} data-testid="analyse-confirm">
            {starting ? <Spinner label="Starting" /> : null}
            {jobs > 0 ? `Analyse ${formatCount(jobs)} ${jobs === 1 ? 'photo' : 'photos'}` : 'Analyse'}
          </Button>
        </>
      }
    >
      <form
        className="run-form"
        onSubmit={(e) => {
          e.preventDefault();
          void start();
        }}
      >
        <div className="form-row form-row-tight">
          <span className="form-label">Photos</span>
          {scope.query && scope.selected.length > 0 ? (
            <div className="segmented" role="group" aria-label="Which photos">
              <button type="button" className={!useQueryScope ? 'on' : ''} onClick={() => setUseQueryScope(false)} data-testid="analyse-scope-selected">
                {formatCount(scope.selected.length)} selected
              </button>
              <button type="button" className={useQueryScope ? 'on' : ''} onClick={() => setUseQueryScope(true)} data-testid="analyse-scope-query">
                All {formatCount(scope.query.total)} matching
              </button>
            </div>
          ) : (
            <span>{useQueryScope ? `All ${formatCount(targetCount)} matching the search` : `${formatCount(targetCount)} selected`}</span>
          )}
        </div>
        <div className="analyse-kinds" role="group" aria-label="Measurements">
          {KINDS.map((k) => {
            const p = previews?.find((x) => x.kind === k)?.preview;
            const done = p?.skippedCounts.already_done ?? 0;
            return (
              <label key={k} className={`analyse-kind${kinds.includes(k) ? ' on' : ''}`} data-testid={`analyse-kind-${k}`}>
                <input type="checkbox" checked={kinds.includes(k)} onChange={() => toggle(k)} data-testid={`analyse-check-${k}`} />
                <span className="analyse-kind-text">
                  <span className="analyse-kind-name">{KIND_NAMES[k]}</span>
                  <span className="muted small">{KIND_HINTS[k]}</span>
                </span>
                {k === 'colors' && kinds.includes('colors') && (
                  <span className="input-unit" onClick={(e) => e.preventDefault()}>
                    <input type="number" min={1} max={10} value={Number.isNaN(numColors) ? '' : numColors} onChange={(e) => setNumColors(e.target.valueAsNumber)} aria-invalid={!colorsOk} aria-label="Number of colours" data-testid="analyse-num-colors" />
                    <span className="muted small">colours</span>
                  </span>
                )}
                <span className="analyse-kind-count small" data-testid={`analyse-billable-${k}`} data-billable={p?.billable ?? ''} data-cached={p?.cached ?? ''} data-done={done}>
                  {p ? (
                    <>
                      <b>{formatCount(p.billable)}</b> billable
                      <span className="muted">
                        {' '}
                        · {formatCount(p.cached + p.duplicates)} cached · {formatCount(done)} analysed
                      </span>
                    </>
                  ) : kinds.includes(k) ? (
                    <span className="muted">…</span>
                  ) : null}
                </span>
              </label>
            );
          })}
        </div>
        <label className="form-row form-row-tight">
          <span className="form-label">Again</span>
          <span>
            <input type="checkbox" checked={force} onChange={(e) => setForce(e.target.checked)} data-testid="analyse-force" />
            <span className="muted small">Analyse photos already analysed with these settings (answers in the cache cost nothing)</span>
          </span>
        </label>
        <button type="submit" hidden />
      </form>
      {problem ? (
        <div className="run-cost run-cost-bad" data-testid="analyse-preview-error">
          <IconWarn />
          <span>{problem}</span>
        </div>
      ) : !previews ? (
        <div className="run-cost">
          <Spinner label="Counting" /> <span className="muted">Counting billable calls…</span>
        </div>
      ) : kinds.length === 0 ? (
        <div className="run-cost muted">Tick at least one measurement.</div>
      ) : (
        <div className={`run-cost${fits ? '' : ' run-cost-bad'}`} data-testid="analyse-preview" data-billable={billable} data-fits={fits} data-jobs={jobs}>
          <div className="run-cost-main">
            <span className="run-cost-number" data-testid="analyse-billable">{formatCount(billable)}</span>
            <span>
              billable {billable === 1 ? 'call' : 'calls'}
              <span className="muted"> for {formatCount(targetCount)} {targetCount === 1 ? 'photo' : 'photos'}</span>
            </span>
          </div>
          <div className="run-cost-sub">
            <span>{cost !== null ? `Est. cost ${formatMoney(cost)}` : 'No price set for every measurement — add prices in Settings to see the cost'}</span>
            <span className="muted">·</span>
            <span>{capsText(previews[previews.length - 1].preview)}</span>
          </div>
          {!fits && (
            <div className="run-cost-warn" data-testid="analyse-caps-warning">
              <IconWarn />
              <span>{previews.find((p) => !p.preview.fitsCaps)?.preview.message || 'This does not fit under your usage caps. Raise them in Settings, or select fewer photos.'}</span>
            </div>
          )}
          {jobs === 0 && <div className="muted small" data-testid="analyse-nothing">Everything is already analysed with these settings — tick “Again” to analyse anew.</div>}
        </div>
      )}
    </Modal>
  );
}

function capsText(p: RunPreview): string {
  const rem = p.remaining;
  const left = [rem.today !== null ? `${formatCount(rem.today)} left today` : null, rem.thisMonth !== null ? `${formatCount(rem.thisMonth)} this month` : null].filter(Boolean);
  return left.length ? `${left.join(', ')} under your caps` : 'No usage caps set';
}
