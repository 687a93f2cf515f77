import { useMemo, useState } from 'react';
import type { AssetSummary, GenerateRequest, ModelRuleView, RgbColor } from '../../../../src-preload/contract';
import { useClient } from '../../api/ClientContext';
import { IconPlus } from '../../ui/icons';
import { Button, IconButton, Spinner } from '../../ui/primitives';
import { AssetPicker, SourceSlot } from './AssetPicker';
import { Card, Field, PanelLayout, Segmented, errorField } from './common';
import { RulePreview } from './RulePreview';
import { useCreativeTaskStore } from './taskStore';
import { useModelRules } from './useModelRules';
import { SIZE_LABEL, hexToRgb, parseSeed, rgbToHex, useImageJobPreview } from './usePreview';

/** 3k with any size but square breaks the GPT models' rule (interface 4.13). */
export const threeKReason = (rule: ModelRuleView | undefined, size: string, res: string): string | null =>
  rule?.squareOnly3k && res === '3k' && size !== 'square' ? '3k only with the square image size' : null;

export function GeneratePanel() {
  const { api } = useClient();
  const store = useCreativeTaskStore();
  const rules = useModelRules().data;
  const [prompt, setPrompt] = useState('');
  const [model, setModel] = useState<string | null>(null);
  const [quality, setQuality] = useState<string | null>(null);
  const [size, setSize] = useState('square');
  const [resolution, setResolution] = useState<string | null>(null);
  const [style, setStyle] = useState('');
  const [styleImage, setStyleImage] = useState<AssetSummary | null>(null);
  const [seed, setSeed] = useState('');
  const [lora, setLora] = useState('');
  const [colors, setColors] = useState<{ hex: string; weight: string }[]>([]);
  const [background, setBackground] = useState<string | null>(null);
  const [picking, setPicking] = useState(false);
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<{ field: string | null; message: string } | null>(null);

  const m = model ?? rules?.defaultGenerateModel ?? null;
  const rule = rules?.generate.find((r) => r.model === m);

  const chooseModel = (name: string) => {
    const r = rules?.generate.find((x) => x.model === name);
    setModel(name);
    setQuality(r?.defaultQuality ?? null);
    setResolution(r?.defaultResolution ?? null);
    if (!r?.styles?.includes(style)) setStyle('');
    if (!r?.vector) {
      setColors([]);
      setBackground(null);
    }
    setError(null);
  };
  const chooseSize = (s: string) => {
    setSize(s);
    // The GPT models offer 3k only with square: leave 3k when the size changes away from it.
    if (threeKReason(rule, s, resolution ?? '')) setResolution(rule?.defaultResolution ?? null);
  };

  const seedP = parseSeed(seed);
  const needsImage = !!style && !!rule?.stylesNeedingImage.includes(style);
  const request = useMemo<GenerateRequest | null>(() => {
    if (!m || !prompt.trim()) return null;
    const r: GenerateRequest = { prompt: prompt.trim(), model: m, imageSize: size };
    if (quality && rule?.qualities) r.quality = quality;
    if (resolution && rule?.resolutions) r.resolution = resolution;
    if (style) r.style = style;
    if (seedP.seed !== undefined) r.seed = seedP.seed;
    if (lora.trim()) r.loraUrl = lora.trim();
    if (rule?.vector && (colors.length || background)) {
      r.controls = {
        ...(colors.length ? { colors: colors.map<RgbColor>((c) => ({ rgb: hexToRgb(c.hex), ...(c.weight.trim() ? { weight: Number(c.weight) } : {}) })) } : {}),
        ...(background ? { backgroundColor: { rgb: hexToRgb(background) } } : {}),
      };
    }
    if (styleImage && needsImage) r.styleImage = { assetId: styleImage.id };
    return r;
  }, [m, prompt, size, quality, resolution, style, seedP.seed, lora, colors, background, styleImage, needsImage, rule]);
  const preview = useImageJobPreview(request ? { kind: 'generate', request } : null);

  const problem = !prompt.trim() ? 'Write a prompt.' : seedP.error ?? (needsImage && !styleImage ? 'Style source image: the transfer style needs one.' : null);
  const send = async () => {
    if (!request || problem || preview?.ok === false) return;
    setSending(true);
    setError(null);
    try {
      store.put(await api.startGenerate(request));
    } catch (err) {
      setError(errorField(err));
    } finally {
      setSending(false);
    }
  };

  const maxColors = rules?.maxControlColors ?? 12;
  return (
    <PanelLayout kinds={['generate']} testId="panel-generate" emptyText="Generated pictures appear here and in the library under Creations, with their prompt, model and seed.">
      <Card title="Generate an image" sub={rule ? `${m}${rule.vector ? ' · returns SVG' : ''}` : undefined} testId="generate">
        <Field label="Prompt" wide>
          <textarea rows={4} value={prompt} onChange={(e) => setPrompt(e.target.value)} placeholder="Describe the picture: subject, setting, light, lens, mood." data-testid="gen-prompt" />
        </Field>
        <div className="cr-grid">
          <Field label="Model">
            <select value={m ?? ''} onChange={(e) => chooseModel(e.target.value)} data-testid="gen-model">
              {(rules?.generate ?? []).map((r) => (
                <option key={r.model} value={r.model}>{r.model}{r.model === rules?.defaultGenerateModel ? ' (default)' : ''}{r.vector ? ' — vector' : ''}</option>
              ))}
            </select>
          </Field>
          <Field label="Image size">
            <select value={size} onChange={(e) => chooseSize(e.target.value)} data-testid="gen-size">
              {(rules?.imageSizes ?? []).map((s) => <option key={s} value={s}>{SIZE_LABEL[s] ?? s}</option>)}
            </select>
          </Field>
          {rule?.resolutions && (
            <Field label="Resolution" hint={rule.squareOnly3k ? '3k only with the square size' : undefined} testId="gen-resolution-field">
              <Segmented value={resolution} options={rule.resolutions} onChange={setResolution} testId="gen-resolution" label="Resolution" disabledReason={(r) => threeKReason(rule, size, r)} />
            </Field>
          )}
          {rule?.qualities && (
            <Field label="Quality" testId="gen-quality-field">
              <Segmented value={quality} options={rule.qualities} onChange={setQuality} testId="gen-quality" label="Quality" />
            </Field>
          )}
          {rule?.styles && (
            <Field label="Style">
              <select value={style} onChange={(e) => setStyle(e.target.value)} data-testid="gen-style">
                <option value="">None</option>
                {rule.styles.map((s) => <option key={s} value={s}>{s}{rule.stylesNeedingImage.includes(s) ? ' (needs a source image)' : ''}</option>)}
              </select>
            </Field>
          )}
          <Field label="Seed" hint="Empty = random; the same seed reproduces a picture" error={seedP.error}>
            <input type="text" inputMode="numeric" value={seed} onChange={(e) => setSeed(e.target.value)} placeholder="random" data-testid="gen-seed" aria-invalid={!!seedP.error} />
          </Field>
          <Field label="LoRA weights URL" wide>
            <input type="text" value={lora} onChange={(e) => setLora(e.target.value)} placeholder="https://… (optional)" data-testid="gen-lora" />
          </Field>
        </div>
        {!rule?.resolutions && !rule?.vector && rule && <p className="muted small cr-footnote">No resolution choices are published for {m}: the service decides.</p>}
        {needsImage && (
          <div className="slots">
            <SourceSlot label="Style source image" asset={styleImage} onChoose={() => setPicking(true)} onClear={() => setStyleImage(null)} error={!styleImage ? 'The transfer style needs a source image.' : null} testId="gen-style-image" />
          </div>
        )}
        {needsImage && (
          <p className="muted small cr-privacy" data-testid="gen-privacy">The style picture is sent as a copy without metadata (no location, camera or names).</p>
        )}
        {rule?.vector && (
          <div className="vector-controls" data-testid="gen-vector">
            <div className="vector-head">
              <span className="cr-label">Colours</span>
              <span className="muted small">{colors.length} of at most {maxColors} · weight optional</span>
              <Button small disabled={colors.length >= maxColors} onClick={() => setColors((c) => [...c, { hex: '#8a9bb0', weight: '' }])} title={colors.length >= maxColors ? `At most ${maxColors} control colours` : 'Add a colour'} data-testid="gen-color-add">
                <IconPlus /> Colour
              </Button>
            </div>
            <div className="swatches">
              {colors.map((c, i) => (
                <span className="swatch" key={i} data-testid="gen-color">
                  <input type="color" value={c.hex} onChange={(e) => setColors((l) => l.map((x, j) => (j === i ? { ...x, hex: e.target.value } : x)))} aria-label={`Colour ${i + 1}`} />
                  <input type="number" min={0} max={1} step={0.05} className="swatch-weight" value={c.weight} placeholder="w" onChange={(e) => setColors((l) => l.map((x, j) => (j === i ? { ...x, weight: e.target.value } : x)))} aria-label={`Weight of colour ${i + 1}`} />
                  <IconButton label={`Remove colour ${i + 1}`} onClick={() => setColors((l) => l.filter((_, j) => j !== i))}>×</IconButton>
                </span>
              ))}
            </div>
            <label className="vector-bg">
              <input type="checkbox" checked={background !== null} onChange={(e) => setBackground(e.target.checked ? '#ffffff' : null)} data-testid="gen-bg-toggle" />
              Background colour
              {background !== null && <input type="color" value={background} onChange={(e) => setBackground(e.target.value)} aria-label="Background colour" />}
              {background !== null && <span className="muted small">{rgbToHex(hexToRgb(background))}</span>}
            </label>
            <p className="muted small cr-footnote">Vector models return SVG and ignore resolution and style.</p>
          </div>
        )}
        {request && <RulePreview preview={preview} testId="gen-rules" />}
        <div className="cr-submit">
          <span className="muted small cr-problem">{problem ?? ''}</span>
          {error && <span className="field-error" data-testid="gen-error">{error.message}</span>}
          <Button variant="primary" disabled={!!problem || sending || !preview || !preview.ok} onClick={() => void send()} data-testid="gen-start">
            {sending ? <Spinner /> : null} Generate
          </Button>
        </div>
      </Card>
      {picking && <AssetPicker title="Choose the style source" kinds={['image']} onPick={([a]) => { setStyleImage(a); setPicking(false); }} onClose={() => setPicking(false)} />}
    </PanelLayout>
  );
}
