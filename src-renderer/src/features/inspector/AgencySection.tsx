import type { AgencyId, AgencyProfileView, StockFieldsView } from '../../../../src-preload/contract';
import { useClient } from '../../api/ClientContext';
import { useQuery } from '../../api/useQuery';
import { formatDate } from '../../ui/format';
import { Section } from '../../ui/primitives';
import { TextField } from './TextField';
import { useEdits } from './useEdits';

// What stock agencies ask beyond IPTC (issue 19): editorial or commercial, release names, and
// each agency's category from its own list. One photo shows its values; a selection sets one
// value for all (one undoable edit). The agency check reads these.

export function AgencySection({ ids, sampleId }: { ids: number[]; sampleId: number }) {
  const { api } = useClient();
  const edits = useEdits();
  const many = ids.length > 1;
  const agencies = useQuery<AgencyProfileView[]>('agencies', [], (c) => c.listAgencies());
  const fields = useQuery<StockFieldsView>(many ? null : `stock:${sampleId}`, ['assets'], (c) => c.getStockFields({ id: sampleId }));
  const values = many ? null : fields.data ?? null;
  const key = many ? `${ids.length}:${ids[0]}:${ids[ids.length - 1]}` : String(sampleId);
  const set = (args: Omit<Parameters<typeof api.setStockFields>[0], 'ids'>) => edits.commit(() => api.setStockFields({ ids, ...args }));
  const withCategories = (agencies.data ?? []).filter((a) => a.categories.length > 0);

  const setCategory = (agency: AgencyId, slot: number, value: string) => {
    const current = [...(values?.categories[agency] ?? [])];
    if (value) current[slot] = value;
    else current.splice(slot, 1);
    void set({ categories: { agency, values: [...new Set(current.filter(Boolean))] } });
  };

  return (
    <Section title="Agencies" testId="agency-section">
      {(values?.sent ?? []).map((s) => (
        <p key={s.agency} className="small" data-testid="stock-sent" data-agency={s.agency} title={s.remote}>
          Sent to {s.name} on {formatDate(s.sentAt)}
        </p>
      ))}
      <label className="small" data-testid="stock-editorial-label">
        <input
          type="checkbox"
          data-testid="stock-editorial"
          checked={values?.editorial ?? false}
          onChange={(e) => void set({ editorial: e.target.checked })}
        />{' '}
        Editorial use only{many ? ' (for all)' : ''}
      </label>
      <TextField
        key={`rel${key}`}
        label={many ? 'Releases for all' : 'Releases'}
        value={values?.releases.join(', ') ?? ''}
        placeholder="Release names, comma-separated"
        onSave={(v) => set({ releases: (v ?? '').split(',').map((s) => s.trim()).filter(Boolean) })}
        testId="stock-releases"
      />
      {withCategories.map((a) => (
        <div key={a.id} className="field" data-testid={`stock-category-${a.id}`}>
          <span className="small">{a.name} {a.maxCategories > 1 ? 'categories' : 'category'}{many ? ' for all' : ''}</span>
          {Array.from({ length: a.maxCategories }, (_, slot) => (
            <select
              key={`${key}:${slot}`}
              className="select-sm"
              aria-label={`${a.name} category ${slot + 1}`}
              data-testid={`stock-category-${a.id}-${slot}`}
              value={values?.categories[a.id]?.[slot] ?? ''}
              onChange={(e) => setCategory(a.id, slot, e.target.value)}
            >
              <option value="">{slot === 0 ? 'None' : '—'}</option>
              {a.categories.map((c) => (
                <option key={c.value} value={c.value}>{c.label}</option>
              ))}
            </select>
          ))}
        </div>
      ))}
    </Section>
  );
}
