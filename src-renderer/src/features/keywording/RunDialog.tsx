import { useEffect, useState } from 'react';
import type { CaptionLength, KeywordLang, RunPreview, RunStarted, RunTarget, SearchQuery } from '../../../../src-preload/contract';
import { useClient } from '../../api/ClientContext';
import { useDebounced } from '../../state/useDebounced';
import { IconWarn } from '../../ui/icons';
import { Modal } from '../../ui/Modal';
import { Button, Spinner, formatCount } from '../../ui/primitives';
import { formatMoney } from '../../ui/format';
import { errorText, useToast } from '../../ui/Toasts';

export type RunKindUi = 'keywords' | 'caption';

export const LANGS: { code: KeywordLang; label: string }[] = [
  { code: 'en', label: 'English' },
  { code: 'ru', label: 'Russian' },
  { code: 'es', label: 'Spanish' },
  { code: 'fr', label: 'French' },
  { code: 'de', label: 'German' },
  { code: 'pt', label: 'Portuguese' },
  { code: 'it', label: 'Italian' },
];

const LENGTHS: { value: CaptionLength; label: string; hint: string }[] = [
  { value: 'short', label: 'Short', hint: 'a few words' },
  { value: 'normal', label: 'Normal', hint: 'one sentence' },
  { value: 'long', label: 'Long', hint: 'a few sentences' },
];

export interface RunScope {
  selected: number[];
  /** Everything the current search and filters find (null: no search to offer). */
  query: { target: { query: SearchQuery }; total: number } | null;
}

interface KeywordDraft {
  lang: KeywordLang;
  numKeywords: number;
  threshold: number;
  colors: boolean;
}

/** The options last used, for the next run in this session. */
let lastKeyword: KeywordDraft = { lang: 'en', numKeywords: 30, threshold: 0.2, colors: false };
let lastLength: CaptionLength = 'normal';


/**
 * Keyword… / Caption…: the options, then what the run will cost before anything is sent —
 * billable calls with cache hits and already-done photos left out, against the user's caps.
 * Confirm queues it; progress then shows in the library's toolbar.
 */
export function RunDialog({ kind, scope, onClose, onStarted }: { kind: RunKindUi; scope: RunScope; onClose(): void; onStarted(run: RunStarted): void }) {
  const { api } = useClient();
  const toast = useToast();
  const [useQueryScope, setUseQueryScope] = useState(scope.selected.length === 0);
  const [kw, setKw] = useState<KeywordDraft>(lastKeyword);
  const [length, setLength] = useState<CaptionLength>(lastLength);
  const [force, setForce] = useState(false);
  const [perGroup, setPerGroup] = useState(false);
  const [preview, setPreview] = useState<RunPreview | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [starting, setStarting] = useState(false);

  const target: RunTarget = useQueryScope && scope.query ? scope.query.target : { assetIds: scope.selected };
  const targetCount = useQueryScope && scope.query ? scope.query.total : scope.selected.length;
  const numOk = Number.isInteger(kw.numKeywords) && kw.numKeywords >= 1 && kw.numKeywords <= 50;
  const thresholdOk = kw.threshold >= 0 && kw.threshold <= 1;
  const request = useDebounced(JSON.stringify({ target, kind, kw, length, force, perGroup }), 120);

  useEffect(() => {
    if (kind === 'keywords' && (!numOk || !thresholdOk)) return;
    let live = true;
    const { target: t } = JSON.parse(request) as { target: RunTarget };
    const call =
      kind === 'keywords'
        ? api.previewKeywordRun({ target: t, options: { ...kw, force, perGroup } })
        : api.previewCaptionRun({ target: t, options: { length, force, perGroup } });
    call.then(
      (p) => {
        if (!live) return;
        setPreview(p);
        setProblem(null);
      },
      (err: unknown) => live && setProblem(errorText(err)),
    );
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the serialised request is the identity
  }, [api, request]);

  const start = async () => {
    if (!preview || starting) return;
    setStarting(true);
    try {
      const run =
        kind === 'keywords'
          ? await api.startKeywordRun({ target, options: { ...kw, force, perGroup } })
          : await api.startCaptionRun({ target, options: { length, force, perGroup } });
      if (kind === 'keywords') lastKeyword = kw;
      else lastLength = length;
      onStarted(run);
      onClose();
    } catch (err) {
      toast.error(err);
      setStarting(false);
    }
  };

  const counts = preview?.skippedCounts ?? {};
  const done = counts.already_done ?? 0;
  const other = (counts.offline ?? 0) + (counts.unsupported ?? 0);
  const otherReason = preview?.skipped.find((s) => s.reason !== 'already_done')?.message;
  const noun = kind === 'keywords' ? 'Keyword' : 'Caption';
  const fresh = preview ? preview.jobs : 0;
  const canStart = !!preview && preview.fitsCaps && fresh > 0 && !starting && (kind === 'caption' || (numOk && thresholdOk));

  return (
    <Modal
      title={kind === 'keywords' ? 'Keyword photos' : 'Caption photos'}
      subtitle={kind === 'keywords' ? 'Suggestions land for review; nothing is added to a photo until you accept it.' : 'Captions land as suggestions you can edit, then use as a caption or a title.'}
      onClose={onClose}
      testId={`run-dialog-${kind}`}
      footer={
        <>
          <span className="modal-hint muted small">Enter to start · Esc to close</span>
          <Button onClick={onClose} data-testid="run-cancel">Cancel</Button>
          <Button variant="primary" disabled={!canStart} onClick={() => void start()} data-testid="run-confirm">
            {starting ? <Spinner label="Starting" /> : null}
            {noun} {formatCount(fresh)} {fresh === 1 ? 'photo' : 'photos'}
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
        {scope.query && scope.selected.length > 0 && (
          <div className="form-row form-row-tight">
            <span className="form-label">Photos</span>
            <div className="segmented" role="group" aria-label="Which photos">
              <button type="button" className={!useQueryScope ? 'on' : ''} onClick={() => setUseQueryScope(false)} data-testid="run-scope-selected">
                {formatCount(scope.selected.length)} selected
              </button>
              <button type="button" className={useQueryScope ? 'on' : ''} onClick={() => setUseQueryScope(true)} data-testid="run-scope-query">
                All {formatCount(scope.query.total)} matching
              </button>
            </div>
          </div>
        )}
        {!(scope.query && scope.selected.length > 0) && (
          <div className="form-row form-row-tight">
            <span className="form-label">Photos</span>
            <span>{useQueryScope ? `All ${formatCount(targetCount)} matching the search` : `${formatCount(targetCount)} selected`}</span>
          </div>
        )}
        {kind === 'keywords' ? (
          <>
            <label className="form-row form-row-tight">
              <span className="form-label">Language</span>
              <select value={kw.lang} onChange={(e) => setKw({ ...kw, lang: e.target.value as KeywordLang })} data-testid="run-lang" data-autofocus>
                {LANGS.map((l) => (
                  <option key={l.code} value={l.code}>
                    {l.label} ({l.code})
                  </option>
                ))}
              </select>
            </label>
            <label className="form-row form-row-tight">
              <span className="form-label">Keywords per photo</span>
              <span className="input-unit">
                <input
                  type="number"
                  min={1}
                  max={50}
                  value={Number.isNaN(kw.numKeywords) ? '' : kw.numKeywords}
                  onChange={(e) => setKw({ ...kw, numKeywords: e.target.valueAsNumber })}
                  aria-invalid={!numOk}
                  data-testid="run-num"
                />
                <span className="muted small">1–50</span>
              </span>
            </label>
            <label className="form-row form-row-tight">
              <span className="form-label">Minimum score</span>
              <span className="input-unit">
                <input type="range" min={0} max={1} step={0.05} value={kw.threshold} onChange={(e) => setKw({ ...kw, threshold: Number(e.target.value) })} data-testid="run-threshold" />
                <span className="score-readout">{kw.threshold.toFixed(2)}</span>
              </span>
            </label>
            <label className="form-row form-row-tight">
              <span className="form-label">Colours</span>
              <span>
                <input type="checkbox" checked={kw.colors} onChange={(e) => setKw({ ...kw, colors: e.target.checked })} data-testid="run-colors" />
                <span className="muted small">Also name the main colours</span>
              </span>
            </label>
          </>
        ) : (
          <div className="form-row form-row-tight">
            <span className="form-label">Length</span>
            <div className="segmented" role="group" aria-label="Caption length">
              {LENGTHS.map((l) => (
                <button key={l.value} type="button" className={length === l.value ? 'on' : ''} title={l.hint} onClick={() => setLength(l.value)} data-testid={`run-length-${l.value}`}>
                  {l.label}
                </button>
              ))}
            </div>
          </div>
        )}
        <label className="form-row form-row-tight">
          <span className="form-label">Again</span>
          <span>
            <input type="checkbox" checked={force} onChange={(e) => setForce(e.target.checked)} data-testid="run-force" />
            <span className="muted small">Run on photos already done with these settings (answers in the cache cost nothing)</span>
          </span>
        </label>
        <label className="form-row form-row-tight">
          <span className="form-label">Similar photos</span>
          <span>
            <input type="checkbox" checked={perGroup} onChange={(e) => setPerGroup(e.target.checked)} data-testid="run-per-group" />
            <span className="muted small">One call per similar group: its pick (else its best frame) is sent, the others receive its suggestions to review</span>
          </span>
        </label>
        <button type="submit" hidden />
      </form>
      <RunCost preview={preview} problem={problem} done={done} other={other} otherReason={otherReason} />
    </Modal>
  );
}

function RunCost({ preview, problem, done, other, otherReason }: { preview: RunPreview | null; problem: string | null; done: number; other: number; otherReason?: string }) {
  if (problem) {
    return (
      <div className="run-cost run-cost-bad" data-testid="run-preview-error">
        <IconWarn />
        <span>{problem}</span>
      </div>
    );
  }
  if (!preview) {
    return (
      <div className="run-cost" data-testid="run-preview-loading">
        <Spinner label="Counting" /> <span className="muted">Counting billable calls…</span>
      </div>
    );
  }
  const rem = preview.remaining;
  const left = [rem.today !== null ? `${formatCount(rem.today)} left today` : null, rem.thisMonth !== null ? `${formatCount(rem.thisMonth)} this month` : null].filter(Boolean);
  return (
    <div className={`run-cost${preview.fitsCaps ? '' : ' run-cost-bad'}`} data-testid="run-preview" data-billable={preview.billable} data-cached={preview.cached} data-done={done} data-fits={preview.fitsCaps}>
      <div className="run-cost-main">
        <span className="run-cost-number" data-testid="run-billable">{formatCount(preview.billable)}</span>
        <span>
          billable {preview.billable === 1 ? 'call' : 'calls'}
          <span className="muted">
            {' '}
            ({formatCount(preview.cached + preview.duplicates)} cached, {formatCount(done)} already done)
          </span>
        </span>
      </div>
      <div className="run-cost-sub">
        <span>{preview.estimatedCost !== null ? `Est. cost ${formatMoney(preview.estimatedCost)}` : 'No price set — add one in Settings to see the cost'}</span>
        <span className="muted">·</span>
        <span>{left.length ? `${left.join(', ')} under your caps` : 'No usage caps set'}</span>
      </div>
      {!preview.fitsCaps && (
        <div className="run-cost-warn" data-testid="run-caps-warning">
          <IconWarn />
          <span>{preview.message || 'This run does not fit under your usage caps. Raise them in Settings, or select fewer photos.'}</span>
        </div>
      )}
      {preview.perGroup && (
        <div className="muted small" data-testid="run-per-group-saving" data-calls={preview.perGroup.calls} data-instead={preview.perGroup.instead}>
          {preview.perGroup.message}
        </div>
      )}
      {(preview.warnings ?? []).length > 0 && (
        <div className="run-cost-warn" data-testid="run-warnings">
          <IconWarn />
          <ul className="run-warning-list">
            {[...new Set(preview.warnings!.map((w) => w.message))].slice(0, 5).map((m) => <li key={m}>{m}</li>)}
            {new Set(preview.warnings!.map((w) => w.message)).size > 5 && <li className="muted">…and more</li>}
          </ul>
        </div>
      )}
      {other > 0 && (
        <div className="muted small" data-testid="run-skipped">
          {formatCount(other)} skipped: {otherReason}
        </div>
      )}
      {preview.jobs === 0 && done > 0 && <div className="muted small" data-testid="run-nothing">Every photo is already done with these settings — review its suggestions, or tick “Again”.</div>}
    </div>
  );
}
