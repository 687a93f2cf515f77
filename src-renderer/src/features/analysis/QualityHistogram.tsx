import { useRef, useState, type PointerEvent as ReactPointerEvent } from 'react';
import type { HistogramField, QualityHistogram as Histogram, SearchQuery } from '../../../../src-preload/contract';
import { useClient } from '../../api/ClientContext';
import { useQuery } from '../../api/useQuery';
import { Button, Section, formatCount } from '../../ui/primitives';
import { pastTense, useToast } from '../../ui/Toasts';
import { useEdits } from '../inspector/useEdits';
import { QualityFilter } from './AnalysisFilters';
import './analysis.css';

/** Fetched in 1% bins so the count below any whole-percent threshold is exact; drawn in 5% bars. */
const FINE_BINS = 100;
const BARS = 20;

/**
 * The scores of the current view as a histogram with a draggable threshold, and "Reject
 * everything below X%" as one undoable edit (Ctrl/Cmd+Z puts the flags back).
 */
export function QualityHistogramPanel<F extends SearchQuery>({ query, total, filters: shown, onChange }: { query: SearchQuery; total: number | null; filters: F; onChange(f: F): void }) {
  const { api, cache } = useClient();
  const toast = useToast();
  const { undo } = useEdits();
  const [field, setField] = useState<HistogramField>('quality');
  const [threshold, setThreshold] = useState(0.4);
  const [busy, setBusy] = useState(false);
  const { sort: _s, order: _o, ...filters } = query;
  const key = `histogram:${field}:${JSON.stringify(filters)}`;
  const hist = useQuery<Histogram>(total ? key : null, ['assets'], (a) => a.qualityHistogram({ query: filters, field, bins: FINE_BINS }));
  const h = hist.data;
  const chart = useRef<HTMLDivElement>(null);

  const filtering = shown.minQuality !== undefined || shown.maxQuality !== undefined || !!shown.ugcClasses?.length;
  if (!total && !filtering) return null;
  const bars = h ? Array.from({ length: BARS }, (_, i) => h.bins.slice((i * FINE_BINS) / BARS, ((i + 1) * FINE_BINS) / BARS).reduce((n, b) => n + b.count, 0)) : [];
  const peak = Math.max(1, ...bars);
  const cut = Math.round(threshold * 100);
  const below = h ? h.bins.slice(0, cut).reduce((n, b) => n + b.count, 0) : 0;

  const fromPointer = (e: ReactPointerEvent) => {
    const r = chart.current!.getBoundingClientRect();
    setThreshold(Math.min(1, Math.max(0, Math.round(((e.clientX - r.left) / r.width) * 100) / 100)));
  };

  const reject = async () => {
    if (busy || below === 0) return;
    setBusy(true);
    try {
      const res = await api.rejectBelow({ target: { query: filters }, field, threshold: cut / 100 });
      cache.invalidate(new Set(['assets', 'facets']));
      if (res.description) toast.info(pastTense(res.description), { undo: () => void undo() });
      else toast.info('Nothing was rejected: every photo below the line was rejected already.');
    } catch (err) {
      toast.error(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Section
      title="Quality"
      testId="quality-histogram"
      collapseKey="library.quality-histogram"
      actions={
        <div className="segmented segmented-mini" role="group" aria-label="Score">
          <button type="button" className={field === 'quality' ? 'on' : ''} onClick={() => setField('quality')} data-testid="histogram-field-quality" title="The stock quality score">
            Stock
          </button>
          <button type="button" className={field === 'ugc' ? 'on' : ''} onClick={() => setField('ugc')} data-testid="histogram-field-ugc" title="The everyday (user-generated) photo quality score">
            Everyday
          </button>
        </div>
      }
    >
      <QualityFilter filters={shown} onChange={onChange} />
      {!total ? null : h && h.measured === 0 ? (
        <p className="muted small">None of these {formatCount(total)} photos has {field === 'ugc' ? 'an everyday quality' : 'a stock quality'} score yet. Use Analyse… to measure them.</p>
      ) : (
        <>
          <div
            ref={chart}
            className="histogram"
            data-testid="histogram-chart"
            data-threshold={cut}
            role="slider"
            aria-label="Reject threshold"
            aria-valuemin={0}
            aria-valuemax={100}
            aria-valuenow={cut}
            tabIndex={0}
            onPointerDown={(e) => {
              e.currentTarget.setPointerCapture(e.pointerId);
              fromPointer(e);
            }}
            onPointerMove={(e) => e.buttons === 1 && fromPointer(e)}
            onKeyDown={(e) => {
              const step = e.shiftKey ? 0.1 : 0.01;
              if (e.key === 'ArrowLeft' || e.key === 'ArrowDown') setThreshold((t) => Math.max(0, Math.round((t - step) * 100) / 100));
              else if (e.key === 'ArrowRight' || e.key === 'ArrowUp') setThreshold((t) => Math.min(1, Math.round((t + step) * 100) / 100));
              else return;
              e.preventDefault();
              e.stopPropagation();
            }}
          >
            {bars.map((n, i) => (
              <span key={i} className={`histogram-bar${(i + 1) / BARS <= threshold + 1e-9 ? ' below' : ''}`} style={{ height: `${n ? Math.max(6, (n / peak) * 100) : 0}%` }} title={`${i * 5}–${(i + 1) * 5}%: ${formatCount(n)}`} />
            ))}
            <span className="histogram-shade" style={{ width: `${threshold * 100}%` }} />
            <span className="histogram-line" style={{ left: `${threshold * 100}%` }} data-testid="histogram-threshold">
              <span className="histogram-handle" />
              <span className="histogram-tag">{cut}%</span>
            </span>
          </div>
          <div className="histogram-axis muted small">
            <span>0</span>
            <span>50</span>
            <span>100%</span>
          </div>
          <div className="histogram-foot">
            <span className="small" data-testid="histogram-summary">
              <b>{formatCount(below)}</b> below {cut}% <span className="muted">· {h ? `${formatCount(h.measured)} scored${h.unmeasured ? `, ${formatCount(h.unmeasured)} not yet` : ''}` : '…'}</span>
            </span>
            <Button small variant="danger" disabled={busy || below === 0} onClick={() => void reject()} data-testid="reject-below" title="Flag every scored photo of this view below the line as rejected (undo with Ctrl+Z)">
              Reject below {cut}%
            </Button>
          </div>
        </>
      )}
    </Section>
  );
}

