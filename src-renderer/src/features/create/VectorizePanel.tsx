import { useState } from 'react';
import type { AssetSummary } from '../../../../src-preload/contract';
import { useClient } from '../../api/ClientContext';
import { IconWarn } from '../../ui/icons';
import { Button, Spinner } from '../../ui/primitives';
import { AssetPicker, SourceSlot } from './AssetPicker';
import { Card, PanelLayout, errorField } from './common';
import { useCreativeTaskStore } from './taskStore';

const RASTER = ['jpeg', 'png', 'webp'];

/** Image vectorize (interface 4.15): a PNG, JPEG or WebP picture into an SVG in the library. */
export function VectorizePanel() {
  const { api } = useClient();
  const store = useCreativeTaskStore();
  const [source, setSource] = useState<AssetSummary | null>(null);
  const [picking, setPicking] = useState(false);
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<{ field: string | null; message: string } | null>(null);
  const notRaster = source !== null && !RASTER.includes(source.format);

  const send = async () => {
    if (!source) return;
    setSending(true);
    setError(null);
    try {
      store.put(await api.startVectorize({ source: { assetId: source.id } }));
    } catch (err) {
      setError(errorField(err));
    } finally {
      setSending(false);
    }
  };

  return (
    <PanelLayout kinds={['vectorize']} testId="panel-vectorize" emptyText="SVGs appear here and in the library, linked to the picture they came from.">
      <Card title="Vectorize" sub="Turn a picture into an SVG" testId="vectorize">
        <div className="slots">
          <SourceSlot
            label="Picture"
            asset={source}
            onChoose={() => setPicking(true)}
            onClear={() => setSource(null)}
            error={error?.field === 'source' ? error.message : notRaster ? 'The service vectorizes PNG, JPEG or WebP pictures only.' : null}
            testId="vectorize-source"
            hint="PNG, JPEG or WebP"
          />
        </div>
        <aside className="advice advice-warn" data-testid="vectorize-unspecified">
          <h3><IconWarn /> Good to know</h3>
          <ul>
            <li>There is nothing to adjust: the service turns the whole picture into a vector drawing as it is.</li>
            <li>The service publishes no price for it.</li>
          </ul>
        </aside>
        <div className="cr-submit">
          <div className="cr-cost"><span className="cr-cost-number">1</span><span>billed task<span className="muted small cr-cost-line">The picture is sent as a copy without metadata (no location, camera or names).</span></span></div>
          {error && error.field !== 'source' && <span className="field-error" data-testid="vectorize-error">{error.message}</span>}
          <Button variant="primary" disabled={!source || notRaster || sending} onClick={() => void send()} data-testid="vectorize-start">
            {sending ? <Spinner /> : null} Vectorize
          </Button>
        </div>
      </Card>
      {picking && (
        <AssetPicker
          title="Choose the picture to vectorize"
          kinds={['image']}
          onPick={([a]) => {
            setSource(a);
            setPicking(false);
          }}
          onClose={() => setPicking(false)}
        />
      )}
    </PanelLayout>
  );
}
