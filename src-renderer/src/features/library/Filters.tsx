import { useState } from 'react';
import type { AgencyProfileView, AssetKind, Facets, NumberRange, SearchQuery } from '../../../../src-preload/contract';
import { useQuery } from '../../api/useQuery';
import { COLOR_LABELS, labelName } from '../../ui/ColorLabel';
import { Section, formatCount } from '../../ui/primitives';

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

export function activeFilterCount(f: FilterState): number {
  return Object.entries(f).filter(([k, v]) => k !== 'folderId' && v !== undefined && v !== false && !(Array.isArray(v) && v.length === 0)).length;
}

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
          placeholder="keyword"
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
        <input type="number" min="0" step={step} value={value?.min ?? ''} placeholder="min" aria-label={`${label} from`} data-testid={`${testId}-min`} onChange={(e) => end('min', e.target.value)} />
        <span className="muted">–</span>
        <input type="number" min="0" step={step} value={value?.max ?? ''} placeholder="max" aria-label={`${label} up to`} data-testid={`${testId}-max`} onChange={(e) => end('max', e.target.value)} />
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

export function Filters({ filters, onChange }: { filters: FilterState; onChange(f: FilterState): void }) {
  const facets = useQuery<Facets>('facets', ['facets'], (a) => a.facets());
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
  const kindCount = (k: AssetKind) => facets.data?.kinds.find((x) => x.kind === k)?.count ?? 0;

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
      <div className="filter-row">
        <label className="filter-label">Type</label>
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
      <div className="filter-row">
        <label className="filter-label">Rating</label>
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
        <span className="muted small">{filters.minRating ? `≥ ${filters.minRating}` : 'any'}</span>
      </div>
      <div className="filter-row">
        <label className="filter-label">Label</label>
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
      <KeywordFilter label="With" values={filters.keywords ?? []} onChange={(v) => set({ keywords: v })} testId="filter-keyword" />
      <KeywordFilter label="Without" values={filters.withoutKeywords ?? []} onChange={(v) => set({ withoutKeywords: v })} testId="filter-without-keyword" />
      <div className="filter-row">
        <label className="filter-label">Taken</label>
        <div className="date-range">
          <input type="date" value={filters.takenFrom ?? ''} onChange={(e) => set({ takenFrom: e.target.value || undefined })} aria-label="Taken from" data-testid="filter-from" />
          <input type="date" value={filters.takenTo ?? ''} onChange={(e) => set({ takenTo: e.target.value || undefined })} aria-label="Taken until" data-testid="filter-to" />
        </div>
      </div>
      <div className="filter-row">
        <label className="filter-label">Camera</label>
        <select value={filters.camera ?? ''} onChange={(e) => set({ camera: e.target.value || undefined })} data-testid="filter-camera">
          <option value="">Any camera</option>
          {mergeCameras(facets.data?.cameras ?? []).map((c) => (
            <option key={c.name} value={c.name}>
              {c.name} ({formatCount(c.count)})
            </option>
          ))}
        </select>
      </div>
      <div className="filter-row">
        <label className="filter-label">Lens</label>
        <input type="text" value={filters.lens ?? ''} placeholder="any lens" onChange={(e) => set({ lens: e.target.value || undefined })} data-testid="filter-lens" />
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
    </Section>
  );
}
