import { useCallback, useEffect, useRef, useState } from 'react';
import type { Flag, SearchQuery } from '../../../../src-preload/contract';
import { useClient } from '../../api/ClientContext';
import { useQuery } from '../../api/useQuery';
import { useAssetDetail } from '../inspector/Inspector';
import { useEdits } from '../inspector/useEdits';
import { FaceOverlay } from '../analysis/FaceOverlay';
import { useAssetAnalysis, useFlagSets } from '../analysis/useAnalysis';
import { pct, tier, UGC_LABELS } from '../analysis/format';
import { IconChevronLeft, IconChevronRight } from '../../ui/icons';
import { Stars } from '../../ui/Stars';
import { Button, Spinner, formatCount } from '../../ui/primitives';
import { useToast } from '../../ui/Toasts';
import './culling.css';

export type CullOrder = 'best' | 'worst';

function typing(t: EventTarget | null): boolean {
  const el = t as HTMLElement | null;
  return !!el && (el.isContentEditable || el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT');
}

/**
 * Culling: the current view one big picture at a time, best-first or worst-first by the
 * stock quality score (unscored photos come last), with Lightroom's keys — P pick, X reject,
 * U unflag, 0–5 stars, arrows, Ctrl/Cmd+Z undo. The order is fixed when culling starts so
 * flagging never reshuffles what is left to see.
 */
export function CullView({ query, active, onExit, onFocus }: { query: SearchQuery; active: boolean; onExit(): void; onFocus?(id: number): void }) {
  const { api, cache, mediaUrl } = useClient();
  const toast = useToast();
  const edits = useEdits();
  const [order, setOrder] = useState<CullOrder>('best');
  const [advance, setAdvance] = useState(true);
  const [at, setAt] = useState({ walk: '', index: 0 });
  // The walk is fixed per visit: a new visit (or order) asks again, flag edits do not reshuffle it.
  const [visit] = useState(() => Date.now());
  const { sort: _s, order: _o, ...filters } = query;
  const filterKey = JSON.stringify(filters);
  const list = useQuery<Int32Array>(`cull:${visit}:${order}:${filterKey}`, [], (a) => a.searchIds({ query: { ...filters, sort: 'quality', order: order === 'best' ? 'desc' : 'asc' } }));
  const ids = list.data ?? [];
  // The position belongs to one walk (order + filters); a new walk starts at its first photo.
  const walk = `${order}:${filterKey}`;
  const index = at.walk === walk ? at.index : 0;
  const setIndex = useCallback((f: number | ((i: number) => number)) => setAt((p) => ({ walk, index: typeof f === 'function' ? f(p.walk === walk ? p.index : 0) : f })), [walk]);
  const id = ids.length ? ids[Math.min(index, ids.length - 1)] : null;
  const flags = useFlagSets(query);
  const detail = useAssetDetail(id);
  const analysis = useAssetAnalysis(id);
  const a = detail.data && detail.data.id === id ? detail.data : undefined;
  const m = analysis.data && analysis.data.assetId === id ? analysis.data : undefined;
  const flag: Flag | null = id === null ? null : flags.picks.has(id) ? 'pick' : flags.rejects.has(id) ? 'reject' : null;

  useEffect(() => {
    if (id !== null) onFocus?.(id);
  }, [id, onFocus]);

  const step = useCallback((d: number) => setIndex((i) => Math.max(0, Math.min(ids.length - 1, i + d))), [ids.length, setIndex]);

  const setFlag = useCallback(
    async (f: Flag | null) => {
      if (id === null) return;
      try {
        await api.setFlag({ ids: [id], flag: f });
        cache.invalidate(new Set(['assets', 'facets']));
        if (advance && f !== null) step(1);
      } catch (err) {
        toast.error(err);
      }
    },
    [api, cache, id, advance, step, toast],
  );

  const keys = useRef({ setFlag, step, onExit, rate: (n: number) => id !== null && void edits.setRating([id], n), undo: edits.undo, last: ids.length - 1 });
  useEffect(() => {
    keys.current = { setFlag, step, onExit, rate: (n: number) => id !== null && void edits.setRating([id], n), undo: edits.undo, last: ids.length - 1 };
  });
  useEffect(() => {
    if (!active) return;
    const onKey = (e: KeyboardEvent) => {
      if (typing(e.target) || e.altKey || document.querySelector('[role="dialog"]')) return;
      const k = keys.current;
      const key = e.key.toLowerCase();
      if (e.ctrlKey || e.metaKey) {
        if (key === 'z' && !e.shiftKey) {
          e.preventDefault();
          void k.undo();
        }
        return;
      }
      if (key === 'p') void k.setFlag('pick');
      else if (key === 'x') void k.setFlag('reject');
      else if (key === 'u') void k.setFlag(null);
      else if (/^[0-5]$/.test(key)) k.rate(Number(key));
      else if (key === 'arrowright' || key === 'arrowdown') k.step(1);
      else if (key === 'arrowleft' || key === 'arrowup') k.step(-1);
      else if (key === 'home') setIndex(0);
      else if (key === 'end') setIndex(Math.max(0, k.last));
      else if (key === 'escape' || key === 'g') k.onExit();
      else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [active, setIndex]);

  const pos = Math.min(index, Math.max(0, ids.length - 1));
  const stats = { picks: ids.filter((x) => flags.picks.has(x)).length, rejects: ids.filter((x) => flags.rejects.has(x)).length };

  return (
    <div className="cull" data-testid="cull" data-asset-id={id ?? ''} data-flag={flag ?? 'none'} data-order={order}>
      <div className="cull-bar">
        <div className="segmented" role="group" aria-label="Order">
          <button type="button" className={order === 'best' ? 'on' : ''} onClick={() => setOrder('best')} data-testid="cull-best">
            Best first
          </button>
          <button type="button" className={order === 'worst' ? 'on' : ''} onClick={() => setOrder('worst')} data-testid="cull-worst">
            Worst first
          </button>
        </div>
        <label className="cull-advance small">
          <input type="checkbox" checked={advance} onChange={(e) => setAdvance(e.target.checked)} data-testid="cull-advance" />
          Advance after flagging
        </label>
        <span className="cull-progress-text small" data-testid="cull-position">
          {ids.length ? `${formatCount(pos + 1)} / ${formatCount(ids.length)}` : ''}
        </span>
        <span className="cull-tally small">
          <span className="tally-pick">⚑ {formatCount(stats.picks)} picked</span>
          <span className="tally-reject">✕ {formatCount(stats.rejects)} rejected</span>
          <span className="muted">{formatCount(Math.max(0, ids.length - stats.picks - stats.rejects))} unflagged</span>
        </span>
        <div className="topbar-spacer" />
        <Button small onClick={onExit} data-testid="cull-exit">
          Done
        </Button>
      </div>
      <div className="cull-track" aria-hidden>
        <span style={{ width: `${ids.length ? ((pos + 1) / ids.length) * 100 : 0}%` }} />
      </div>
      <div className="cull-main">
        <div className={`cull-stage${flag === 'reject' ? ' is-rejected' : ''}`}>
          {!a ? (
            list.data && !ids.length ? <p className="muted">Nothing to cull in this view.</p> : <Spinner label="Loading" />
          ) : a.preview || a.thumb ? (
            <img key={a.id} src={mediaUrl((a.preview ?? a.thumb)!)} alt={a.name} draggable={false} data-testid="cull-img" />
          ) : (
            <p className="muted">No preview can be shown for this file.</p>
          )}
          {id !== null && <FaceOverlay key={`faces-${id}`} assetId={id} imgSelector='[data-testid="cull-img"]' />}
          {flag && (
            <span className={`cull-flag cull-flag-${flag}`} data-testid="cull-flag">
              {flag === 'pick' ? '⚑ Picked' : '✕ Rejected'}
            </span>
          )}
          <button type="button" className="loupe-nav loupe-prev" aria-label="Previous" disabled={pos <= 0} onClick={() => step(-1)}>
            <IconChevronLeft />
          </button>
          <button type="button" className="loupe-nav loupe-next" aria-label="Next" disabled={pos >= ids.length - 1} onClick={() => step(1)}>
            <IconChevronRight />
          </button>
        </div>
        <aside className="cull-side">
          <div className="cull-name" title={a?.name}>{a?.name ?? ''}</div>
          <div className="cull-score" data-testid="cull-score">
            {m?.quality ? (
              <>
                <span className={`cull-score-big tier-${tier(m.quality.score)}`}>{pct(m.quality.score)}</span>
                <span className="muted small">stock quality</span>
              </>
            ) : (
              <span className="muted small">No quality score yet</span>
            )}
          </div>
          {m?.ugc && (
            <div className="cull-ugc small">
              UGC <b>{pct(m.ugc.score)}</b> · {UGC_LABELS[m.ugc.class] ?? m.ugc.label}
            </div>
          )}
          {m?.faces && m.faces.length > 0 && (
            <div className="cull-faces small">
              {m.faces.length} face{m.faces.length > 1 ? 's' : ''} · ages {m.faces.map((f) => Math.round(f.age)).join(', ')}
            </div>
          )}
          <div className="cull-flags">
            <button type="button" className={`cull-flag-btn pick${flag === 'pick' ? ' on' : ''}`} onClick={() => void setFlag(flag === 'pick' ? null : 'pick')} data-testid="cull-pick">
              ⚑ Pick <kbd>P</kbd>
            </button>
            <button type="button" className={`cull-flag-btn reject${flag === 'reject' ? ' on' : ''}`} onClick={() => void setFlag(flag === 'reject' ? null : 'reject')} data-testid="cull-reject">
              ✕ Reject <kbd>X</kbd>
            </button>
          </div>
          {a && <Stars value={a.rating} onChange={(n) => void edits.setRating([a.id], n)} testId="cull-rating" />}
          <dl className="cull-keys small">
            <dt>P / X / U</dt>
            <dd>pick · reject · unflag</dd>
            <dt>0–5</dt>
            <dd>stars</dd>
            <dt>← →</dt>
            <dd>previous · next</dd>
            <dt>Ctrl+Z</dt>
            <dd>undo</dd>
            <dt>Esc</dt>
            <dd>back to the grid</dd>
          </dl>
        </aside>
      </div>
    </div>
  );
}
