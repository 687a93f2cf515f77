import { useEffect, useRef, useState } from 'react';
import { useClient } from '../../api/ClientContext';
import { ZoomImage } from '../compare/ZoomImage';
import { ARROW_PAN, FIT, panned, toggled, type Zoom } from '../compare/zoom';
import type { AssetSummary } from '../../../../src-preload/contract';
import { useAssetDetail } from '../inspector/Inspector';
import { IconChevronLeft, IconChevronRight } from '../../ui/icons';
import { LabelDot } from '../../ui/ColorLabel';
import { Stars } from '../../ui/Stars';
import { Button, formatCount, Spinner } from '../../ui/primitives';
import { FaceOverlay } from '../analysis/FaceOverlay';
import { exposureLine, formatBias, formatFlash, formatFocal } from '../../ui/exposure';
import type { AssetDetail } from '../../../../src-preload/contract';
import { cameraName } from '../inspector/Inspector';
import type { PageStore } from '../grid/pageStore';
import { splitName } from '../grid/cellState';
import { Filmstrip } from './Filmstrip';
import './loupe.css';

/** One asset large: the preview for photos, the original for playback. Arrows step. */
/**
 * Lightroom's loupe info overlay (I): what the photo is and how it was exposed, over the
 * picture's top-left corner. Lines the file does not record are left out.
 */
function InfoOverlay({ a }: { a: AssetDetail }) {
  const lines = [
    a.name,
    [cameraName(a.cameraMake, a.cameraModel), a.lens].filter((x) => x && x !== '—').join(' · ') || null,
    exposureLine(a.exposure),
    [formatFocal(a.exposure), formatBias(a.exposure.exposureBias), formatFlash(a.exposure.flash)].filter(Boolean).join(' · ') || null,
  ].filter((l): l is string => !!l);
  return (
    <div className="loupe-info" data-testid="loupe-info">
      {lines.map((l, i) => (
        <div key={i} className={i === 0 ? 'loupe-info-title' : undefined}>{l}</div>
      ))}
      {!exposureLine(a.exposure) && a.kind === 'image' && <div className="muted">No exposure recorded in this file</div>}
    </div>
  );
}

export function Loupe({
  item, index, total, onStep, info = false, zoomed = false, onFindSimilar, onMenu, store,
}: {
  item: AssetSummary | undefined; index: number; total: number; onStep(delta: number): void;
  /** The photo list the grid shows: the filmstrip under the stage. */
  store?: PageStore; info?: boolean; /** Open at 100 % (Z from the grid). */ zoomed?: boolean;
  /** "Find similar" for the photo shown (the caption's button, Shift+F). */
  onFindSimilar?(id: number): void;
  /** A right-click on the photo: the library's photo menu (Find similar…) at that point. */
  onMenu?(id: number, x: number, y: number): void;
}) {
  const { mediaUrl } = useClient();
  const detail = useAssetDetail(item?.id ?? null);
  const a = detail.data && detail.data.id === item?.id ? detail.data : undefined;
  // 100 % stays on while stepping from photo to photo (Lightroom keeps the zoom).
  const [zoom, setZoom] = useState<Zoom>(zoomed ? { ...FIT, on: true } : FIT);
  const zoomable = !!a && a.kind === 'image' && !!(a.preview || a.thumb);
  const keys = useRef({ zoom, zoomable, similar: () => {} });
  useEffect(() => {
    keys.current = { zoom, zoomable, similar: () => item && onFindSimilar?.(item.id) };
  });
  // Z toggles 100 %; at 100 % the arrows pan instead of stepping. Captured before the
  // library's keys, which skip what is handled here.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement | null;
      if (e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented || (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName)))) return;
      if (document.querySelector('[role="dialog"]')) return;
      const { zoom: z, zoomable: can, similar } = keys.current;
      const key = e.key.toLowerCase();
      // Shift+F: "Find similar" for the photo shown (F alone stays free for full screen).
      if (key === 'f' && e.shiftKey) {
        e.preventDefault();
        e.stopPropagation();
        similar();
        return;
      }
      const pan: Record<string, [number, number]> = { arrowleft: [-1, 0], arrowright: [1, 0], arrowup: [0, -1], arrowdown: [0, 1] };
      // Z or Space toggles fit and 1:1 (Lightroom's loupe); a drag pans at 1:1.
      if ((key === 'z' || key === ' ') && can) setZoom(toggled(z));
      else if (z.on && can && pan[key]) setZoom(panned(z, pan[key][0] * ARROW_PAN, pan[key][1] * ARROW_PAN));
      else if (key === ' ') {
        // Nothing to zoom (a video, no preview): the space must not leave the loupe.
      } else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey, { capture: true });
    return () => window.removeEventListener('keydown', onKey, { capture: true });
  }, []);
  let body;
  if (!item || !a) body = <Spinner label="Loading preview" />;
  else if (a.kind === 'video' && a.original) body = <video key={a.id} src={mediaUrl(a.original)} poster={a.preview ? mediaUrl(a.preview) : undefined} controls data-testid="loupe-video" />;
  else if (a.kind === 'audio' && a.original) body = <audio key={a.id} src={mediaUrl(a.original)} controls data-testid="loupe-audio" />;
  else if (a.preview || a.thumb) body = <ZoomImage key={a.id} id={a.id} fitSrc={mediaUrl((a.preview ?? a.thumb)!)} alt={a.name} zoom={zoom} onZoom={setZoom} testId="loupe-zoom" fitTestId="loupe-img" navigator />;
  else body = <p className="muted">No preview can be shown for this file{a.errors[0] ? `: ${a.errors[0].reason}` : '.'}</p>;

  return (
    <div
      className="loupe"
      data-testid="loupe"
      data-asset-id={item?.id ?? ''}
      data-zoom={zoom.on ? '100' : 'fit'}
      onContextMenu={(e) => {
        if (!item || !onMenu) return;
        e.preventDefault();
        onMenu(item.id, e.clientX, e.clientY);
      }}
    >
      <div className={`loupe-stage${zoomable ? ' is-zoomable' : ''}`}>{body}</div>
      {a && a.kind === 'image' && !zoom.on && <FaceOverlay key={a.id} assetId={a.id} imgSelector='[data-testid="loupe-img"]' />}
      {a && info && <InfoOverlay a={a} />}
      <button type="button" className="loupe-nav loupe-prev" aria-label="Previous" disabled={index <= 0} onClick={() => onStep(-1)}>
        <IconChevronLeft />
      </button>
      <button type="button" className="loupe-nav loupe-next" aria-label="Next" disabled={index >= total - 1} onClick={() => onStep(1)}>
        <IconChevronRight />
      </button>
      {item && (
        <div className="loupe-caption">
          <span className="loupe-name" title={item.name}>
            {/* Shortened in the middle when it does not fit: its start and its extension stay (as in the grid). */}
            <span className="loupe-name-head">{splitName(item.name)[0]}</span>
            <span className="loupe-name-tail">{splitName(item.name)[1]}</span>
          </span>
          <Stars value={item.rating} size="sm" />
          <LabelDot label={item.label} testId="loupe-label" />
          <span className="muted">
            {formatCount(index + 1)} / {formatCount(total)}
          </span>
          {onFindSimilar && (
            <Button small data-testid="loupe-find-similar" title="Find similar photos, nearest first (Shift+F, or right-click the photo)" onClick={() => onFindSimilar(item.id)}>
              Find similar
            </Button>
          )}
          <span className="muted small loupe-hint" title="Z, Space or click: 1:1 or fit · Esc or G: grid · ←/→: step · 0–5: rate · 6–9: label · I: info">{zoom.on ? 'Z, Space or click: fit · drag, arrows or the navigator: pan' : 'Z, Space or click: 1:1'} · Esc or G: grid · ←/→: step · 0–5: rate · 6–9: label · I: info</span>
        </div>
      )}
      {store && total > 0 && <Filmstrip store={store} total={total} current={index} onGo={(i) => i !== index && onStep(i - index)} />}
    </div>
  );
}
