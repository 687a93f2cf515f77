import { useEffect, useRef, useState } from 'react';
import type { AcceptResult, AssetReview, RunView, SuggestionView } from '../../../../src-preload/contract';
import { useClient } from '../../api/ClientContext';
import { useQuery } from '../../api/useQuery';
import { useAssetDetail } from '../inspector/Inspector';
import { useEdits } from '../inspector/useEdits';
import { ConfirmDialog } from '../../ui/Dialog';
import { IconChevronLeft, IconChevronRight, IconWarn } from '../../ui/icons';
import { Button, IconButton, Section, Spinner, formatCount } from '../../ui/primitives';
import { useToast } from '../../ui/Toasts';
import { CaptionCard } from './CaptionReview';
import { KeywordCounter, KeywordOrder } from './KeywordOrder';
import { keywordProvenance, runLabel } from './provenance';

function typing(t: EventTarget | null): boolean {
  const el = t as HTMLElement | null;
  return !!el && (el.isContentEditable || el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT');
}

const SKIP_TEXT = { excluded: 'on your exclude list', limit: 'past the keyword limit', already_present: 'already there' } as const;

function acceptMessage(r: AcceptResult): string | null {
  const limit = r.skipped.filter((s) => s.reason === 'limit').length;
  const excluded = r.skipped.filter((s) => s.reason === 'excluded').length;
  const parts = [
    limit ? `${formatCount(limit)} left pending: ${SKIP_TEXT.limit}` : null,
    excluded ? `${formatCount(excluded)} ${SKIP_TEXT.excluded}` : null,
    r.required ? `${formatCount(r.required)} required keyword${r.required > 1 ? 's' : ''} added` : null,
  ].filter(Boolean);
  return parts.length ? `${formatCount(r.added)} keyword${r.added === 1 ? '' : 's'} accepted · ${parts.join(' · ')}` : null;
}

/**
 * Review mode: the photo large on the left, its suggestions and its ordered keywords on the
 * right. Keyboard: ↑/↓ through suggestions, A accept, R or X reject, Enter accept all at or
 * above the slider, J/→ next photo, K/← previous, Ctrl/Cmd+Z undo, Esc back to the grid.
 */
export function ReviewView({ ids, index, onIndex, onExit, active }: { ids: number[]; index: number; onIndex(i: number): void; onExit(): void; active: boolean }) {
  const { api, mediaUrl } = useClient();
  const toast = useToast();
  const edits = useEdits();
  const id = ids[Math.min(index, ids.length - 1)];
  const review = useQuery<AssetReview>(`review:${id}`, ['review', 'assets', 'keywords'], (a) => a.getAssetReview({ assetId: id }));
  const detail = useAssetDetail(id);
  const runs = useQuery<RunView[]>(`runs:asset:${id}`, ['runs', 'review'], (a) => a.listRuns({ assetId: id, limit: 10 }));
  const [cursor, setCursor] = useState(0);
  const [minScore, setMinScore] = useState(0.5);
  const [confirm, setConfirm] = useState<null | { kind: 'reject-all' } | { kind: 'revert'; run: RunView }>(null);
  const listRef = useRef<HTMLOListElement>(null);

  const r = review.data?.assetId === id ? review.data : undefined;
  const a = detail.data?.id === id ? detail.data : undefined;
  const sugg = r?.suggestions ?? [];
  const cur = sugg[Math.min(cursor, sugg.length - 1)] as SuggestionView | undefined;
  const pendingAbove = sugg.filter((s) => s.state === 'pending' && s.score >= minScore && !s.excluded).length;
  const multi = ids.length > 1;

  const [seenId, setSeenId] = useState(id);
  if (seenId !== id) {
    setSeenId(id);
    setCursor(0);
  }

  useEffect(() => {
    listRef.current?.querySelector<HTMLElement>('li.is-cursor')?.scrollIntoView({ block: 'nearest' });
  }, [cursor, id]);

  const accepted = (res: AcceptResult) => {
    const msg = acceptMessage(res);
    if (msg) toast.info(msg);
  };
  const acceptOne = (s: SuggestionView) => edits.commit(async () => accepted(await api.acceptSuggestions({ ids: [s.id] })));
  const rejectOne = (s: SuggestionView) => edits.commit(() => api.rejectSuggestions({ ids: [s.id] }));
  const acceptAboveHere = () => edits.commit(async () => accepted(await api.acceptAbove({ assetIds: [id], minScore })));
  const acceptAboveAll = () =>
    edits.commit(async () => {
      const res = await api.acceptAbove({ assetIds: ids, minScore });
      toast.info(acceptMessage(res) ?? `${formatCount(res.added)} keywords accepted on ${formatCount(res.assetIds.length)} photos.`);
    });
  const rejectPendingAll = () =>
    edits.commit(async () => {
      const n = await api.rejectPending({ assetIds: ids });
      toast.info(`${formatCount(n)} pending suggestion${n === 1 ? '' : 's'} rejected.`);
    });
  const step = (d: number) => {
    const next = index + d;
    if (next >= 0 && next < ids.length) onIndex(next);
  };

  const keys = useRef({ acceptOne, rejectOne, acceptAboveHere, step, onExit, cur, sugg, undo: edits.undo });
  useEffect(() => {
    keys.current = { acceptOne, rejectOne, acceptAboveHere, step, onExit, cur, sugg, undo: edits.undo };
  });
  useEffect(() => {
    if (!active) return;
    const onKey = (e: KeyboardEvent) => {
      const k = keys.current;
      const key = e.key.toLowerCase();
      const mod = e.ctrlKey || e.metaKey;
      if (typing(e.target) || e.defaultPrevented || e.altKey) return;
      if (document.querySelector('[role="dialog"]')) return;
      if (mod) {
        if (key === 'z' && !e.shiftKey) {
          e.preventDefault();
          void k.undo();
        }
        return;
      }
      const handled = (() => {
        if (key === 'arrowdown') setCursor((c) => Math.min(c + 1, Math.max(0, k.sugg.length - 1)));
        else if (key === 'arrowup') setCursor((c) => Math.max(0, c - 1));
        else if (key === 'a') {
          if (k.cur && k.cur.state !== 'accepted') void k.acceptOne(k.cur).then(() => setCursor((c) => Math.min(c + 1, k.sugg.length - 1)));
        } else if (key === 'r' || key === 'x') {
          if (k.cur && k.cur.state === 'pending') void k.rejectOne(k.cur).then(() => setCursor((c) => Math.min(c + 1, k.sugg.length - 1)));
        }
        else if (key === 'enter') void k.acceptAboveHere();
        else if (key === 'j' || key === 'arrowright') k.step(1);
        else if (key === 'k' || key === 'arrowleft') k.step(-1);
        else if (key === 'escape' || key === 'g') k.onExit();
        else return false;
        return true;
      })();
      if (handled) e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [active]);

  const doConfirm = async () => {
    const c = confirm;
    setConfirm(null);
    if (!c) return;
    if (c.kind === 'reject-all') await rejectPendingAll();
    else
      await edits.commit(async () => {
        const res = await api.revertRun({ runId: c.run.id });
        toast.info(res.description ? `Reverted: ${res.description}` : 'Nothing left to revert in that run.');
      });
  };

  const preview = a?.preview ?? a?.thumb ?? null;
  const revertable = (runs.data ?? []).filter((x) => x.status !== 'reverted');

  return (
    <div className="review" data-testid="review" data-asset-id={id} data-index={index}>
      <div className="review-stage">
        <div className="review-image">
          {preview ? <img key={id} src={mediaUrl(preview)} alt={a?.name ?? ''} draggable={false} data-testid="review-img" /> : <Spinner label="Loading preview" />}
        </div>
        <button type="button" className="loupe-nav loupe-prev" aria-label="Previous photo (K)" title="Previous (K or ←)" disabled={index <= 0} onClick={() => step(-1)} data-testid="review-prev">
          <IconChevronLeft />
        </button>
        <button type="button" className="loupe-nav loupe-next" aria-label="Next photo (J)" title="Next (J or →)" disabled={index >= ids.length - 1} onClick={() => step(1)} data-testid="review-next">
          <IconChevronRight />
        </button>
        <div className="loupe-caption">
          <span className="loupe-name" data-testid="review-name">{a?.name ?? ''}</span>
          <span className="muted" data-testid="review-position">
            {formatCount(index + 1)} / {formatCount(ids.length)}
          </span>
          <span className="topbar-spacer" />
          <span className="muted small review-keys">
            <kbd>↑</kbd><kbd>↓</kbd> suggestion · <kbd>A</kbd> accept · <kbd>R</kbd> reject · <kbd>Enter</kbd> accept ≥ {minScore.toFixed(2)} · <kbd>J</kbd><kbd>K</kbd> photo · <kbd>Esc</kbd> grid
          </span>
        </div>
      </div>
      <aside className="review-panel" data-testid="review-panel">
        <div className="inspector-title review-panel-title">
          <h2 title={a?.name} data-testid="review-panel-name">{a?.name ?? ''}</h2>
        </div>
        {!r ? (
          <div className="inspector-empty">{review.error ? <p className="error-text">{review.error.message}</p> : <Spinner label="Loading" />}</div>
        ) : (
          <>
            <Section title="Keywords" testId="review-keywords" actions={<KeywordCounter check={r.check} />}>
              <KeywordOrder
                keywords={r.keywords}
                onMove={(from, to) => edits.moveKeyword(id, from, to)}
                onRemove={(w) => edits.removeKeywords([id], [w])}
                onAdd={(w) => edits.addKeywords([id], [w])}
              />
            </Section>
            <Section
              title={`Suggestions${sugg.length ? ` · ${sugg.filter((s) => s.state === 'pending').length} pending` : ''}`}
              testId="review-suggestions"
            >
              {r.errors.length > 0 && (
                <p className="warn-text small review-error" data-testid="review-errors">
                  <IconWarn /> {r.errors[0].message}
                </p>
              )}
              <div className="threshold">
                <label className="threshold-label" htmlFor="review-threshold">
                  Accept ≥
                </label>
                <input id="review-threshold" type="range" min={0} max={1} step={0.01} value={minScore} onChange={(e) => setMinScore(Number(e.target.value))} data-testid="review-threshold" />
                <span className="score-readout" data-testid="review-threshold-value">{minScore.toFixed(2)}</span>
              </div>
              <div className="threshold-actions">
                <Button small variant="primary" disabled={!pendingAbove} onClick={() => void acceptAboveHere()} data-testid="accept-above" title="Enter">
                  Accept {pendingAbove} here
                </Button>
                {multi && (
                  <>
                    <Button small onClick={() => void acceptAboveAll()} data-testid="accept-above-all">
                      Accept ≥ {minScore.toFixed(2)} in all {formatCount(ids.length)}
                    </Button>
                    <Button small variant="ghost" onClick={() => setConfirm({ kind: 'reject-all' })} title={`Reject every pending suggestion on all ${formatCount(ids.length)} photos`} data-testid="reject-pending-all">
                      Reject rest
                    </Button>
                  </>
                )}
              </div>
              {sugg.length === 0 ? (
                <p className="muted small">No keyword suggestions for this photo yet. Select photos in the grid and choose Keyword… (K).</p>
              ) : (
                <ol className="sugg-list" ref={listRef} data-testid="suggestion-list">
                  {sugg.map((s, i) => {
                    const willAccept = s.state === 'pending' && s.score >= minScore && !s.excluded;
                    return (
                      <li
                        key={s.id}
                        className={`sugg sugg-${s.state}${i === cursor ? ' is-cursor' : ''}${willAccept ? ' will-accept' : ''}${s.excluded ? ' is-excluded' : ''}`}
                        data-testid="suggestion"
                        data-keyword={s.keyword}
                        data-state={s.state}
                        data-score={s.score}
                        title={keywordProvenance(s.runId, s.lang, s.params, s.createdAt)}
                        onClick={() => setCursor(i)}
                      >
                        <span className="sugg-word">
                          {s.keyword}
                          {s.excluded && <span className="pill">excluded</span>}
                          {s.inAsset && s.state !== 'accepted' && <span className="pill">in photo</span>}
                          {s.from && (
                            <span className="pill" title={`Suggested for ${s.from.name}, the representative of this photo's similar group (one call per group)`} data-testid="suggestion-from">
                              from {s.from.name.replace(/\.[^.]+$/, '')}
                            </span>
                          )}
                        </span>
                        <span className="score-bar" aria-hidden="true">
                          <span style={{ width: `${Math.round(s.score * 100)}%` }} />
                          <i style={{ left: `${minScore * 100}%` }} />
                        </span>
                        <span className="sugg-score">{s.score.toFixed(2)}</span>
                        <span className="sugg-actions">
                          {s.state === 'accepted' ? (
                            <span className="sugg-state" aria-label="Accepted">✓</span>
                          ) : (
                            <>
                              <IconButton label={`Accept ${s.keyword} (A)`} onClick={(e) => { e.stopPropagation(); setCursor(i); void acceptOne(s); }} data-testid="suggestion-accept">
                                ✓
                              </IconButton>
                              <IconButton label={`Reject ${s.keyword} (R)`} disabled={s.state === 'rejected'} onClick={(e) => { e.stopPropagation(); setCursor(i); void rejectOne(s); }} data-testid="suggestion-reject">
                                ×
                              </IconButton>
                            </>
                          )}
                        </span>
                      </li>
                    );
                  })}
                </ol>
              )}
            </Section>
            <Section title="Caption and title" testId="review-captions">
              <dl className="meta review-text">
                <div className="meta-row">
                  <dt>Title</dt>
                  <dd data-testid="review-title">{r.title ?? <span className="muted">—</span>}</dd>
                </div>
                <div className="meta-row">
                  <dt>Caption</dt>
                  <dd data-testid="review-caption">{r.caption ?? <span className="muted">—</span>}</dd>
                </div>
              </dl>
              {r.textWarnings.length > 0 && (
                <ul className="kw-warnings" data-testid="text-warnings">
                  {r.textWarnings.map((w) => (
                    <li key={`${w.agency}${w.field}`}>{w.message}</li>
                  ))}
                </ul>
              )}
              {r.captions.length === 0 ? (
                <p className="muted small">No caption suggestions. Choose Caption… in the grid's toolbar to have photos described.</p>
              ) : (
                r.captions.map((c) => (
                  <CaptionCard
                    key={c.id}
                    c={c}
                    onEdit={(text) => edits.commit(() => api.editCaptionSuggestion({ id: c.id, text }))}
                    onAccept={(as, text) =>
                      edits.commit(async () => {
                        if (text.trim() && text.trim() !== c.text) await api.editCaptionSuggestion({ id: c.id, text });
                        await api.acceptCaptions({ ids: [c.id], as });
                      })
                    }
                    onReject={() => edits.commit(() => api.rejectCaptions({ ids: [c.id] }))}
                  />
                ))
              )}
            </Section>
            {revertable.length > 0 && (
              <Section title="AI runs on this photo" testId="review-runs">
                <ul className="run-list">
                  {revertable.map((run) => (
                    <li key={run.id} data-testid="review-run" data-run-id={run.id}>
                      <span className="run-list-label">{runLabel(run)}</span>
                      <Button small variant="ghost" onClick={() => setConfirm({ kind: 'revert', run })} data-testid="revert-run">
                        Revert run
                      </Button>
                    </li>
                  ))}
                </ul>
              </Section>
            )}
          </>
        )}
      </aside>
      {confirm?.kind === 'reject-all' && (
        <ConfirmDialog title="Reject every pending suggestion?" confirmLabel="Reject pending" onConfirm={() => void doConfirm()} onCancel={() => setConfirm(null)} testId="confirm-reject-all">
          <p>
            All suggestions still pending on the <strong>{formatCount(ids.length)} photos</strong> being reviewed are rejected. Keywords already accepted stay.
          </p>
        </ConfirmDialog>
      )}
      {confirm?.kind === 'revert' && (
        <ConfirmDialog title="Revert this run?" confirmLabel="Revert run" danger onConfirm={() => void doConfirm()} onCancel={() => setConfirm(null)} testId="confirm-revert">
          <p>
            Takes out exactly what <strong>{runLabel(confirm.run)}</strong> added to your photos
            {confirm.run.kind === 'keywords' ? ' (its accepted keywords)' : ' (the captions and titles taken from it)'} and drops its suggestions.
          </p>
          <p className="muted">Unrelated edits are kept: keywords you added by hand or from other runs, the order you gave them, ratings, and captions you wrote.</p>
        </ConfirmDialog>
      )}
    </div>
  );
}
