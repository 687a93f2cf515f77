import { useState, type ReactNode } from 'react';
import type { AssetDetail, BlockDisagreement } from '../../../../src-preload/contract';
import { useQuery } from '../../api/useQuery';
import { LabelPicker } from '../../ui/ColorLabel';
import { Stars } from '../../ui/Stars';
import { Section, formatBytes, formatCount, formatDuration, formatTaken } from '../../ui/primitives';
import { KeywordEditor } from './KeywordEditor';
import { RightsSection } from './RightsSection';
import { AgencySection } from './AgencySection';
import { HistorySection } from './HistorySection';
import { TextField } from './TextField';
import { useEdits } from './useEdits';
import { SyncBadge } from '../writing/SyncBadge';
import { ProvenanceSection, useCreationOf } from '../create/Provenance';
import { MeasurementsSection } from '../analysis/Measurements';
import { exposureLine, formatBias, formatFlash, formatFocal, hasExposure } from '../../ui/exposure';
import { Histogram } from '../loupe/Histogram';

export function useAssetDetail(id: number | null) {
  return useQuery<AssetDetail>(id === null ? null : `asset:${id}`, ['assets', 'keywords'], (a) => a.getAsset({ id: id! }));
}

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="meta-row">
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

/** The right-hand panel: one asset in detail, or the shared edits for a multi-selection. */
export function Inspector({ focusId, selectedIds, onJump, loupe = false }: { focusId: number | null; selectedIds: number[]; onJump(id: number): void; /** In the loupe: the histogram and the capture details first, as in Lightroom. */ loupe?: boolean }) {
  const multi = selectedIds.length > 1;
  return (
    <aside className="inspector" data-testid="inspector">
      {multi ? <MultiInspector ids={selectedIds} sampleId={focusId !== null && selectedIds.includes(focusId) ? focusId : selectedIds[0]} /> : focusId !== null ? <SingleInspector id={focusId} onJump={onJump} loupe={loupe} /> : <p className="inspector-empty muted">Select a photo to see its details and edit its keywords.</p>}
    </aside>
  );
}

/**
 * One asset. The panel switches to a newly focused asset only once what it shows about it has
 * arrived (its detail and whether Tagsmith made it); until then the previous asset stays, whole,
 * so moving through photos never blanks the panel, loses its scroll position or remounts its
 * sections. A refetch of the shown asset updates it in place.
 */
function SingleInspector({ id, onJump, loupe }: { id: number; onJump(id: number): void; loupe: boolean }) {
  const wanted = useAssetDetail(id);
  const wantedCreation = useCreationOf(id);
  const wantedReady = wanted.data?.id === id && (wantedCreation.data !== undefined || wantedCreation.error !== undefined);
  const [shownId, setShownId] = useState<number | null>(null);
  if (wantedReady && shownId !== id) setShownId(id);
  const shown = useAssetDetail(shownId);
  const edits = useEdits();
  const a = shownId !== null && shown.data?.id === shownId ? shown.data : undefined;
  if (!a || (wanted.error && !wanted.loading && shownId !== id)) {
    return wanted.error ? <p className="inspector-empty error-text">{wanted.error.message}</p> : <p className="inspector-empty muted">Loading…</p>;
  }
  const ids = [a.id];
  return (
    <div data-testid="inspector-single" data-asset-id={a.id} aria-busy={a.id !== id}>
      <div className="inspector-title">
        <h2 title={a.name} data-testid="inspector-name">{a.name}</h2>
        <Stars value={a.rating} onChange={(n) => void edits.setRating(ids, n)} testId="inspector-rating" />
        <SyncBadge id={a.id} />
      </div>
      <div className="inspector-label">
        <span className="muted small">Label</span>
        <LabelPicker value={a.label} onChange={(l) => void edits.setLabel(ids, l)} testId="inspector-label" />
        {a.colorLabel && !a.label && <span className="muted small" title="A label another program set; choosing one of the five replaces it">“{a.colorLabel}”</span>}
      </div>
      {loupe && a.kind === 'image' && <Histogram id={a.id} />}
      {loupe && <CaptureSummary a={a} />}
      <ProvenanceSection assetId={a.id} onJump={onJump} />
      <Section title="Keywords">
        <KeywordEditor keywords={a.keywords} onAdd={(words) => edits.addKeywords(ids, words)} onRemove={(k) => edits.removeKeywords(ids, [k])} />
      </Section>
      <Section title="Description">
        <TextField key={`t${a.id}`} label="Title" value={a.title ?? ''} placeholder="Add a title" onSave={(v) => edits.setTitle(ids, v)} testId="title" readOnly={a.id !== id} />
        <TextField key={`c${a.id}`} label="Caption" value={a.caption ?? ''} placeholder="Describe the photo" multiline onSave={(v) => edits.setCaption(ids, v)} testId="caption" readOnly={a.id !== id} />
      </Section>
      {a.blockDisagreement && <BlockNote d={a.blockDisagreement} />}
      <RightsSection ids={ids} values={a.rights} />
      <AgencySection ids={ids} sampleId={a.id} />
      <MeasurementsSection id={a.id} />
      <HistorySection id={a.id} />
      {a.errors.length > 0 && (
        <Section title="Problems">
          <ul className="problems" data-testid="inspector-errors">
            {a.errors.map((e, i) => (
              <li key={i}>{sentence(e.reason)}</li>
            ))}
          </ul>
        </Section>
      )}
      <Section title="File">
        <dl className="meta">
          <Row label="Path">
            <span className="path-text" title={a.path}>{a.path}</span>
          </Row>
          <Row label="Format">{a.format.toUpperCase()}</Row>
          <Row label="Size">{formatBytes(a.size)}</Row>
          {a.width !== null && a.height !== null && <Row label="Dimensions">{`${a.width} × ${a.height}`}</Row>}
          {a.durationS !== null && <Row label="Duration">{formatDuration(a.durationS)}</Row>}
          {(a.videoCodec || a.audioCodec) && <Row label="Codec">{[a.videoCodec, a.audioCodec].filter(Boolean).join(' / ')}</Row>}
          {!a.folderOnline && <Row label="Status">Offline — reconnect the drive or relink the folder</Row>}
        </dl>
      </Section>
      {!loupe && <Section title="Capture">
        <dl className="meta">
          <Row label="Taken">{formatTaken(a.takenAt)}</Row>
          <Row label="Camera">{cameraName(a.cameraMake, a.cameraModel)}</Row>
          <Row label="Lens">{a.lens ?? '—'}</Row>
          {hasExposure(a.exposure) && (
            <>
              <Row label="Exposure"><span data-testid="inspector-exposure">{exposureLine(a.exposure) ?? '—'}</span></Row>
              <Row label="Focal length">{formatFocal(a.exposure) ?? '—'}</Row>
              {a.exposure.exposureBias !== null && <Row label="Compensation">{formatBias(a.exposure.exposureBias)}</Row>}
              {a.exposure.flash !== null && <Row label="Flash">{formatFlash(a.exposure.flash)}</Row>}
            </>
          )}
          <Row label="GPS">{a.gps ? `${a.gps.lat.toFixed(5)}, ${a.gps.lon.toFixed(5)}` : '—'}</Row>
        </dl>
      </Section>}
      {(a.stack.length > 0 || a.duplicates.length > 0) && (
        <Section title="Related">
          {a.stack.length > 0 && (
            <div className="related">
              <span className="muted small">Same shot</span>
              {a.stack.map((s) => (
                <button key={s.id} type="button" className="link-btn" onClick={() => onJump(s.id)}>
                  {s.name}
                </button>
              ))}
            </div>
          )}
          {a.duplicates.length > 0 && (
            <div className="related">
              <span className="muted small">Identical copies</span>
              {a.duplicates.map((d) => (
                <button key={d.id} type="button" className="link-btn path-text" title={d.path} onClick={() => onJump(d.id)}>
                  {d.path}
                </button>
              ))}
            </div>
          )}
        </Section>
      )}
    </div>
  );
}

/**
 * The capture details at the top of the panel in the loupe, under the histogram (Lightroom
 * shows them there): exposure first, then camera and lens, focal length, when, and where.
 */
function CaptureSummary({ a }: { a: AssetDetail }) {
  const exposure = exposureLine(a.exposure);
  const camera = [cameraName(a.cameraMake, a.cameraModel), a.lens].filter((x) => x && x !== '—').join(' · ');
  const extra = [formatFocal(a.exposure), formatBias(a.exposure.exposureBias), formatFlash(a.exposure.flash)].filter(Boolean).join(' · ');
  return (
    <div className="capture-summary" data-testid="capture-summary">
      {exposure ? <div className="capture-exposure" data-testid="capture-exposure">{exposure}</div> : a.kind === 'image' && <div className="muted">No exposure recorded in this file</div>}
      {camera && <div data-testid="capture-camera">{camera}</div>}
      {extra && <div className="muted">{extra}</div>}
      <div className="muted" data-testid="capture-taken">
        {formatTaken(a.takenAt)}
        {a.width !== null && a.height !== null ? ` · ${a.width} × ${a.height}` : ''}
        {a.gps ? ` · ${a.gps.lat.toFixed(4)}, ${a.gps.lon.toFixed(4)}` : ''}
      </div>
    </div>
  );
}

const WHY: Record<BlockDisagreement['digest'], string> = {
  absent: 'the file has no IPTC digest, so its XMP counts as current',
  matches: 'the IPTC digest shows the XMP was written after the last IPTC change',
  differs: 'the IPTC digest shows a program that ignores XMP changed the IPTC afterwards',
};

/** When the file's IPTC and XMP blocks disagreed: what was taken, and why (the MWG rule). */
function BlockNote({ d }: { d: BlockDisagreement }) {
  const fields = d.fields.join(', ');
  const took = d.took === 'xmp' ? 'XMP' : 'IPTC';
  return (
    <Section title="Metadata in the file">
      <p className="inspector-note small" data-testid="inspector-block-disagreement" data-took={d.took}>
        {`The file's IPTC and XMP disagreed on ${fields}. Tagsmith shows the ${took} values: ${WHY[d.digest]}.`}
        {d.fields.includes('keywords') ? ` Keywords from both are kept, ${took}'s first.` : ''}
      </p>
    </Section>
  );
}

/** 'Canon' + 'Canon EOS R5' reads as 'Canon EOS R5', not 'Canon Canon EOS R5'. */
export function cameraName(make: string | null, model: string | null): string {
  if (!model) return make ?? '—';
  if (!make) return model;
  const brand = make.split(/\s+/)[0].toLowerCase();
  return model.toLowerCase().startsWith(brand) ? model : `${make} ${model}`;
}

function sentence(s: string): string {
  const t = s.trim();
  if (!t) return 'Unknown problem.';
  const first = t.charAt(0).toUpperCase() + t.slice(1);
  return /[.!?]$/.test(first) ? first : `${first}.`;
}

function idsKey(ids: number[]): string {
  let h = 0;
  for (const id of ids) h = (h * 31 + id) | 0;
  return `${ids.length}:${h}`;
}

/** Keywords every selected asset has: candidates from one member, checked against the index. */
function useCommonKeywords(ids: number[], sampleId: number) {
  const sample = useAssetDetail(sampleId);
  const candidates = sample.data?.keywords ?? [];
  return useQuery<string[]>(
    sample.data ? `common:${idsKey(ids)}:${candidates.join('\u0000')}` : null,
    ['assets', 'keywords'],
    async (api) => {
      const want = new Set(ids);
      const common: string[] = [];
      for (const k of candidates) {
        const having = new Set(await api.searchIds({ query: { keywords: [k] } }));
        let all = true;
        for (const id of want) {
          if (!having.has(id)) {
            all = false;
            break;
          }
        }
        if (all) common.push(k);
      }
      return common;
    },
  );
}

function MultiInspector({ ids, sampleId }: { ids: number[]; sampleId: number }) {
  const edits = useEdits();
  const common = useCommonKeywords(ids, sampleId);
  const key = idsKey(ids);
  return (
    <div data-testid="inspector-multi">
      <div className="inspector-title">
        <h2 data-testid="selected-count">{formatCount(ids.length)} selected</h2>
        <Stars value={null} onChange={(n) => void edits.setRating(ids, n)} testId="multi-rating" />
      </div>
      <div className="inspector-label">
        <span className="muted small">Label</span>
        <LabelPicker value={null} onChange={(l) => void edits.setLabel(ids, l)} testId="multi-label" />
      </div>
      <p className="muted small inspector-note">Changes here apply to all {formatCount(ids.length)} selected items.</p>
      <Section title="Keywords in common">
        <KeywordEditor
          keywords={common.data ?? []}
          placeholder={`Add to all ${formatCount(ids.length)}`}
          onAdd={(words) => edits.addKeywords(ids, words)}
          onRemove={(k) => edits.removeKeywords(ids, [k])}
        />
      </Section>
      <Section title="Description">
        <TextField key={`t${key}`} label="Title for all" value="" placeholder="Set one title for all" onSave={(v) => edits.setTitle(ids, v)} testId="title" />
        <TextField key={`c${key}`} label="Caption for all" value="" placeholder="Set one caption for all" multiline onSave={(v) => edits.setCaption(ids, v)} testId="caption" />
      </Section>
      <RightsSection ids={ids} values={null} />
      <AgencySection ids={ids} sampleId={sampleId} />
    </div>
  );
}
