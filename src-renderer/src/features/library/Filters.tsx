import { useState } from 'react';
import type { AgencyProfileView, AssetKind, Facets, NumberRange, SearchQuery } from '../../../../src-preload/contract';
import { useQuery } from '../../api/useQuery';
import { usePersistentState } from '../../state/viewState';
import { COLOR_LABELS, labelName } from '../../ui/ColorLabel';
import { Section, formatCount } from '../../ui/primitives';
import { FaceColourFilters, FLAGS } from '../analysis/AnalysisFilters';

export type FilterState = Omit<SearchQuery, 'text' | 'sort' | 'order'>;

const KINDS: { kind: AssetKind; label: string }[] = [
  { kind: 'image', label: 'Photos' },
  { kind: 'video', label: 'Videos' },
  { kind: 'audio', label: 'Audio' },
];

/** One entry per camera name (robust to a facet list that repeats a name). */
function mergeCameras(list: { name: string; count: number }[]): { name: string; count: number }[] {
  const byName = new Map<string, number>();
  for (const c of list) byName.set(c.name, (byName.get(c.name) ?? 0) + c.count);
  return [...byName].map(([name, count]) => ({ name, count }));
}

const inUse = (k: string, v: unknown): boolean => k !== 'folderId' && v !== undefined && v !== false && v !== '' && !(Array.isArray(v) && v.length === 0);

export function activeFilterCount(f: FilterState): number {
  return Object.entries(f).filter(([k, v]) => inUse(k, v)).length;
}

/** The filters of the top row (Lightroom's attribute bar), and the ones with their own section. */
const TOP: (keyof FilterState)[] = ['flag', 'minRating', 'label', 'kinds'];
const ELSEWHERE: (keyof FilterState)[] = ['collectionId', 'minQuality', 'maxQuality', 'ugcClasses'];

/** How many of the filters folded under "More" are in use (said on the fold, so none is forgotten). */
export function moreFilterCount(f: FilterState): number {
  return Object.entries(f).filter(([k, v]) => inUse(k, v) && !TOP.includes(k as keyof FilterState) && !ELSEWHERE.includes(k as keyof FilterState)).length;
}

const isBoolean = (v: unknown): v is boolean => typeof v === 'boolean';

function KeywordFilter({ label, values, onChange, testId }: { label: string; values: string[]; onChange(v: string[]): void; testId: string }) {
  const [text, setText] = useState('');
  return (
    <div className="filter-row filter-keywords">
      <label className="filter-label">{label}</label>
      <div className="chips chips-compact">
        {values.map((k) => (
          <span key={k} className="chip">
            {k}
            <button type="button" aria-label={`Remove ${k}`} onClick={() => onChange(values.filter((x) => x !== k))}>×</button>
          </span>
        ))}
        <input
          type="text"
          value={text}
          placeholder="type a keyword, Enter"
          data-testid={testId}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && text.trim()) {
              if (!values.includes(text.trim())) onChange([...values, text.trim()]);
              setText('');
            } else if (e.key === 'Backspace' && !text && values.length) onChange(values.slice(0, -1));
          }}
        />
      </div>
    </div>
  );
}

/** MIN – MAX, either end may stay empty (open). */
function RangeFilter({ label, unit, value, onChange, testId, step }: { label: string; unit: string; value: NumberRange | undefined; onChange(v: NumberRange | undefined): void; testId: string; step: string }) {
  const end = (key: 'min' | 'max', text: string) => {
    const n = text.trim() === '' ? undefined : Number(text);
    const next: NumberRange = { ...value, [key]: n !== undefined && Number.isFinite(n) && n >= 0 ? n : undefined };
    if (next.min === undefined) delete next.min;
    if (next.max === undefined) delete next.max;
    onChange(next.min === undefined && next.max === undefined ? undefined : next);
  };
  return (
    <div className="filter-row">
      <label className="filter-label">{label}</label>
      <div className="number-range">
        <input type="number" min="0" step={step} value={value?.min ?? ''} placeholder="from" aria-label={`${label} from`} data-testid={`${testId}-min`} onChange={(e) => end('min', e.target.value)} />
        <span className="muted">–</span>
        <input type="number" min="0" step={step} value={value?.max ?? ''} placeholder="to" aria-label={`${label} up to`} data-testid={`${testId}-max`} onChange={(e) => end('max', e.target.value)} />
        {unit && <span className="muted small">{unit}</span>}
      </div>
    </div>
  );
}

/** Issue 19: photos sent to a stock agency by the upload, or never sent there. */
function SentFilter({ filters, set }: { filters: FilterState; set(patch: Partial<FilterState>): void }) {
  const agencies = useQuery<AgencyProfileView[]>('agencies', [], (a) => a.listAgencies());
  const value = filters.sentTo ? `to:${filters.sentTo}` : filters.notSentTo ? `not:${filters.notSentTo}` : '';
  const choose = (v: string) => {
    const [how, id] = v.split(':');
    set({ sentTo: how === 'to' ? id : undefined, notSentTo: how === 'not' ? id : undefined });
  };
  return (
    <div className="filter-row">
      <label className="filter-label">Sent</label>
      <select value={value} onChange={(e) => choose(e.target.value)} data-testid="filter-sent">
        <option value="">Sent anywhere or not</option>
        {(agencies.data ?? []).map((a) => <option key={`to:${a.id}`} value={`to:${a.id}`}>Sent to {a.name}</option>)}
        {(agencies.data ?? []).map((a) => <option key={`not:${a.id}`} value={`not:${a.id}`}>Not sent to {a.name}</option>)}
      </select>
    </div>
  );
}

/**
 * The library's filters in Lightroom's shape: the attribute row (flag, stars, colour label, type)
 * always there, everything else folded under "More" (open or folded as the user left it, also
 * after a restart). Quality has its own section (the histogram).
 */
export function Filters({ filters, onChange }: { filters: FilterState; onChange(f: FilterState): void }) {
  const facets = useQuery<Facets>('facets', ['facets'], (a) => a.facets());
  const [more, setMore] = usePersistentState<boolean>('library.filters.more', false, isBoolean);
  const set = (patch: Partial<FilterState>) => {
    const next: FilterState = { ...filters, ...patch };
    for (const k of Object.keys(next) as (keyof FilterState)[]) {
      const v = next[k];
      if (v === undefined || v === false || v === '' || (Array.isArray(v) && v.length === 0)) delete next[k];
    }
    onChange(next);
  };
  const kinds = filters.kinds ?? [];
  const count = activeFilterCount(filters);
  const hiddenCount = moreFilterCount(filters);
  const kindCount = (k: AssetKind) => facets.data?.kinds.find((x) => x.kind === k)?.count ?? 0;
  // An empty library has nothing to narrow: no wall of controls before the first folder.
  if (facets.data && facets.data.kinds.every((k) => k.count === 0) && count === 0) return null;

  return (
    <Section
      title="Filters"
      testId="filters"
      collapseKey="library.filters"
      actions={
        count > 0 ? (
          <button type="button" className="link-btn" onClick={() => onChange(filters.folderId ? { folderId: filters.folderId } : {})} data-testid="clear-filters">
            Clear ({count})
          </button>
        ) : undefined
      }
    >
      <div className="filter-top" data-testid="filter-top">
        <div className="filter-row">
          <span className="filter-label">Flag</span>
          <div className="segmented segmented-tight" role="group" aria-label="Flag">
            {FLAGS.map((f) => (
              <button key={f.label} type="button" className={filters.flag === f.value ? 'on' : ''} aria-pressed={filters.flag === f.value} title={f.title} data-testid={`filter-flag-${f.value ?? 'any'}`} onClick={() => set({ flag: f.value })}>
                {f.label}
              </button>
            ))}
          </div>
        </div>
        <div className="filter-row">
          <span className="filter-label">Stars</span>
          <div className="segmented segmented-stars" role="group" aria-label="Minimum rating">
            {[1, 2, 3, 4, 5].map((n) => (
              <button
                key={n}
                type="button"
                className={(filters.minRating ?? 0) >= n ? 'on' : ''}
                aria-pressed={filters.minRating === n}
                data-testid={`filter-rating-${n}`}
                title={`At least ${n} star${n > 1 ? 's' : ''}`}
                onClick={() => set({ minRating: filters.minRating === n ? undefined : n })}
              >
                ★
              </button>
            ))}
          </div>
          <span className="muted small">{filters.minRating ? `${filters.minRating} or more` : 'any'}</span>
        </div>
        <div className="filter-row">
          <span className="filter-label">Label</span>
          <div className="label-picker" role="group" aria-label="Colour label">
            {COLOR_LABELS.map((l) => (
              <button
                key={l}
                type="button"
                className={`label-swatch label-${l}${filters.label === l ? ' on' : ''}`}
                aria-pressed={filters.label === l}
                aria-label={`${labelName(l)} label`}
                title={`${labelName(l)} label`}
                data-testid={`filter-label-${l}`}
                onClick={() => set({ label: filters.label === l ? undefined : l })}
              />
            ))}
            <button type="button" className="label-none" aria-pressed={filters.label === 'none'} data-testid="filter-label-none" title="No colour label" onClick={() => set({ label: filters.label === 'none' ? undefined : 'none' })}>
              None
            </button>
          </div>
        </div>
        <div className="filter-row">
          <span className="filter-label">Type</span>
          <div className="segmented" role="group" aria-label="Media type">
            {KINDS.map(({ kind, label }) => (
              <button
                key={kind}
                type="button"
                className={kinds.includes(kind) ? 'on' : ''}
                aria-pressed={kinds.includes(kind)}
                data-testid={`filter-kind-${kind}`}
                title={`${formatCount(kindCount(kind))} in the library`}
                onClick={() => set({ kinds: kinds.includes(kind) ? kinds.filter((k) => k !== kind) : [...kinds, kind] })}
              >
                {label}
              </button>
            ))}
          </div>
        </div>
      </div>
      <button type="button" className="filter-more-toggle" aria-expanded={more} onClick={() => setMore(!more)} data-testid="filters-more-toggle">
        <span className="panel-section-caret" aria-hidden="true">{more ? '▾' : '▸'}</span>
        More filters
        {hiddenCount > 0 && <span className="filter-more-count" data-testid="filters-more-count">{hiddenCount} in use</span>}
      </button>
      {more && (
        <div className="filter-more" data-testid="filters-more">
          <KeywordFilter label="With" values={filters.keywords ?? []} onChange={(v) => set({ keywords: v })} testId="filter-keyword" />
          <KeywordFilter label="Without" values={filters.withoutKeywords ?? []} onChange={(v) => set({ withoutKeywords: v })} testId="filter-without-keyword" />
          <div className="filter-row">
            <span className="filter-label">Taken</span>
            <div className="date-range">
              <input type="date" value={filters.takenFrom ?? ''} onChange={(e) => set({ takenFrom: e.target.value || undefined })} aria-label="Taken from" data-testid="filter-from" />
              <input type="date" value={filters.takenTo ?? ''} onChange={(e) => set({ takenTo: e.target.value || undefined })} aria-label="Taken until" data-testid="filter-to" />
            </div>
          </div>
          <div className="filter-row">
            <span className="filter-label">Camera</span>
            <select value={filters.camera ?? ''} onChange={(e) => set({ camera: e.target.value || undefined })} data-testid="filter-camera" aria-label="Camera">
              <option value="">Any camera</option>
              {mergeCameras(facets.data?.cameras ?? []).map((c) => (
                <option key={c.name} value={c.name}>
                  {c.name} ({formatCount(c.count)})
                </option>
              ))}
            </select>
          </div>
          <div className="filter-row">
            <span className="filter-label">Lens</span>
            <input type="text" className="filter-text" value={filters.lens ?? ''} placeholder="any lens" aria-label="Lens" onChange={(e) => set({ lens: e.target.value || undefined })} data-testid="filter-lens" />
          </div>
          <SentFilter filters={filters} set={set} />
          <RangeFilter label="ISO" unit="" step="100" value={filters.iso} onChange={(iso) => set({ iso })} testId="filter-iso" />
          <RangeFilter label="Focal" unit="mm" step="1" value={filters.focalLength} onChange={(focalLength) => set({ focalLength })} testId="filter-focal" />
          <RangeFilter label="Aperture" unit="ƒ/" step="0.1" value={filters.aperture} onChange={(aperture) => set({ aperture })} testId="filter-aperture" />
          <div className="filter-checks">
            <label>
              <input type="checkbox" checked={!!filters.noKeywords} onChange={(e) => set({ noKeywords: e.target.checked })} data-testid="filter-no-keywords" />
              No keywords yet
            </label>
            <label>
              <input type="checkbox" checked={!!filters.duplicatesOnly} onChange={(e) => set({ duplicatesOnly: e.target.checked })} data-testid="filter-duplicates" />
              Duplicates only
            </label>
            <label>
              <input type="checkbox" checked={!!filters.errorsOnly} onChange={(e) => set({ errorsOnly: e.target.checked })} data-testid="filter-errors" />
              With errors only
            </label>
            <label title="Only photos in a group of one scene: a burst, or the same picture at any time (two or more frames)">
              <input type="checkbox" checked={!!filters.similarGroups} onChange={(e) => set({ similarGroups: e.target.checked ? 'any' : undefined })} data-testid="filter-similar-groups" />
              In similar groups
            </label>
            {filters.similarGroups && (
              <label className="filter-sub" title="Only frames shot close together in time (bursts)">
                <input type="checkbox" checked={filters.similarGroups === 'burst'} onChange={(e) => set({ similarGroups: e.target.checked ? 'burst' : 'any' })} data-testid="filter-bursts" />
                Bursts only
              </label>
            )}
          </div>
          <FaceColourFilters filters={filters} onChange={onChange} />
        </div>
      )}
    </Section>
  );
}
