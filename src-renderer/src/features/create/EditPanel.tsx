import { useMemo, useState } from 'react';
import type { AssetSummary, EditRequest } from '../../../../src-preload/contract';
import { useClient } from '../../api/ClientContext';
import { IconPlus } from '../../ui/icons';
import { Button, IconButton, Spinner } from '../../ui/primitives';
import { AssetPicker } from './AssetPicker';
import { Card, Field, PanelLayout, Segmented, errorField } from './common';
import { threeKReason } from './GeneratePanel';
import { RulePreview } from './RulePreview';
import { useCreativeTaskStore } from './taskStore';
import { useModelRules } from './useModelRules';
import { formatMoney } from '../../ui/format';
import { SIZE_LABEL, parseSeed, useImageJobPreview } from './usePreview';
import { splitName } from '../grid/cellState';

export function EditPanel({ initialSources }: { initialSources?: AssetSummary[] }) {
  const { api, mediaUrl } = useClient();
  const store = useCreativeTaskStore();
  const rules = useModelRules().data;
  const [prompt, setPrompt] = useState('');
  const [sources, setSources] = useState<AssetSummary[]>(initialSources ?? []);
  const [model, setModel] = useState<string | null>(null);
  const [quality, setQuality] = useState<string | null>(null);
  const [resolution, setResolution] = useState<string | null>(null);
  const [size, setSize] = useState('');
  const [ratio, setRatio] = useState(1);
  const [seed, setSeed] = useState('');
  /** Gemini models: what each source stands for (object by default) */
  const [roles, setRoles] = useState<Record<number, 'object' | 'character' | 'style'>>({});
  const [picking, setPicking] = useState(false);
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<{ field: string | null; message: string } | null>(null);

  const m = model ?? rules?.defaultEditModel ?? null;
  const rule = rules?.edit.find((r) => r.model === m);
  const max = rule?.maxImages ?? 1;
  const mp = rules?.megapixelRatio ?? { min: 0.5, max: 1.5 };

  const chooseModel = (name: string) => {
    const r = rules?.edit.find((x) => x.model === name);
    setModel(name);
    setQuality(r?.defaultQuality ?? null);
    setResolution(r?.defaultResolution ?? null);
    setError(null);
  };
  const chooseSize = (s: string) => {
    setSize(s);
    if (threeKReason(rule, s || 'source', resolution ?? '')) setResolution(rule?.defaultResolution ?? null);
  };

  const seedP = parseSeed(seed);
  const request = useMemo<EditRequest | null>(() => {
    if (!m || !prompt.trim() || !sources.length) return null;
    const r: EditRequest = { prompt: prompt.trim(), model: m, sources: sources.map((s) => ({ assetId: s.id })) };
    if (rule?.referenceCaps) r.sourceRoles = sources.map((s) => roles[s.id] ?? 'object');
    if (quality && rule?.qualities) r.quality = quality;
    if (resolution && rule?.resolutions) r.resolution = resolution;
    if (size) r.imageSize = size;
    if (ratio !== 1) r.megapixelRatio = ratio;
    if (seedP.seed !== undefined) r.seed = seedP.seed;
    return r;
  }, [m, prompt, sources, quality, resolution, size, ratio, seedP.seed, rule, roles]);
  const caps = rule?.referenceCaps ?? null;
  const roleOptions = caps ? (['object', 'character', 'style'] as const).filter((r) => (caps[r] ?? 0) > 0) : [];
  const preview = useImageJobPreview(request ? { kind: 'edit', request } : null);
  const tooMany = sources.length > max ? `Source images: ${m} takes at most ${max} source image${max === 1 ? '' : 's'}; remove ${sources.length - max}.` : null;
  const problem = !sources.length ? 'Choose at least one source image.' : !prompt.trim() ? 'Write what to change.' : tooMany ?? seedP.error;

  const send = async () => {
    if (!request || problem || preview?.ok === false) return;
    setSending(true);
    setError(null);
    try {
      store.put(await api.startEdit(request));
    } catch (err) {
      setError(errorField(err));
    } finally {
      setSending(false);
    }
  };

  return (
    <PanelLayout kinds={['edit']} testId="panel-edit" emptyText="Edited pictures appear here and in the library, linked to their sources.">
      <Card title="Edit images" sub={rule ? `${m} · up to ${max} source image${max === 1 ? '' : 's'}` : undefined} testId="edit">
        <div className="edit-sources" data-testid="edit-sources" data-count={sources.length}>
          {sources.map((s) => (
            <figure key={s.id} className="edit-source" data-testid="edit-source" data-asset-id={s.id}>
              {s.thumb ? <img src={mediaUrl(s.thumb)} alt="" /> : <span className="muted small">{s.format.toUpperCase()}</span>}
              <figcaption className="slot-name" title={s.name}><span className="slot-name-head">{splitName(s.name)[0]}</span>{splitName(s.name)[1] && <span className="slot-name-tail">{splitName(s.name)[1]}</span>}</figcaption>
              {caps && (
                <select
                  className="edit-source-role"
                  value={roles[s.id] ?? 'object'}
                  onChange={(e) => setRoles((x) => ({ ...x, [s.id]: e.target.value as 'object' | 'character' | 'style' }))}
                  aria-label={`Role of ${s.name}`}
                  data-testid="edit-source-role"
                >
                  {roleOptions.map((r) => <option key={r} value={r}>{r}</option>)}
                </select>
              )}
              <IconButton className="edit-source-remove" label={`Remove ${s.name}`} onClick={() => setSources((l) => l.filter((x) => x.id !== s.id))}>×</IconButton>
            </figure>
          ))}
          <button type="button" className="edit-add" disabled={sources.length >= max} onClick={() => setPicking(true)} data-testid="edit-add" title={sources.length >= max ? `${m} takes at most ${max}` : 'Add source images from the library'}>
            <IconPlus />
            <span>Add from library</span>
            <span className="muted small">{sources.length} of {max}</span>
          </button>
        </div>
        {tooMany && <p className="field-error" data-testid="edit-too-many">{tooMany}</p>}
        <p className="muted small cr-privacy" data-testid="edit-privacy">The pictures are sent as copies without metadata (no location, camera or names); your originals stay as they are.</p>
        {caps && (
          <p className="muted small" data-testid="edit-role-caps">
            {m} counts references by role: {roleOptions.map((r) => `up to ${caps[r]} ${r}`).join(', ')}. The pictures go in the order of their roles; say in the instructions which picture is which.
          </p>
        )}
        <Field label="Instructions" wide>
          <textarea rows={3} value={prompt} onChange={(e) => setPrompt(e.target.value)} placeholder="What to change, in plain words: “make it dusk, warm street lights”." data-testid="edit-prompt" />
        </Field>
        <div className="cr-grid">
          <Field label="Model">
            <select value={m ?? ''} onChange={(e) => chooseModel(e.target.value)} data-testid="edit-model">
              {(rules?.edit ?? []).map((r) => (
                <option key={r.model} value={r.model}>{r.model}{r.model === rules?.defaultEditModel ? ' (default)' : ''} — up to {r.maxImages ?? 1}</option>
              ))}
            </select>
          </Field>
          <Field label="Image size">
            <select value={size} onChange={(e) => chooseSize(e.target.value)} data-testid="edit-size">
              <option value="">The model's default</option>
              {(rules?.imageSizes ?? []).map((s) => <option key={s} value={s}>{SIZE_LABEL[s] ?? s}</option>)}
            </select>
          </Field>
          {rule?.resolutions && (
            <Field label="Resolution">
              <Segmented value={resolution} options={rule.resolutions} onChange={setResolution} testId="edit-resolution" label="Resolution" disabledReason={(r) => threeKReason(rule, size || 'source', r)} />
            </Field>
          )}
          {rule?.qualities && (
            <Field label="Quality">
              <Segmented value={quality} options={rule.qualities} onChange={setQuality} testId="edit-quality" label="Quality" />
            </Field>
          )}
          <Field label="Megapixels vs source" hint={`${mp.min}–${mp.max} × the source's megapixels`}>
            <span className="ratio">
              <input type="range" min={mp.min} max={mp.max} step={0.05} value={ratio} onChange={(e) => setRatio(Number(e.target.value))} data-testid="edit-ratio" />
              <span className="ratio-value">{ratio.toFixed(2)}×</span>
            </span>
          </Field>
          <Field label="Seed" hint="Empty = random" error={seedP.error}>
            <input type="text" inputMode="numeric" value={seed} onChange={(e) => setSeed(e.target.value)} placeholder="random" data-testid="edit-seed" />
          </Field>
        </div>
        {rule?.costPerSourceImage ? (
          <p className="cost-note" data-testid="edit-cost-note">
            {m} charges {formatMoney(rule.costPerSourceImage)} per source image on top of the output: {sources.length} × {formatMoney(rule.costPerSourceImage)} = <strong>{formatMoney(rule.costPerSourceImage * sources.length)}</strong>.
          </p>
        ) : null}
        {request && <RulePreview preview={preview} testId="edit-rules" showCost={false} />}
        <div className="cr-submit">
          <span className="muted small cr-problem">{problem ?? ''}</span>
          {error && <span className="field-error" data-testid="edit-error">{error.message}</span>}
          <Button variant="primary" disabled={!!problem || sending || !preview || !preview.ok} onClick={() => void send()} data-testid="edit-start">
            {sending ? <Spinner /> : null} Edit
          </Button>
        </div>
      </Card>
      {picking && (
        <AssetPicker
          title="Choose source images"
          kinds={['image']}
          max={Math.max(1, max - sources.length)}
          onPick={(list) => {
            setSources((l) => [...l, ...list.filter((a) => !l.some((x) => x.id === a.id))].slice(0, max));
            setPicking(false);
          }}
          onClose={() => setPicking(false)}
          testId="edit-picker"
        />
      )}
    </PanelLayout>
  );
}
