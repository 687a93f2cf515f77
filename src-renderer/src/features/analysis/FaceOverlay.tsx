import { useLayoutEffect, useRef, useState } from 'react';
import type { FaceView } from '../../../../src-preload/contract';
import { useAssetAnalysis } from './useAnalysis';
import { ageClassLabel } from './format';
import './analysis.css';

interface Box {
  left: number;
  top: number;
  width: number;
  height: number;
}

/**
 * Where the picture itself is drawn inside an <img>, relative to `origin`: the element's
 * content box, narrowed by object-fit (contain/scale-down letterbox, cover crops, fill
 * stretches). Face boxes are fractions of the displayed picture, so this is all they need
 * at any zoom or window size.
 */
export function renderedImageBox(img: HTMLImageElement, origin: DOMRect): Box | null {
  const nw = img.naturalWidth;
  const nh = img.naturalHeight;
  if (!nw || !nh) return null;
  const r = img.getBoundingClientRect();
  const cs = getComputedStyle(img);
  const px = (v: string) => parseFloat(v) || 0;
  const left = r.left + px(cs.borderLeftWidth) + px(cs.paddingLeft);
  const top = r.top + px(cs.borderTopWidth) + px(cs.paddingTop);
  const w = r.width - px(cs.borderLeftWidth) - px(cs.borderRightWidth) - px(cs.paddingLeft) - px(cs.paddingRight);
  const h = r.height - px(cs.borderTopWidth) - px(cs.borderBottomWidth) - px(cs.paddingTop) - px(cs.paddingBottom);
  let dw = w;
  let dh = h;
  const fit = cs.objectFit;
  if (fit === 'contain' || fit === 'scale-down' || fit === 'cover') {
    const s = fit === 'cover' ? Math.max(w / nw, h / nh) : Math.min(w / nw, h / nh, fit === 'scale-down' ? 1 : Infinity);
    dw = nw * s;
    dh = nh * s;
  } else if (fit === 'none') {
    dw = nw;
    dh = nh;
  }
  // object-position: the default centre (others are not used by the app).
  return { left: left + (w - dw) / 2 - origin.left, top: top + (h - dh) / 2 - origin.top, width: dw, height: dh };
}

/**
 * Face boxes over the big picture: an absolutely positioned layer filling its container,
 * finding the <img> in that container and following its rendered box through resizes and loads.
 */
export function FaceOverlay({ assetId, imgSelector = 'img' }: { assetId: number; imgSelector?: string }) {
  const analysis = useAssetAnalysis(assetId);
  const faces = analysis.data?.assetId === assetId ? analysis.data.faces : null;
  const ref = useRef<HTMLDivElement>(null);
  const [box, setBox] = useState<Box | null>(null);
  const [shown, setShown] = useState(true);

  useLayoutEffect(() => {
    const layer = ref.current;
    const host = layer?.parentElement;
    if (!layer || !host || !faces?.length) return;
    let img: HTMLImageElement | null = null;
    const measure = () => {
      const next = host.querySelector<HTMLImageElement>(imgSelector);
      if (next !== img) {
        img?.removeEventListener('load', measure);
        img = next;
        img?.addEventListener('load', measure);
        if (img) ro.observe(img);
      }
      const b = img && img.complete ? renderedImageBox(img, layer.getBoundingClientRect()) : null;
      setBox((old) => (b && old && Math.abs(b.left - old.left) + Math.abs(b.top - old.top) + Math.abs(b.width - old.width) + Math.abs(b.height - old.height) < 0.5 ? old : b));
    };
    const ro = new ResizeObserver(measure);
    ro.observe(layer);
    const mo = new MutationObserver(measure);
    mo.observe(host, { childList: true, subtree: true });
    window.addEventListener('resize', measure);
    measure();
    return () => {
      ro.disconnect();
      mo.disconnect();
      img?.removeEventListener('load', measure);
      window.removeEventListener('resize', measure);
    };
  }, [faces, imgSelector]);

  if (!faces?.length) return null;
  return (
    <div ref={ref} className="face-layer" data-testid="face-layer">
      <button type="button" className={`face-toggle${shown ? ' on' : ''}`} onClick={() => setShown((s) => !s)} data-testid="face-toggle" title="Show or hide the face boxes">
        {faces.length} face{faces.length > 1 ? 's' : ''} · {shown ? 'boxes on' : 'boxes off'}
      </button>
      {shown && box && faces.map((f, i) => <FaceBox key={i} face={f} box={box} index={i} />)}
    </div>
  );
}

function FaceBox({ face, box, index }: { face: FaceView; box: Box; index: number }) {
  const [x0, y0, x1, y1] = face.bbox;
  const style = { left: box.left + x0 * box.width, top: box.top + y0 * box.height, width: (x1 - x0) * box.width, height: (y1 - y0) * box.height };
  const child = face.age < 18;
  return (
    <div className={`face-box${child ? ' face-child' : ''}`} style={style} data-testid="face-box" data-index={index}>
      <span className={`face-label${style.top < 22 ? ' face-label-inside' : ''}`}>
        ~{Math.round(face.age)} · {ageClassLabel(face.class)}
      </span>
    </div>
  );
}
