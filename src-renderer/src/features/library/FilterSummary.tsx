import type { NumberRange } from '../../../../src-preload/contract';
import type { FilterState } from './Filters';
import { UGC_LABELS } from '../analysis/format';

type Key = keyof FilterState;

const range = (r: NumberRange, unit = ''): string =>
  r.min !== undefined && r.max !== undefined ? `${r.min}–${r.max}${unit}` : r.min !== undefined ? `≥ ${r.min}${unit}` : `≤ ${r.max}${unit}`;

/** The agencies' names for the summary (ids as the catalogue stores them; the profiles live in main). */
const AGENCY_NAMES: Record<string, string> = {
  adobe: 'Adobe Stock', shutterstock: 'Shutterstock', getty: 'Getty Images / iStock', alamy: 'Alamy', pond5: 'Pond5',
  dreamstime: 'Dreamstime', '123rf': '123RF', depositphotos: 'Depositphotos', freepik: 'Freepik',
};

const KIND: Record<string, string> = { image: 'Photos', video: 'Videos', audio: 'Audio' };

/** How each filter in use reads in the summary; a filter not named here shows its name. */
const DESCRIBE: { [K in Key]?: (v: NonNullable<FilterState[K]>) => string } = {
  kinds: (v) => v.map((k) => KIND[k] ?? k).join(' + '),
  minRating: (v) => `≥ ${'★'.repeat(v)}`,
  label: (v) => (v === 'none' ? 'No label' : `${v[0].toUpperCase()}${v.slice(1)} label`),
  keywords: (v) => `With ${v.join(', ')}`,
  withoutKeywords: (v) => `Without ${v.join(', ')}`,
  noKeywords: () => 'No keywords yet',
  takenFrom: (v) => `From ${v}`,
  takenTo: (v) => `Until ${v}`,
  camera: (v) => v,
  duplicatesOnly: () => 'Duplicates',
  errorsOnly: () => 'With errors',
  similarGroups: (v) => (v === 'burst' ? 'In bursts' : 'In similar groups'),
  flag: (v) => (v === 'unflagged' ? 'Unflagged' : v === 'pick' ? 'Picks' : 'Rejects'),
  minQuality: (v) => `Stock quality ≥ ${Math.round(v * 100)}%`,
  maxQuality: (v) => `Stock quality ≤ ${Math.round(v * 100)}%`,
  ugcClasses: (v) => `Everyday quality: ${v.map((c) => (UGC_LABELS[c] ?? String(c)).toLowerCase()).join(', ')}`,
  hasFaces: (v) => (v ? 'With faces' : 'No faces'),
  minFaces: (v) => `≥ ${v} faces`,
  maxFaces: (v) => `≤ ${v} faces`,
  child: () => 'Child',
  ageMin: (v) => `Age ≥ ${v}`,
  ageMax: (v) => `Age ≤ ${v}`,
  releaseNeeded: (v) => (v ? 'Release needed' : 'No release needed'),
  color: (v) => `Colour ${v.hex}`,
  lens: (v) => `Lens “${v}”`,
  iso: (v) => `ISO ${range(v)}`,
  focalLength: (v) => `Focal ${range(v, ' mm')}`,
  aperture: (v) => `f/${range(v)}`,
  sentTo: (v) => `Sent to ${AGENCY_NAMES[v] ?? v}`,
  notSentTo: (v) => `Not sent to ${AGENCY_NAMES[v] ?? v}`,
};

const inUse = (v: unknown): boolean => v !== undefined && v !== false && v !== '' && !(Array.isArray(v) && v.length === 0);

/**
 * The filters in use, at the top of the sidebar, each removable: with the panels below folded
 * away, this is where a person sees why the grid shows what it shows.
 */
export function FilterSummary({ filters, onChange, collectionName, onSaveSmart, editing }: {
  filters: FilterState;
  onChange(f: FilterState): void;
  /** The name of the collection shown (filters.collectionId). */
  collectionName?: string;
  /** "Save current filters as a smart collection". */
  onSaveSmart?(): void;
  /** A smart collection's search being edited here: save it back, or leave it as it was. */
  editing?: { name: string; onSave(): void; onCancel(): void };
}) {
  const keys = (Object.keys(filters) as Key[]).filter((k) => k !== 'folderId' && inUse(filters[k]));
  if (!keys.length && !editing) return null;
  const remove = (k: Key) => {
    const next = { ...filters };
    delete next[k];
    onChange(next);
  };
  return (
    <div className="filter-summary" data-testid="filter-summary">
      <span className="filter-summary-head">
        <span className="muted small">Filters in use</span>
        <button type="button" className="link-btn" onClick={() => onChange(filters.folderId ? { folderId: filters.folderId } : {})} data-testid="filter-summary-clear">
          Clear all
        </button>
      </span>
      <span className="filter-summary-chips">
        {keys.map((k) => {
          const describe = DESCRIBE[k] as ((v: unknown) => string) | undefined;
          const text = k === 'collectionId' ? `In “${collectionName ?? '…'}”` : describe ? describe(filters[k]) : k;
          return (
            <span key={k} className="chip" data-testid={`filter-summary-${k}`}>
              {text}
              <button type="button" aria-label={`Remove the filter ${text}`} onClick={() => remove(k)}>×</button>
            </span>
          );
        })}
      </span>
      {editing ? (
        <span className="filter-summary-actions" data-testid="smart-editing">
          <button type="button" className="btn btn-primary btn-sm" onClick={editing.onSave} data-testid="smart-edit-save">
            Save to “{editing.name}”
          </button>
          <button type="button" className="link-btn" onClick={editing.onCancel} data-testid="smart-edit-cancel">
            Cancel
          </button>
        </span>
      ) : (
        onSaveSmart && (
          <button type="button" className="link-btn" onClick={onSaveSmart} data-testid="filter-save-smart">
            Save as smart collection…
          </button>
        )
      )}
    </div>
  );
}
