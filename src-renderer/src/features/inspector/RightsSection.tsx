import { useState } from 'react';
import type { MetadataPreset, RightsFields } from '../../../../src-preload/contract';
import { useClient } from '../../api/ClientContext';
import { useQuery } from '../../api/useQuery';
import { useToast } from '../../ui/Toasts';
import { Section } from '../../ui/primitives';
import { TextField } from './TextField';
import { useEdits } from './useEdits';
import './rights.css';

// Stock and rights fields (IPTC Core / XMP) beside keywords and caption, editable for one
// asset or a whole selection, plus named presets ("IPTC templates") applied in one step.

const FIELDS: { key: keyof RightsFields; label: string; placeholder: string }[] = [
  { key: 'headline', label: 'Headline', placeholder: 'A short synopsis' },
  { key: 'creator', label: 'Creator', placeholder: 'Photographer’s name' },
  { key: 'copyright', label: 'Copyright', placeholder: '© 2026 Your Name' },
  { key: 'credit', label: 'Credit line', placeholder: 'Agency or photographer' },
  { key: 'city', label: 'City', placeholder: 'Where it was taken' },
  { key: 'country', label: 'Country', placeholder: 'Country' },
];

/** The rest of IPTC Core / Extension a template can hold, in groups folded away until wanted. */
const MORE: { title: string; testId: string; fields: { key: keyof RightsFields; label: string; placeholder: string }[] }[] = [
  {
    title: 'Creator contact',
    testId: 'rights-more-contact',
    fields: [
      { key: 'creatorJobTitle', label: 'Job title', placeholder: 'e.g. Photographer' },
      { key: 'creatorAddress', label: 'Address', placeholder: 'Street' },
      { key: 'creatorCity', label: 'City', placeholder: 'City' },
      { key: 'creatorRegion', label: 'Region', placeholder: 'State / province' },
      { key: 'creatorPostalCode', label: 'Postal code', placeholder: 'Postal code' },
      { key: 'creatorCountry', label: 'Country', placeholder: 'Country' },
      { key: 'creatorPhone', label: 'Phone', placeholder: 'Work phone' },
      { key: 'creatorEmail', label: 'Email', placeholder: 'Work email' },
      { key: 'creatorUrl', label: 'Website', placeholder: 'https://' },
    ],
  },
  {
    title: 'Usage and source',
    testId: 'rights-more-usage',
    fields: [
      { key: 'usageTerms', label: 'Usage terms', placeholder: 'e.g. Editorial use only' },
      { key: 'rightsUrl', label: 'Rights URL', placeholder: 'https:// licence page' },
      { key: 'instructions', label: 'Instructions', placeholder: 'e.g. Credit the photographer' },
      { key: 'source', label: 'Source', placeholder: 'Who owns the original' },
    ],
  },
  {
    title: 'Location created',
    testId: 'rights-more-created',
    fields: [
      { key: 'createdSublocation', label: 'Sublocation', placeholder: 'Neighbourhood, landmark' },
      { key: 'createdCity', label: 'City', placeholder: 'City' },
      { key: 'createdState', label: 'State', placeholder: 'State / province' },
      { key: 'createdCountry', label: 'Country', placeholder: 'Country' },
      { key: 'createdCountryCode', label: 'Country code', placeholder: 'ISO code, e.g. PRT' },
    ],
  },
  {
    title: 'Location shown',
    testId: 'rights-more-shown',
    fields: [
      { key: 'shownSublocation', label: 'Sublocation', placeholder: 'Neighbourhood, landmark' },
      { key: 'shownCity', label: 'City', placeholder: 'City' },
      { key: 'shownState', label: 'State', placeholder: 'State / province' },
      { key: 'shownCountry', label: 'Country', placeholder: 'Country' },
      { key: 'shownCountryCode', label: 'Country code', placeholder: 'ISO code, e.g. PRT' },
    ],
  },
];

export function RightsSection({ ids, values }: { ids: number[]; values: Required<RightsFields> | null }) {
  const { api } = useClient();
  const edits = useEdits();
  const toast = useToast();
  const presets = useQuery<MetadataPreset[]>('presets', ['assets'], (c) => c.listPresets());
  const [naming, setNaming] = useState(false);
  const [name, setName] = useState('');
  const [addKeywords, setAddKeywords] = useState('');
  const many = ids.length > 1;
  const key = ids.length > 3 ? `${ids.length}:${ids[0]}:${ids[ids.length - 1]}` : ids.join(',');

  const setField = (field: keyof RightsFields, value: string | null) => edits.commit(() => api.setRightsFields({ ids, fields: { [field]: value } }));
  const apply = async (preset: MetadataPreset) => {
    if (await edits.commit(() => api.applyPreset({ id: preset.id, ids }))) {
      toast.info(`Applied “${preset.name}” to ${ids.length === 1 ? 'this photo' : `${ids.length} items`}.`, { undo: () => void edits.undo() });
    }
  };
  const saveAsPreset = async () => {
    if (!values) return;
    const keywords = addKeywords.split(',').map((k) => k.trim()).filter(Boolean);
    const ok = await edits.commit(() => api.savePreset({ name, fields: values, keywords }));
    if (ok) {
      toast.info(`Saved the preset “${name.trim()}”.`);
      setNaming(false);
      setName('');
      setAddKeywords('');
    }
  };

  const list = presets.data ?? [];
  return (
    <Section
      title="Rights & location"
      testId="rights-section"
      actions={
        <select
          className="select-sm"
          aria-label="Apply a metadata preset"
          data-testid="preset-apply"
          value=""
          onChange={(e) => {
            const p = list.find((x) => String(x.id) === e.target.value);
            if (p) void apply(p);
          }}
        >
          <option value="">{list.length ? 'Apply preset…' : 'No presets yet'}</option>
          {list.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </select>
      }
    >
      {FIELDS.map((f) => (
        <TextField
          key={`${f.key}${key}`}
          label={many ? `${f.label} for all` : f.label}
          value={values?.[f.key] ?? ''}
          placeholder={many ? `Set one ${f.label.toLowerCase()} for all` : f.placeholder}
          onSave={(v) => setField(f.key, v)}
          testId={`rights-${f.key}`}
        />
      ))}
      {MORE.map((group) => (
        <details key={group.title} className="rights-more" data-testid={group.testId}>
          <summary>
            {group.title}
            {values && group.fields.some((f) => values[f.key]) ? <span className="muted small"> · {group.fields.filter((f) => values[f.key]).length} set</span> : null}
          </summary>
          {group.fields.map((f) => (
            <TextField
              key={`${f.key}${key}`}
              label={many ? `${f.label} for all` : f.label}
              value={values?.[f.key] ?? ''}
              placeholder={many ? `Set one ${f.label.toLowerCase()} for all` : f.placeholder}
              onSave={(v) => setField(f.key, v)}
              testId={`rights-${f.key}`}
            />
          ))}
        </details>
      ))}
      {!many && values && (
        <div className="preset-save">
          {naming ? (
            <form
              onSubmit={(e) => {
                e.preventDefault();
                void saveAsPreset();
              }}
            >
              <input
                autoFocus
                value={name}
                onChange={(e) => setName(e.target.value)}
                placeholder="Preset name, e.g. Lisbon shoot 2026"
                data-testid="preset-name"
                aria-label="Preset name"
              />
              <input
                value={addKeywords}
                onChange={(e) => setAddKeywords(e.target.value)}
                placeholder="Keywords to add, comma separated"
                data-testid="preset-keywords"
                aria-label="Keywords the preset adds"
              />
              <button type="submit" className="btn btn-sm btn-primary" disabled={!name.trim()} data-testid="preset-save">
                Save
              </button>
              <button type="button" className="btn btn-sm btn-ghost" onClick={() => setNaming(false)}>
                Cancel
              </button>
            </form>
          ) : (
            <button type="button" className="btn btn-sm btn-ghost" onClick={() => setNaming(true)} data-testid="preset-new">
              Save these fields as a metadata preset…
            </button>
          )}
        </div>
      )}
    </Section>
  );
}
