import { useEffect, useLayoutEffect, useRef, useState, useSyncExternalStore } from 'react';
import { useClient } from '../../api/ClientContext';
import type { PageStore } from '../grid/pageStore';

/** Width of one frame of the strip, and the space between frames (px). */
const CELL = 76;
const GAP = 4;
const PITCH = CELL + GAP;

/**
 * Lightroom's filmstrip under the loupe: the photo list the grid shows, as a row of small
 * frames. A click shows that photo; the photo shown is outlined and kept in view as the arrow
 * keys step. Only the frames in view are drawn, so a list of any length costs the same.
 */
export function Filmstrip({ store, total, current, onGo }: { store: PageStore; total: number; current: number; onGo(index: number): void }) {
  const { mediaUrl } = useClient();
  useSyncExternalStore(store.subscribe, store.getVersion);
  const ref = useRef<HTMLDivElement>(null);
  const [view, setView] = useState({ left: 0, width: 0 });

  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const measure = () => setView({ left: el.scrollLeft, width: el.clientWidth });
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  // The photo shown stays in view: when a step takes it past an edge, the strip centres it.
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el || el.clientWidth === 0) return;
    const x = current * PITCH;
    if (x < el.scrollLeft || x + CELL > el.scrollLeft + el.clientWidth) {
      el.scrollLeft = Math.max(0, x - (el.clientWidth - CELL) / 2);
      setView({ left: el.scrollLeft, width: el.clientWidth });
    }
  }, [current, view.width]);

  const first = Math.max(0, Math.floor(view.left / PITCH) - 2);
  const last = Math.min(total - 1, Math.ceil((view.left + view.width) / PITCH) + 2);
  useEffect(() => {
    if (total > 0 && last >= first) store.ensureRange(first, last);
  }, [store, first, last, total]);

  const frames = [];
  for (let i = first; i <= last; i++) {
    const item = store.get(i);
    const on = i === current;
    frames.push(
      <button
        key={item ? `a${item.id}` : `i${i}`}
        type="button"
        className={`filmstrip-frame${on ? ' is-current' : ''}`}
        style={{ left: i * PITCH, width: CELL }}
        data-testid="filmstrip-frame"
        data-index={i}
        data-asset-id={item?.id ?? ''}
        aria-current={on ? 'true' : undefined}
        title={item?.name}
        onClick={() => onGo(i)}
      >
        {item?.thumb ? <img src={mediaUrl(item.thumb)} alt={item.name} draggable={false} loading="lazy" decoding="async" /> : <span className="filmstrip-empty" />}
      </button>,
    );
  }
  return (
    <div
      ref={ref}
      className="filmstrip"
      data-testid="filmstrip"
      aria-label="Filmstrip"
      onScroll={(e) => setView({ left: e.currentTarget.scrollLeft, width: e.currentTarget.clientWidth })}
      onWheel={(e) => {
        // A mouse wheel scrolls the strip sideways, as in Lightroom.
        if (Math.abs(e.deltaY) > Math.abs(e.deltaX)) e.currentTarget.scrollLeft += e.deltaY;
      }}
    >
      <div className="filmstrip-track" style={{ width: total * PITCH - GAP }}>
        {frames}
      </div>
    </div>
  );
}
