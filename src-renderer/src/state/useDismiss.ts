import { useEffect, useRef } from 'react';

/**
 * While `open`, a press anywhere or Escape calls `close` (context menus). The menu itself stops
 * its own mousedown from reaching the window (`onMouseDown={(e) => e.stopPropagation()}`), so a
 * press on one of its items is not a press elsewhere.
 */
export function useDismiss(open: boolean, close: () => void): void {
  // The latest `close`, so that an inline arrow does not re-subscribe on every render.
  const closeRef = useRef(close);
  useEffect(() => {
    closeRef.current = close;
  });
  useEffect(() => {
    if (!open) return;
    const onPress = () => closeRef.current();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') closeRef.current();
    };
    window.addEventListener('mousedown', onPress);
    window.addEventListener('keydown', onKey);
    return () => {
      window.removeEventListener('mousedown', onPress);
      window.removeEventListener('keydown', onKey);
    };
  }, [open]);
}
