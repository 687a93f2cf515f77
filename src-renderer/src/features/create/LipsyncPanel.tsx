import { useState } from 'react';
import type { AssetKind, AssetSummary, LipsyncRequest } from '../../../../src-preload/contract';
import { useClient } from '../../api/ClientContext';
import { IconWarn } from '../../ui/icons';
import { Button, Spinner } from '../../ui/primitives';
import { AssetPicker, SourceSlot } from './AssetPicker';
import { Card, Field, PanelLayout, Segmented, errorField } from './common';
import { useCreativeTaskStore } from './taskStore';
import { useModelRules } from './useModelRules';

type Mode = 'image' | 'video';
type Res = NonNullable<LipsyncRequest['resolution']>;
type Slot = 'audio' | 'image' | 'video';


const ext = (name: string): string => (name.includes('.') ? name.slice(name.lastIndexOf('.') + 1).toLowerCase() : '');

export function LipsyncPanel() {
  const { api } = useClient();
  const store = useCreativeTaskStore();
  const rules = useModelRules().data;
  const [mode, setMode] = useState<Mode>('image');
  const [audio, setAudio] = useState<AssetSummary | null>(null);
  const [image, setImage] = useState<AssetSummary | null>(null);
  const [video, setVideo] = useState<AssetSummary | null>(null);
  const [resolution, setResolution] = useState<Res>('480p');
  const [picking, setPicking] = useState<Slot | null>(null);
  const [error, setError] = useState<{ field: string | null; message: string } | null>(null);
  const [sending, setSending] = useState(false);
  const [tried, setTried] = useState(false);

  /** The interface's format rules, checked here so nothing unacceptable is sent. */
  const check = (slot: Slot, a: AssetSummary | null): string | null => {
    if (!a) return tried ? `Choose the ${slot === 'audio' ? 'speech audio' : slot === 'image' ? 'portrait' : 'clip'}.` : null;
    const allowed = slot === 'audio' ? rules?.lipsyncAudio : slot === 'video' ? rules?.lipsyncVideo : rules?.lipsyncImage;
    const field = `${slot}_url`;
    if (allowed && !allowed.includes(ext(a.name))) return `${field}: ${ext(a.name).toUpperCase() || 'this file'} is not accepted — use ${allowed.map((x) => x.toUpperCase()).join(', ')}.`;
    // No length rule: the interface states none for lipsync (5-60 s is video keywording's recommendation).
    return null;
  };
  const face = mode === 'image' ? image : video;
  const errors = { audio: check('audio', audio), face: check(mode, face) };
  const ready = audio && face && !errors.audio && !errors.face;

  const send = async () => {
    setTried(true);
    if (!ready || !audio || !face) return;
    setSending(true);
    setError(null);
    try {
      const req: LipsyncRequest = { mode, audio: { assetId: audio.id }, resolution, ...(mode === 'image' ? { image: { assetId: face.id } } : { video: { assetId: face.id } }) };
      store.put(await api.startLipsync(req));
    } catch (err) {
      setError(errorField(err));
    } finally {
      setSending(false);
    }
  };

  const kindsFor: Record<Slot, AssetKind[]> = { audio: ['audio'], image: ['image'], video: ['video'] };
  const pick = (s: Slot, a: AssetSummary) => {
    if (s === 'audio') setAudio(a);
    else if (s === 'image') setImage(a);
    else setVideo(a);
    setPicking(null);
    setError(null);
  };

  return (
    <PanelLayout kinds={['imageLipsync', 'videoLipsync']} testId="panel-lipsync" emptyText="Talking portraits and clips you make appear here and in the library under Creations.">
      <Card title="Lipsync" sub="Make a face speak the audio" testId="lipsync">
        <div className="cr-grid">
          <Field label="Source">
            <Segmented<Mode> value={mode} options={['image', 'video']} labels={{ image: 'Portrait', video: 'Video clip' }} onChange={(m) => { setMode(m); setError(null); }} testId="lipsync-mode" label="Source" />
          </Field>
          <Field label="Resolution">
            <Segmented<Res> value={resolution} options={(rules?.lipsyncResolutions ?? ['360p', '480p', '720p']) as Res[]} onChange={setResolution} testId="lipsync-resolution" label="Resolution" />
          </Field>
        </div>
        <div className="slots">
          <SourceSlot
            label="Speech audio"
            asset={audio}
            onChoose={() => setPicking('audio')}
            onClear={() => setAudio(null)}
            error={errors.audio ?? (error?.field === 'audio' ? error.message : null)}
            testId="lipsync-audio"
            hint={rules ? rules.lipsyncAudio.slice(0, 6).map((x) => x.toUpperCase()).join(', ') + '…' : undefined}
          />
          {mode === 'image' ? (
            <SourceSlot label="Portrait" asset={image} onChoose={() => setPicking('image')} onClear={() => setImage(null)} error={errors.face ?? (error?.field === 'image' ? error.message : null)} testId="lipsync-image" hint="JPEG, PNG or WebP · one face" />
          ) : (
            <SourceSlot label="Clip with a visible face" asset={video} onChoose={() => setPicking('video')} onClear={() => setVideo(null)} error={errors.face ?? (error?.field === 'video' ? error.message : null)} testId="lipsync-video" hint="MP4, MOV, WEBM… · lipsync takes about 10 minutes per minute of video" />
          )}
        </div>
        <aside className="advice" data-testid="lipsync-advice">
          <h3>For a good result</h3>
          <ul>
            {(rules?.lipsyncAdvice ?? []).map((a) => <li key={a}>{a}</li>)}
          </ul>
        </aside>
        <div className="cr-submit">
          <div className="cr-cost">
            <span className="cr-cost-number">1</span>
            <span>billed task<span className="muted small cr-cost-line">One lipsync at a time per account: a second waits for the first. The audio and the portrait or clip are sent as copies without metadata (no location, camera, names or tags).</span></span>
          </div>
          {error && !['audio', 'image', 'video'].includes(error.field ?? '') && (
            <span className="field-error" data-testid="lipsync-error"><IconWarn /> {error.message}</span>
          )}
          <Button variant="primary" disabled={sending || (tried && !ready)} onClick={() => void send()} data-testid="lipsync-start">
            {sending ? <Spinner /> : null} Make it speak
          </Button>
        </div>
      </Card>
      {picking && (
        <AssetPicker
          title={picking === 'audio' ? 'Choose the speech audio' : picking === 'image' ? 'Choose a portrait' : 'Choose a clip'}
          kinds={kindsFor[picking]}
          onPick={([a]) => pick(picking, a)}
          onClose={() => setPicking(null)}
        />
      )}
    </PanelLayout>
  );
}
