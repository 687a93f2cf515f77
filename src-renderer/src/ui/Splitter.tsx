import { useRef, type KeyboardEvent, type PointerEvent } from 'react';

// A vertical splitter between two panels: drag to resize the panel on its `side`, double-click
// (or Home) to reset it, arrow keys move it by 16 px. The width lives with the caller, which
// remembers it (usePersistentState) so panels keep their size across restarts.

export interface SplitterProps {
  /** which panel it resizes: the one on its left (the sidebar) or on its right (the inspector) */
  side: 'left' | 'right';
  width: number;
  min: number;
  max: number;
  defaultWidth: number;
  onWidth: (w: number) => void;
  label: string;
  testId?: string;
}

const STEP = 16;

export function Splitter({ side, width, min, max, defaultWidth, onWidth, label, testId }: SplitterProps) {
  const drag = useRef<{ x: number; w: number } | null>(null);
  const clamp = (w: number) => Math.round(Math.min(max, Math.max(min, w)));
  const sign = side === 'left' ? 1 : -1;

  const down = (e: PointerEvent<HTMLDivElement>) => {
    if (e.button !== 0) return;
    e.preventDefault();
    e.currentTarget.setPointerCapture(e.pointerId);
    drag.current = { x: e.clientX, w: width };
  };
  const move = (e: PointerEvent<HTMLDivElement>) => {
    const d = drag.current;
    if (d) onWidth(clamp(d.w + sign * (e.clientX - d.x)));
  };
  const up = (e: PointerEvent<HTMLDivElement>) => {
    drag.current = null;
    if (e.currentTarget.hasPointerCapture(e.pointerId)) e.currentTarget.releasePointerCapture(e.pointerId);
  };
  const key = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.key === 'ArrowLeft' || e.key === 'ArrowRight') {
      e.preventDefault();
      onWidth(clamp(width + sign * (e.key === 'ArrowRight' ? STEP : -STEP)));
    } else if (e.key === 'Home') {
      e.preventDefault();
      onWidth(defaultWidth);
    }
  };
  return (
    <div
      className={`splitter splitter-${side}`}
      role="separator"
      aria-orientation="vertical"
      aria-label={label}
      aria-valuemin={min}
      aria-valuemax={max}
      aria-valuenow={width}
      tabIndex={0}
      title={`${label}: drag to resize, double-click to reset`}
      onPointerDown={down}
      onPointerMove={move}
      onPointerUp={up}
      onPointerCancel={up}
      onDoubleClick={() => onWidth(defaultWidth)}
      onKeyDown={key}
      data-testid={testId}
    />
  );
}
