import { useEffect, useLayoutEffect, useRef, useState, type PointerEvent } from 'react';
import { Spinner } from '../../ui/primitives';
import { clampCentre, offsetFor, toggled, type Zoom } from './zoom';
import { useFullImage } from './useFullImage';

/** Pixels a press may move and still count as a click (a toggle), not a pan. */
const CLICK_SLOP = 4;

interface Drag {
  pointer: number;
  startX: number;
  startY: number;
  from: Zoom;
  moved: boolean;
  /** Whether a click (no move) toggles the zoom: decided when the press starts. */
  toggles: boolean;
}

/**
 * One picture that fits its frame or shows at 100 % (one picture pixel per screen pixel,
 * Lightroom's 1:1). A click toggles (to 100 % centred on the clicked point), a drag pans.
 * The zoom is the parent's, so compare and survey can share one between frames.
 */
export function ZoomImage({
  id,
  fitSrc,
  alt,
  zoom,
  onZoom,
  testId,
  fitTestId = `${testId}-fit`,
  clickToggles,
  navigator = false,
}: {
  id: number;
  fitSrc: string | null;
  alt: string;
  zoom: Zoom;
  onZoom(z: Zoom): void;
  testId: string;
  fitTestId?: string;
  /**
   * Asked when a press starts: false while the frame was not the active one, so the first
   * click only makes it active. (A function, as the parent's own press handler may already
   * have re-rendered it as active by the time this one runs.)
   */
  clickToggles?: () => boolean;
  /** At 100 %, a small copy of the whole picture with the part in view outlined; a press or drag there moves the view (the loupe's navigator). */
  navigator?: boolean;
}) {
  const frameRef = useRef<HTMLDivElement>(null);
  const fitRef = useRef<HTMLImageElement>(null);
  const [frame, setFrame] = useState({ w: 0, h: 0 });
  const drag = useRef<Drag | null>(null);
  const [dragging, setDragging] = useState(false);
  const full = useFullImage(id, zoom.on);
  const dpr = window.devicePixelRatio || 1;
  const W = full.width / dpr;
  const H = full.height / dpr;
  const showFull = zoom.on && !!full.src && W > 0;

  useLayoutEffect(() => {
    const el = frameRef.current;
    if (!el) return;
    const measure = () => setFrame({ w: el.clientWidth, h: el.clientHeight });
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  // A drag that outlives the picture (the asset changed under it) ends with it.
  useEffect(() => () => void (drag.current = null), [id]);

  const down = (e: PointerEvent<HTMLDivElement>) => {
    if (e.button !== 0) return;
    e.currentTarget.setPointerCapture(e.pointerId);
    drag.current = { pointer: e.pointerId, startX: e.clientX, startY: e.clientY, from: zoom, moved: false, toggles: clickToggles ? clickToggles() : true };
  };
  const move = (e: PointerEvent<HTMLDivElement>) => {
    const d = drag.current;
    if (!d || d.pointer !== e.pointerId) return;
    const dx = e.clientX - d.startX;
    const dy = e.clientY - d.startY;
    if (!d.moved && Math.hypot(dx, dy) < CLICK_SLOP) return;
    d.moved = true;
    if (!showFull) return;
    setDragging(true);
    const from = { x: clampCentre(d.from.x, W, frame.w), y: clampCentre(d.from.y, H, frame.h) };
    onZoom({ on: true, x: clampCentre(from.x - dx / W, W, frame.w), y: clampCentre(from.y - dy / H, H, frame.h) });
  };
  const up = (e: PointerEvent<HTMLDivElement>) => {
    const d = drag.current;
    if (!d || d.pointer !== e.pointerId) return;
    drag.current = null;
    setDragging(false);
    if (d.moved || !d.toggles) return;
    if (zoom.on) return onZoom(toggled(zoom));
    const r = fitRef.current?.getBoundingClientRect();
    onZoom(toggled(zoom, r && r.width > 0 ? { x: (e.clientX - r.left) / r.width, y: (e.clientY - r.top) / r.height } : undefined));
  };

  const state = showFull ? '100' : 'fit';
  return (
    <div
      ref={frameRef}
      className={`zoom-frame${zoom.on ? ' is-zoomed' : ''}${dragging ? ' is-dragging' : ''}`}
      data-testid={testId}
      data-zoom={state}
      data-zoom-wanted={zoom.on ? '100' : 'fit'}
      data-natural-width={showFull ? full.width : undefined}
      data-natural-height={showFull ? full.height : undefined}
      onPointerDown={down}
      onPointerMove={move}
      onPointerUp={up}
      onPointerCancel={() => {
        drag.current = null;
        setDragging(false);
      }}
    >
      {showFull ? (
        <img
          className="zoom-full"
          src={full.src!}
          alt={alt}
          draggable={false}
          data-testid={`${testId}-full`}
          style={{ width: W, height: H, transform: `translate(${offsetFor(zoom.x, W, frame.w)}px, ${offsetFor(zoom.y, H, frame.h)}px)` }}
        />
      ) : fitSrc ? (
        <img ref={fitRef} className="zoom-fit" src={fitSrc} alt={alt} draggable={false} decoding="async" data-testid={fitTestId} />
      ) : (
        <p className="muted">No preview can be shown for this file.</p>
      )}
      {zoom.on && full.loading && (
        <div className="zoom-loading">
          <Spinner label="Loading 100 %" />
        </div>
      )}
      {zoom.on && full.note && (
        <div className={`zoom-note${full.failed ? ' is-problem' : ''}`} data-testid={`${testId}-note`}>
          {full.note}
        </div>
      )}
      {showFull && <span className="zoom-badge">1:1</span>}
      {showFull && navigator && fitSrc && (
        <Navigator src={fitSrc} W={W} H={H} frame={frame} zoom={zoom} onZoom={onZoom} testId={`${testId}-navigator`} />
      )}
    </div>
  );
}

/** Longest side of the navigator's picture (px). */
const NAV_SIDE = 168;

/**
 * Lightroom's navigator at 1:1: the whole picture small, the part in view outlined. A press
 * centres the view there; a drag moves it along. Its presses are its own (the picture under it
 * neither pans nor toggles).
 */
function Navigator({ src, W, H, frame, zoom, onZoom, testId }: { src: string; W: number; H: number; frame: { w: number; h: number }; zoom: Zoom; onZoom(z: Zoom): void; testId: string }) {
  const scale = NAV_SIDE / Math.max(W, H);
  const w = Math.round(W * scale);
  const h = Math.round(H * scale);
  const fw = Math.min(1, frame.w / W);
  const fh = Math.min(1, frame.h / H);
  const cx = clampCentre(zoom.x, W, frame.w);
  const cy = clampCentre(zoom.y, H, frame.h);
  const dragging = useRef<number | null>(null);
  const goTo = (e: PointerEvent<HTMLDivElement>) => {
    const r = e.currentTarget.getBoundingClientRect();
    const x = (e.clientX - r.left) / r.width;
    const y = (e.clientY - r.top) / r.height;
    onZoom({ on: true, x: clampCentre(x, W, frame.w), y: clampCentre(y, H, frame.h) });
  };
  return (
    <div
      className="zoom-navigator"
      data-testid={testId}
      style={{ width: w, height: h }}
      title="Navigator: drag the frame to move around the photo"
      onPointerDown={(e) => {
        e.stopPropagation();
        if (e.button !== 0) return;
        e.currentTarget.setPointerCapture(e.pointerId);
        dragging.current = e.pointerId;
        goTo(e);
      }}
      onPointerMove={(e) => {
        e.stopPropagation();
        if (dragging.current === e.pointerId) goTo(e);
      }}
      onPointerUp={(e) => {
        e.stopPropagation();
        dragging.current = null;
      }}
      onPointerCancel={() => void (dragging.current = null)}
    >
      <img src={src} alt="" draggable={false} />
      <div
        className="zoom-navigator-view"
        data-testid={`${testId}-view`}
        style={{ left: `${(cx - fw / 2) * 100}%`, top: `${(cy - fh / 2) * 100}%`, width: `${fw * 100}%`, height: `${fh * 100}%` }}
      />
    </div>
  );
}
