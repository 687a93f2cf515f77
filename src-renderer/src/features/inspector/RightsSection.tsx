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

export function RightsSection({ ids, values }: { ids: number[]; values: Required<RightsFields> | null }) {
  const { api } = useClient();
  const edits = useEdits();
  const toast = useToast();
  const presets = useQuery<MetadataPreset[]>('presets', ['assets'], (c) => c.listPresets());
  const [naming, setNaming] = useState(false);
  const [name, setName] = useState('');
  const many = ids.length > 1;
  const key = ids.length > 3 ? `${ids.length}:${ids[0]}:${ids[ids.length - 1]}` : ids.join(',');

  const setField = (field: keyof RightsFields, value: string | null) => edits.commit(() => api.setRightsFields({ ids, fields: { [field]: value } }));
  const apply = async (preset: MetadataPreset) => {
    if (await edits.commit(() => api.applyPreset({ id: preset.id, ids }))) {
      toast.info(`Applied “${preset.name}” to ${ids.length === 1 ? 'this photo' : `${ids.length} items`}. Ctrl+Z undoes it.`);
    }
  };
  const saveAsPreset = async () => {
    if (!values) return;
    const ok = await edits.commit(() => api.savePreset({ name, fields: values }));
    if (ok) {
      toast.info(`Saved the preset “${name.trim()}”.`);
      setNaming(false);
      setName('');
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
              <button type="submit" className="btn btn-sm btn-primary" disabled={!name.trim()} data-testid="preset-save">
                Save
              </button>
              <button type="button" className="btn btn-sm btn-ghost" onClick={() => setNaming(false)}>
                Cancel
              </button>
            </form>
          ) : (
            <button type="button" className="btn btn-sm btn-ghost" onClick={() => setNaming(true)} data-testid="preset-new">
              Save these fields as a preset…
            </button>
          )}
        </div>
      )}
    </Section>
  );
}
