import { useState } from 'react';
import type { AssetSummary } from '../../../../src-preload/contract';
import { useClient } from '../../api/ClientContext';
import { IconWarn } from '../../ui/icons';
import { Button, Spinner } from '../../ui/primitives';
import { AssetPicker, SourceSlot } from './AssetPicker';
import { Card, PanelLayout, errorField } from './common';
import { useCreativeTaskStore } from './taskStore';

export function FaceSwapPanel() {
  const { api } = useClient();
  const store = useCreativeTaskStore();
  const [donor, setDonor] = useState<AssetSummary | null>(null);
  const [target, setTarget] = useState<AssetSummary | null>(null);
  const [gfpgan, setGfpgan] = useState(false);
  const [picking, setPicking] = useState<'donor' | 'target' | null>(null);
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<{ field: string | null; message: string } | null>(null);

  const send = async () => {
    if (!donor || !target) return;
    setSending(true);
    setError(null);
    try {
      store.put(await api.startFaceSwap({ source: { assetId: donor.id }, target: { assetId: target.id }, ...(gfpgan ? { useGfpgan: true } : {}) }));
    } catch (err) {
      setError(errorField(err));
    } finally {
      setSending(false);
    }
  };
  const videoTarget = target?.kind === 'video';

  return (
    <PanelLayout kinds={['faceSwap']} testId="panel-faceswap" emptyText="Face swaps appear here and in the library, linked to both sources.">
      <Card title="Face swap" sub="Put the donor's face onto the target picture or video" testId="faceswap">
        <div className="slots">
          <SourceSlot label="Donor face" asset={donor} onChoose={() => setPicking('donor')} onClear={() => setDonor(null)} error={error?.field === 'source' ? error.message : null} testId="swap-donor" hint="One clear face" />
          <SourceSlot label={videoTarget ? 'Target video' : 'Target picture or video'} asset={target} onChoose={() => setPicking('target')} onClear={() => setTarget(null)} error={error?.field === 'target' ? error.message : null} testId="swap-target" hint="The picture or clip that receives the face" />
        </div>
        {videoTarget && (
          <p className="muted small" data-testid="swap-video-note">
            A video target makes a video face swap: the clip is uploaded as a copy, and the result is a new video in the library.
          </p>
        )}
        <label className="check-row">
          <input type="checkbox" checked={gfpgan} onChange={(e) => setGfpgan(e.target.checked)} data-testid="swap-gfpgan" />
          Restore the face after swapping (sharpens and cleans up the new face)
        </label>
        <aside className="advice advice-warn" data-testid="swap-unspecified">
          <h3><IconWarn /> Not fully documented by the service</h3>
          <p className="small">
            The service documents face swap only in part. If it answers in a way Tagsmith does not expect, the task stops with the service's message, and
            nothing is sent again without you. The technical details are in the README (Create › Face swap).
          </p>
        </aside>
        <div className="cr-submit">
          <div className="cr-cost"><span className="cr-cost-number">1</span><span>billed task<span className="muted small cr-cost-line">{videoTarget ? 'Video face swap; the service publishes no price for it.' : 'One face swap at a time per account.'} Both files are sent as copies without metadata (no location, camera or names).</span></span></div>
          {error && error.field !== 'source' && error.field !== 'target' && <span className="field-error" data-testid="swap-error">{error.message}</span>}
          <Button variant="primary" disabled={!donor || !target || sending} onClick={() => void send()} data-testid="swap-start">
            {sending ? <Spinner /> : null} {videoTarget ? 'Swap face in video' : 'Swap face'}
          </Button>
        </div>
      </Card>
      {picking && (
        <AssetPicker
          title={picking === 'donor' ? 'Choose the donor face' : 'Choose the target picture or video'}
          kinds={picking === 'donor' ? ['image'] : ['image', 'video']}
          onPick={([a]) => {
            if (picking === 'donor') setDonor(a);
            else setTarget(a);
            setPicking(null);
          }}
          onClose={() => setPicking(null)}
        />
      )}
    </PanelLayout>
  );
}
