import { useState } from 'react';
import type { SearchQuery } from '../../../../src-preload/contract';
import { UGC_LABELS } from './format';
import './analysis.css';

type AnalysisFilterState = Pick<
  SearchQuery,
  'minQuality' | 'maxQuality' | 'ugcClasses' | 'hasFaces' | 'minFaces' | 'maxFaces' | 'child' | 'ageMin' | 'ageMax' | 'releaseNeeded' | 'flag' | 'color'
>;

const KEYS: (keyof AnalysisFilterState)[] = ['minQuality', 'maxQuality', 'ugcClasses', 'hasFaces', 'minFaces', 'maxFaces', 'child', 'ageMin', 'ageMax', 'releaseNeeded', 'flag', 'color'];

/** Named swatches to pick from; matching is by perceptual distance, so these are starting points. */
export const SWATCHES: { name: string; hex: string }[] = [
  { name: 'Red', hex: '#D0312D' },
  { name: 'Orange', hex: '#F28C28' },
  { name: 'Yellow', hex: '#F4D03F' },
  { name: 'Green', hex: '#3E9B4F' },
  { name: 'Teal', hex: '#2A9D8F' },
  { name: 'Blue', hex: '#2F5FD0' },
  { name: 'Purple', hex: '#7D3C98' },
  { name: 'Pink', hex: '#E38AAE' },
  { name: 'Brown', hex: '#7B4B2A' },
  { name: 'Black', hex: '#141414' },
  { name: 'Grey', hex: '#8A8A8A' },
  { name: 'White', hex: '#F4F4F4' },
];

export const FLAGS: { value: SearchQuery['flag'] | undefined; label: string; title: string }[] = [
  { value: undefined, label: 'Any', title: 'Flagged or not' },
  { value: 'pick', label: 'Pick', title: 'Only picks (P)' },
  { value: 'reject', label: 'Reject', title: 'Only rejects (X)' },
  { value: 'unflagged', label: 'None', title: 'Only photos without a flag (U)' },
];

/** The face and colour filters (those under "More"). */
const FACE_COLOUR_KEYS: (keyof AnalysisFilterState)[] = ['hasFaces', 'minFaces', 'maxFaces', 'child', 'ageMin', 'ageMax', 'releaseNeeded', 'color'];
const QUALITY_KEYS: (keyof AnalysisFilterState)[] = ['minQuality', 'maxQuality', 'ugcClasses'];

const countOf = (f: SearchQuery, keys: (keyof AnalysisFilterState)[]): number =>
  keys.filter((k) => f[k] !== undefined && !(Array.isArray(f[k]) && (f[k] as unknown[]).length === 0)).length;

export function analysisFilterCount(f: SearchQuery): number {
  return countOf(f, KEYS);
}

/** A number field that commits on blur/Enter, empty meaning "no bound". */
function NumberBound({ value, onCommit, min, max, label, testId, placeholder }: { value: number | undefined; onCommit(v: number | undefined): void; min: number; max: number; label: string; testId: string; placeholder: string }) {
  // The parent keys this field by its value, so an outside change (Clear) starts it afresh.
  const [text, setText] = useState(value === undefined ? '' : String(value));
  const commit = () => {
    const t = text.trim();
    if (!t) return onCommit(undefined);
    const n = Number(t);
    if (!Number.isFinite(n)) return setText(value === undefined ? '' : String(value));
    onCommit(Math.min(max, Math.max(min, n)));
  };
  return (
    <input
      type="number"
      className="bound"
      min={min}
      max={max}
      value={text}
      placeholder={placeholder}
      aria-label={label}
      data-testid={testId}
      onChange={(e) => setText(e.target.value)}
      onBlur={commit}
      onKeyDown={(e) => e.key === 'Enter' && commit()}
    />
  );
}

const toPct = (v: number | undefined) => (v === undefined ? undefined : Math.round(v * 1000) / 10);
const fromPct = (v: number | undefined) => (v === undefined ? undefined : v / 100);

/** Patches the filters, dropping what is cleared (shared by the quality and the face/colour filters). */
function usePatch<F extends SearchQuery>(filters: F, onChange: (f: F) => void) {
  return (patch: Partial<AnalysisFilterState>) => {
    const next = { ...filters, ...patch } as F;
    for (const k of KEYS) {
      const v = next[k];
      if (v === undefined || (Array.isArray(v) && v.length === 0)) delete next[k];
    }
    onChange(next);
  };
}

/**
 * The quality filters, in the Quality section under its histogram: the stock quality score as a
 * range, and the everyday-photo (UGC) class spelled out in words.
 */
export function QualityFilter<F extends SearchQuery>({ filters, onChange }: { filters: F; onChange(f: F): void }) {
  const set = usePatch(filters, onChange);
  const classes = filters.ugcClasses ?? [];
  const count = countOf(filters, QUALITY_KEYS);
  return (
    <div className="quality-filter" data-testid="quality-filter">
      <div className="filter-row">
        <span className="filter-label" title="The stock quality score the service measured">Score</span>
        <div className="range-pair">
          <NumberBound key={String(toPct(filters.minQuality))} value={toPct(filters.minQuality)} onCommit={(v) => set({ minQuality: fromPct(v) })} min={0} max={100} label="Lowest stock quality %" testId="filter-min-quality" placeholder="0" />
          <span className="muted">–</span>
          <NumberBound key={String(toPct(filters.maxQuality))} value={toPct(filters.maxQuality)} onCommit={(v) => set({ maxQuality: fromPct(v) })} min={0} max={100} label="Highest stock quality %" testId="filter-max-quality" placeholder="100" />
          <span className="muted small">%</span>
        </div>
        {count > 0 && (
          <button type="button" className="link-btn filter-row-end" data-testid="clear-quality-filters" onClick={() => set({ minQuality: undefined, maxQuality: undefined, ugcClasses: undefined })}>
            Clear
          </button>
        )}
      </div>
      <div className="filter-row filter-row-top">
        <span className="filter-label" title="The service's quality class for everyday (user-generated) photos">Everyday</span>
        <div className="class-chips" role="group" aria-label="Everyday photo quality class">
          {[1, 2, 3, 4, 5].map((c) => (
            <button
              key={c}
              type="button"
              className={`class-chip${classes.includes(c) ? ' on' : ''}`}
              aria-pressed={classes.includes(c)}
              title={`Everyday photo quality: ${UGC_LABELS[c].toLowerCase()} (class ${c} of 5)`}
              data-testid={`filter-ugc-${c}`}
              onClick={() => set({ ugcClasses: classes.includes(c) ? classes.filter((x) => x !== c) : [...classes, c].sort() })}
            >
              {UGC_LABELS[c]}
            </button>
          ))}
        </div>
      </div>
    </div>
  );
}

/**
 * The measured faces and colours as filters (under "More" in the Filters section): has faces,
 * how many, a child, an age range, release needed, colour. They patch the same filter state as
 * the library's other filters, so everything combines.
 */
export function FaceColourFilters<F extends SearchQuery>({ filters, onChange }: { filters: F; onChange(f: F): void }) {
  const set = usePatch(filters, onChange);
  const count = countOf(filters, FACE_COLOUR_KEYS);
  const faces = filters.hasFaces === true ? 'yes' : filters.hasFaces === false ? 'no' : 'any';
  const colorHex = filters.color?.hex?.toUpperCase();
  const setColor = (h: string | undefined) => set({ color: h ? { ...filters.color, hex: h.toUpperCase() } : undefined });

  return (
    <div className="filter-group" data-testid="analysis-filters">
      <div className="filter-group-head">
        <span className="filter-group-title">Faces and colour</span>
        {count > 0 && (
          <button type="button" className="link-btn" data-testid="clear-analysis-filters" onClick={() => set(Object.fromEntries(FACE_COLOUR_KEYS.map((k) => [k, undefined])) as Partial<AnalysisFilterState>)}>
            Clear ({count})
          </button>
        )}
      </div>
      <div className="filter-row">
        <span className="filter-label">Faces</span>
        <div className="segmented segmented-tight" role="group" aria-label="Faces">
          {(['any', 'yes', 'no'] as const).map((v) => (
            <button
              key={v}
              type="button"
              className={faces === v ? 'on' : ''}
              aria-pressed={faces === v}
              data-testid={`filter-faces-${v}`}
              onClick={() => set({ hasFaces: v === 'any' ? undefined : v === 'yes' })}
            >
              {v === 'any' ? 'Any' : v === 'yes' ? 'With' : 'None'}
            </button>
          ))}
        </div>
      </div>
      <div className="filter-row">
        <span className="filter-label">Count</span>
        <div className="range-pair">
          <NumberBound key={String(filters.minFaces)} value={filters.minFaces} onCommit={(v) => set({ minFaces: v === undefined ? undefined : Math.round(v) })} min={0} max={99} label="At least this many faces" testId="filter-min-faces" placeholder="from" />
          <span className="muted">–</span>
          <NumberBound key={String(filters.maxFaces)} value={filters.maxFaces} onCommit={(v) => set({ maxFaces: v === undefined ? undefined : Math.round(v) })} min={0} max={99} label="At most this many faces" testId="filter-max-faces" placeholder="to" />
          <span className="muted small">faces</span>
        </div>
      </div>
      <div className="filter-row">
        <span className="filter-label">Age</span>
        <div className="range-pair">
          <NumberBound key={String(filters.ageMin)} value={filters.ageMin} onCommit={(v) => set({ ageMin: v })} min={0} max={120} label="Youngest estimated age" testId="filter-age-min" placeholder="from" />
          <span className="muted">–</span>
          <NumberBound key={String(filters.ageMax)} value={filters.ageMax} onCommit={(v) => set({ ageMax: v })} min={0} max={120} label="Oldest estimated age" testId="filter-age-max" placeholder="to" />
          <span className="muted small">years</span>
        </div>
      </div>
      <div className="filter-checks">
        <label>
          <input type="checkbox" checked={!!filters.child} onChange={(e) => set({ child: e.target.checked || undefined })} data-testid="filter-child" />
          Contains a child (est. under 18)
        </label>
        <label>
          <input type="checkbox" checked={!!filters.releaseNeeded} onChange={(e) => set({ releaseNeeded: e.target.checked || undefined })} data-testid="filter-release" />
          Model release likely needed
        </label>
      </div>
      <div className="filter-row filter-row-top">
        <span className="filter-label">Colour</span>
        <div className="color-filter">
          <div className="swatch-picker" role="group" aria-label="Colour">
            {SWATCHES.map((s) => (
              <button
                key={s.hex}
                type="button"
                className={`swatch-btn${colorHex === s.hex ? ' on' : ''}`}
                style={{ background: s.hex }}
                title={`${s.name} (${s.hex})`}
                aria-label={s.name}
                aria-pressed={colorHex === s.hex}
                data-testid={`filter-color-${s.name.toLowerCase()}`}
                onClick={() => setColor(colorHex === s.hex ? undefined : s.hex)}
              />
            ))}
          </div>
          <div className="hex-row">
            <input type="color" value={colorHex ? colorHex.toLowerCase() : '#808080'} onChange={(e) => setColor(e.target.value)} aria-label="Pick any colour" data-testid="filter-color-picker" />
            <HexInput key={filters.color?.hex ?? ''} value={filters.color?.hex ?? ''} onCommit={setColor} />
            {filters.color && (
              <button type="button" className="link-btn" onClick={() => setColor(undefined)} data-testid="filter-color-clear">
                Clear
              </button>
            )}
          </div>
        </div>
      </div>
    </div>
  );
}

/** '#RRGGBB' typed by hand; Enter applies it (an empty field clears the colour filter). */
function HexInput({ value, onCommit }: { value: string; onCommit(hex: string | undefined): void }) {
  const [hex, setHex] = useState(value);
  return (
    <input
      type="text"
      className="hex-input"
      value={hex}
      placeholder="#RRGGBB"
      spellCheck={false}
      aria-label="Colour as hex"
      data-testid="filter-color-hex"
      onChange={(e) => setHex(e.target.value)}
      onKeyDown={(e) => {
        if (e.key !== 'Enter') return;
        const v = hex.trim().replace(/^([0-9a-f]{6})$/i, '#$1');
        if (!v) onCommit(undefined);
        else if (/^#[0-9a-f]{6}$/i.test(v)) onCommit(v);
      }}
    />
  );
}
