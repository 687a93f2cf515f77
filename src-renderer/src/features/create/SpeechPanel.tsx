import { useCallback, useEffect, useMemo, useState } from 'react';
import type { SpeechPreview, VoiceList, VoiceView } from '../../../../src-preload/contract';
import { useClient } from '../../api/ClientContext';
import { useDebounced } from '../../state/useDebounced';
import { IconRefresh, IconSearch } from '../../ui/icons';
import { Button, Spinner } from '../../ui/primitives';
import { Card, Field, PanelLayout, errorField } from './common';
import { when } from './format';
import { useCreativeTaskStore } from './taskStore';

const names = (() => {
  try {
    return new Intl.DisplayNames(undefined, { type: 'language' });
  } catch {
    return null;
  }
})();

/** 'eng' -> 'English (eng)'; codes the browser does not know stay as they are. */
export function languageName(code: string): string {
  try {
    const n = names?.of(code);
    return n && n.toLowerCase() !== code.toLowerCase() ? `${n} (${code})` : code;
  } catch {
    return code;
  }
}

const uniq = (xs: string[]): string[] => [...new Set(xs.filter(Boolean))].sort();

function useVoices() {
  const { api } = useClient();
  const [list, setList] = useState<VoiceList | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [refreshing, setRefreshing] = useState(false);
  useEffect(() => {
    let live = true;
    api.listVoices({}).then(
      (l) => live && setList(l),
      (err: unknown) => live && setError(errorField(err).message),
    );
    return () => {
      live = false;
    };
  }, [api]);
  const refresh = useCallback(async () => {
    setRefreshing(true);
    setError(null);
    try {
      setList(await api.listVoices({ refresh: true }));
    } catch (err) {
      setError(errorField(err).message);
    } finally {
      setRefreshing(false);
    }
  }, [api]);
  return { list, error, loading: refreshing || (list === null && error === null), refresh: () => void refresh() };
}

export function SpeechPanel() {
  const { api } = useClient();
  const store = useCreativeTaskStore();
  const voices = useVoices();
  const [lang, setLang] = useState('');
  const [gender, setGender] = useState('');
  const [age, setAge] = useState('');
  const [find, setFind] = useState('');
  const [voice, setVoice] = useState<string | null>(null);
  const [text, setText] = useState('');
  const [title, setTitle] = useState('');
  const [previewState, setPreviewState] = useState<{ key: string; preview: SpeechPreview } | null>(null);
  const [error, setError] = useState<{ field: string | null; message: string } | null>(null);
  const [sending, setSending] = useState(false);

  const all = useMemo(() => voices.list?.voices ?? [], [voices.list]);
  const genders = useMemo(() => uniq(all.map((v) => v.gender)), [all]);
  const ages = useMemo(() => uniq(all.map((v) => v.age)), [all]);
  const shown = useMemo(() => {
    const q = find.trim().toLowerCase();
    return all.filter(
      (v) =>
        (!lang || v.language === lang) &&
        (!gender || v.gender === gender) &&
        (!age || v.age === age) &&
        (!q || [v.apiName, v.language, languageName(v.language), v.gender, v.age].some((s) => s.toLowerCase().includes(q))),
    );
  }, [all, lang, gender, age, find]);
  const chosen: VoiceView | undefined = all.find((v) => v.apiName === voice);

  const dText = useDebounced(text, 250);
  const previewKey = voice && dText.trim() ? `${voice}\u0000${dText}` : '';
  useEffect(() => {
    if (!voice || !dText.trim()) return;
    let live = true;
    const key = `${voice}\u0000${dText}`;
    api.previewSpeech({ voice, text: dText }).then(
      (preview) => live && setPreviewState({ key, preview }),
      () => live && setPreviewState(null),
    );
    return () => {
      live = false;
    };
  }, [api, voice, dText]);
  const preview = previewState && previewState.key === previewKey && dText === text ? previewState.preview : null;

  const problem = !voice ? 'Choose a voice.' : !text.trim() ? 'Write the text to speak.' : null;
  const speak = async () => {
    if (problem || !voice) return;
    setSending(true);
    setError(null);
    try {
      store.put(await api.startSpeech({ voice, text, ...(title.trim() ? { title: title.trim() } : {}) }));
    } catch (err) {
      setError(errorField(err));
    } finally {
      setSending(false);
    }
  };

  const chars = text.length;
  const words = text.trim() ? text.trim().split(/\s+/).length : 0;

  return (
    <PanelLayout kinds={['speech']} testId="panel-speech" emptyText="Speech you make appears here, playable, and in the library under Creations.">
      <Card
        title="Voice"
        sub={voices.list ? `${all.length} voices${voices.list.fetchedAt ? ` · list of ${when(voices.list.fetchedAt)}` : ''} · refreshing it is free` : undefined}
        actions={
          <Button small onClick={voices.refresh} disabled={voices.loading} title="Fetch the voice list from the service again (free)" data-testid="voices-refresh">
            {voices.loading ? <Spinner /> : <IconRefresh />} Refresh
          </Button>
        }
        testId="voices"
      >
        <div className="voice-filters">
          <label className="search cr-search">
            <IconSearch />
            <input type="search" placeholder="Search voices" value={find} onChange={(e) => setFind(e.target.value)} data-testid="voice-search" aria-label="Search voices" />
          </label>
          <select value={lang} onChange={(e) => setLang(e.target.value)} data-testid="voice-lang" aria-label="Language">
            <option value="">All languages</option>
            {(voices.list?.languages ?? []).map((l) => (
              <option key={l} value={l}>{languageName(l)}</option>
            ))}
          </select>
          <select value={gender} onChange={(e) => setGender(e.target.value)} data-testid="voice-gender" aria-label="Gender">
            <option value="">Any gender</option>
            {genders.map((g) => <option key={g} value={g}>{g}</option>)}
          </select>
          <select value={age} onChange={(e) => setAge(e.target.value)} data-testid="voice-age" aria-label="Age">
            <option value="">Any age</option>
            {ages.map((g) => <option key={g} value={g}>{g}</option>)}
          </select>
        </div>
        {voices.error && <p className="error-text small" data-testid="voices-error">{voices.error}</p>}
        <div className="voice-list" role="radiogroup" aria-label="Voices" data-testid="voice-list">
          {voices.loading && !voices.list ? (
            <div className="voice-empty"><Spinner label="Loading voices" /></div>
          ) : shown.length === 0 ? (
            <p className="voice-empty muted">{all.length ? 'No voice matches these filters.' : 'No voices yet. Check the service settings, then Refresh.'}</p>
          ) : (
            shown.map((v) => (
              <button key={v.apiName} type="button" role="radio" aria-checked={v.apiName === voice} className={`voice${v.apiName === voice ? ' on' : ''}`} onClick={() => setVoice(v.apiName)} data-testid="voice" data-voice={v.apiName}>
                <span className="voice-name">{v.apiName}</span>
                <span className="voice-meta">{languageName(v.language)}</span>
                <span className="voice-meta">{[v.gender, v.age].filter(Boolean).join(' · ')}</span>
              </button>
            ))
          )}
        </div>
      </Card>
      <Card title="Script" sub={chosen ? <>Spoken by <strong className="strong">{chosen.apiName}</strong></> : 'Choose a voice above'} testId="script">
        <div className="cr-grid">
          <Field label="Title (optional)" hint="The file name of the audio; a default name when empty." wide>
            <input type="text" value={title} onChange={(e) => setTitle(e.target.value)} placeholder="e.g. Intro voice-over" data-testid="speech-title" />
          </Field>
          <Field label="Text" wide error={error?.field === 'text' ? error.message : null}>
            <textarea rows={7} value={text} onChange={(e) => setText(e.target.value)} placeholder="A sentence or several paragraphs." data-testid="speech-text" />
          </Field>
        </div>
        <div className="cr-submit">
          <div className="cr-cost" data-testid="speech-preview" data-billed={preview?.billedTasks ?? ''}>
            {preview ? (
              <>
                <span className="cr-cost-number">{preview.billedTasks}</span>
                <span>
                  billed task{preview.billedTasks === 1 ? '' : 's'}
                  <span className="muted small cr-cost-line">
                    {chars.toLocaleString()} characters · {words.toLocaleString()} words{preview.limit ? ` · limit ${preview.limit.toLocaleString()} per task` : ''}
                  </span>
                  {preview.billedTasks > 1 && <span className="muted small cr-cost-line">{preview.message}</span>}
                </span>
              </>
            ) : (
              <span className="muted small">{problem ?? ' '}</span>
            )}
          </div>
          {error && error.field !== 'text' && <span className="field-error" data-testid="speech-error">{error.message}</span>}
          <Button variant="primary" disabled={!!problem || sending} onClick={() => void speak()} data-testid="speak">
            {sending ? <Spinner /> : null} Speak
          </Button>
        </div>
        <p className="muted small cr-footnote">Text-to-speech runs one task at a time per account: a second request waits for the first. The audio is saved to the library (Creations › Speech).</p>
      </Card>
    </PanelLayout>
  );
}
