import type { Histogram as HistogramData } from '../../../../src-preload/contract';
import { useQuery } from '../../api/useQuery';

const W = 256;
const H = 80;

/** An area path over 256 levels, scaled so the tallest level of any channel reaches the top. */
function area(bins: number[], peak: number): string {
  let d = `M0 ${H}`;
  for (let i = 0; i < bins.length; i++) d += ` L${i + 0.5} ${(H - (Math.min(bins[i], peak) / peak) * H).toFixed(2)}`;
  return `${d} L${W} ${H} Z`;
}

/** The tallest level, ignoring the two ends: a clipped sky would otherwise flatten the rest (Lightroom does the same). */
function peakOf(channels: number[][]): number {
  let peak = 1;
  for (const c of channels) for (let i = 1; i < 255; i++) if (c[i] > peak) peak = c[i];
  return peak;
}

const pct = (share: number): string => (share >= 0.001 ? `${(share * 100).toFixed(share >= 0.1 ? 0 : 1)} %` : '');

/**
 * Lightroom's histogram at the top of the panel in the loupe: red, green and blue over each
 * other (where they overlap, the mix shows), the luminance as a light outline, and how much of
 * the photo is pure black or clipped white.
 */
export function Histogram({ id }: { id: number }) {
  const q = useQuery<HistogramData>(`histogram:${id}`, ['assets'], (a) => a.getHistogram({ id }));
  const bins = q.data?.bins;
  if (!bins) {
    return (
      <div className="loupe-histogram is-empty" data-testid="histogram" data-state={q.error || q.data ? 'none' : 'loading'}>
        <span className="muted small">{q.error ? q.error.message : q.data?.note ?? 'Reading the histogram…'}</span>
      </div>
    );
  }
  const peak = peakOf([bins.red, bins.green, bins.blue]);
  const lumPeak = peakOf([bins.luminance]);
  const dark = pct(bins.shadowsClipped);
  const light = pct(bins.highlightsClipped);
  return (
    <div className="loupe-histogram" data-testid="histogram" data-state="ready" data-asset-id={id}>
      <svg viewBox={`0 0 ${W} ${H}`} preserveAspectRatio="none" role="img" aria-label="Histogram: red, green, blue and luminance levels">
        <g className="loupe-histogram-rgb">
          <path d={area(bins.red, peak)} fill="#d04040" data-channel="red" />
          <path d={area(bins.green, peak)} fill="#40b040" data-channel="green" />
          <path d={area(bins.blue, peak)} fill="#4060e0" data-channel="blue" />
        </g>
        <path d={area(bins.luminance, lumPeak)} fill="none" stroke="#e8e8e8" strokeWidth={1} vectorEffect="non-scaling-stroke" data-channel="luminance" />
      </svg>
      <div className="loupe-histogram-clip small">
        <span title="Share of the photo that is pure black" data-testid="histogram-shadows">{dark ? `Black ${dark}` : ''}</span>
        <span title="Share of the photo clipped to white in at least one colour" data-testid="histogram-highlights">{light ? `Clipped ${light}` : ''}</span>
      </div>
    </div>
  );
}
