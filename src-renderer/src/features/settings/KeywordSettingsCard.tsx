import { useEffect, useState } from 'react';
import type { KeywordSettings, LimitPreset } from '../../../../src-preload/contract';
import { useClient } from '../../api/ClientContext';
import { Button } from '../../ui/primitives';
import { errorText } from '../../ui/Toasts';

const PRESETS: { value: LimitPreset; label: string; min: number; max: number }[] = [
  { value: 'default', label: 'Default · 50', min: 0, max: 50 },
  { value: 'adobe', label: 'Adobe Stock · 49', min: 0, max: 49 },
  { value: 'shutterstock', label: 'Shutterstock · 7–50', min: 7, max: 50 },
  { value: 'custom', label: 'Custom', min: 0, max: 50 },
];

const words = (s: string): string[] => s.split(/[,\n]/).map((w) => w.trim()).filter(Boolean);

interface Draft {
  exclude: string;
  required: string;
  preset: LimitPreset;
  min: string;
  max: string;
  casing: KeywordSettings['casing'];
  exportSynonyms: boolean;
}

const draftOf = (s: KeywordSettings): Draft => ({
  exclude: s.exclude.join(', '),
  required: s.required.join(', '),
  preset: s.limit.preset,
  min: String(s.limit.min),
  max: String(s.limit.max),
  casing: s.casing,
  exportSynonyms: s.exportSynonyms,
});

/** Keyword hygiene and the stock limit: exclude list, required keywords, limit preset, casing. */
export function KeywordSettingsCard({ active }: { active: boolean }) {
  const { api } = useClient();
  const [draft, setDraft] = useState<Draft | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  /** an update changed this library's casing (issue 15): say so once, offer the old one */
  const [changedFrom, setChangedFrom] = useState<KeywordSettings['casingChangedFrom']>(null);

  useEffect(() => {
    if (!active) return;
    let live = true;
    api.getKeywordSettings().then(
      (s) => {
        if (!live) return;
        setDraft(draftOf(s));
        setChangedFrom(s.casingChangedFrom);
      },
      (err: unknown) => live && setProblem(errorText(err)),
    );
    return () => {
      live = false;
    };
  }, [api, active]);

  if (!draft) {
    return (
      <section className="card" data-testid="settings-keywords">
        <header className="card-head">
          <h2>Keywords</h2>
        </header>
        <p className={problem ? 'error-text' : 'muted'}>{problem ?? 'Loading…'}</p>
      </section>
    );
  }
  const set = (patch: Partial<Draft>) => {
    setDraft({ ...draft, ...patch });
    setSaved(false);
  };
  const custom = draft.preset === 'custom';
  const save = async () => {
    setProblem(null);
    const min = Number(draft.min);
    const max = Number(draft.max);
    if (custom && (!Number.isInteger(min) || !Number.isInteger(max) || min < 0 || max < 1 || min > max)) {
      setProblem('The custom limit needs whole numbers, with the minimum no more than the maximum.');
      return;
    }
    try {
      const next = await api.setKeywordSettings({
        settings: {
          exclude: words(draft.exclude),
          required: words(draft.required),
          casing: draft.casing,
          exportSynonyms: draft.exportSynonyms,
          limit: custom ? { preset: 'custom', min, max } : { preset: draft.preset },
        },
      });
      setDraft(draftOf(next));
      setChangedFrom(next.casingChangedFrom);
      setSaved(true);
    } catch (err) {
      setProblem(errorText(err));
    }
  };
  const answerNotice = async (casing: KeywordSettings['casing']) => {
    setProblem(null);
    try {
      const next = await api.setKeywordSettings({ settings: { casing } });
      setDraft({ ...draft, casing: next.casing });
      setChangedFrom(next.casingChangedFrom);
    } catch (err) {
      setProblem(errorText(err));
    }
  };
  return (
    <section className="card" data-testid="settings-keywords">
      <header className="card-head">
        <h2>Keywords</h2>
        <span className="muted small">How accepted keywords are cleaned up and how many a photo may carry.</span>
      </header>
      <form
        className="form"
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <div className="form-row">
          <span className="form-label">Limit per photo</span>
          <div className="segmented" role="group" aria-label="Keyword limit">
            {PRESETS.map((p) => (
              <button
                key={p.value}
                type="button"
                className={draft.preset === p.value ? 'on' : ''}
                aria-pressed={draft.preset === p.value}
                onClick={() => set(p.value === 'custom' ? { preset: p.value } : { preset: p.value, min: String(p.min), max: String(p.max) })}
                data-testid={`kw-limit-${p.value}`}
              >
                {p.label}
              </button>
            ))}
          </div>
        </div>
        {custom && (
          <div className="form-row">
            <span className="form-label">Custom limit</span>
            <span className="input-unit">
              <input type="text" inputMode="numeric" value={draft.min} onChange={(e) => set({ min: e.target.value })} aria-label="Minimum keywords" data-testid="kw-limit-min" />
              <span className="muted">to</span>
              <input type="text" inputMode="numeric" value={draft.max} onChange={(e) => set({ max: e.target.value })} aria-label="Maximum keywords" data-testid="kw-limit-max" />
            </span>
          </div>
        )}
        <label className="form-row">
          <span className="form-label">Casing</span>
          <select value={draft.casing} onChange={(e) => set({ casing: e.target.value as KeywordSettings['casing'] })} data-testid="kw-casing">
            <option value="byLanguage">by language: lower case, German nouns capitalised (your existing spelling wins)</option>
            <option value="lower">lower case for new words (your existing spelling wins)</option>
            <option value="asSent">as the service spells them</option>
          </select>
        </label>
        {changedFrom === 'lower' && (
          <div className="form-row" data-testid="kw-casing-notice" role="status">
            <span />
            <div>
              <p className="small">
                Casing now follows each keyword’s language. This library used lower case for every new word, so German suggestions arrived as “himmel”, “strand”; new
                German words now keep their capital (“Himmel”, “Strand”). Keywords you already have keep their spelling.
              </p>
              <div className="form-actions">
                <Button small onClick={() => void answerNotice('byLanguage')} data-testid="kw-casing-notice-ok">
                  Use casing by language
                </Button>
                <Button small onClick={() => void answerNotice('lower')} data-testid="kw-casing-notice-lower">
                  Keep lower case
                </Button>
              </div>
            </div>
          </div>
        )}
        <label className="form-row form-row-top">
          <span className="form-label">Never accept</span>
          <textarea rows={2} value={draft.exclude} placeholder="e.g. nobody, no people, background" onChange={(e) => set({ exclude: e.target.value })} data-testid="kw-exclude" />
        </label>
        <label className="form-row form-row-top">
          <span className="form-label">Always add</span>
          <textarea rows={2} value={draft.required} placeholder="e.g. your studio name" onChange={(e) => set({ required: e.target.value })} data-testid="kw-required" />
        </label>
        <label className="form-row">
          <span className="form-label">Synonyms</span>
          <span>
            <input type="checkbox" checked={draft.exportSynonyms} onChange={(e) => set({ exportSynonyms: e.target.checked })} data-testid="kw-export-synonyms" />{' '}
            Write each keyword’s synonyms into files with it (as Lightroom’s “Export Synonyms”), as plain keywords
          </span>
        </label>
        <div className="form-row">
          <span />
          <div className="form-actions">
            <Button type="submit" variant="primary" data-testid="kw-settings-save">
              Save keyword settings
            </Button>
            {saved && <span className="status-saved small" data-testid="kw-settings-saved">Saved</span>}
            {problem && <span className="error-text small" data-testid="kw-settings-error">{problem}</span>}
          </div>
        </div>
        <p className="muted small">Separate words with commas. Excluded words are never accepted from a suggestion; required ones are added to every photo whose suggestions you accept.</p>
      </form>
    </section>
  );
}
