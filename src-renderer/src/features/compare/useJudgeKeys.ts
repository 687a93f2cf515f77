import { useEffect, useRef } from 'react';
import type { ColorLabel, Flag } from '../../../../src-preload/contract';
import { LABEL_KEYS } from '../../ui/ColorLabel';

export interface JudgeKeys {
  flag(f: Flag | null): void;
  rate(stars: number): void;
  label(l: ColorLabel): void;
  /** Z: fit <-> 100 %. */
  zoom(): void;
  /** Arrows: -1 / +1 (left/up, right/down). */
  move(delta: number, vertical: boolean): void;
  exit(): void;
  undo(): void;
  /** "/": take the active photo out of the view (survey). */
  remove?(): void;
  /** Extra letters of the view (lower case). */
  letters?: Record<string, () => void>;
}

function typing(t: EventTarget | null): boolean {
  const el = t as HTMLElement | null;
  return !!el && (el.isContentEditable || el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT');
}

/**
 * Lightroom's judging keys inside compare and survey: P pick, X reject, U unflag, 0–5 stars,
 * 6–9 colour labels, Z zoom, arrows, Esc or G back to the grid, Ctrl/Cmd+Z undo.
 */
export function useJudgeKeys(enabled: boolean, keys: JudgeKeys): void {
  const ref = useRef(keys);
  useEffect(() => {
    ref.current = keys;
  });
  useEffect(() => {
    if (!enabled) return;
    const onKey = (e: KeyboardEvent) => {
      if (typing(e.target) || e.altKey || e.defaultPrevented || document.querySelector('[role="dialog"]')) return;
      const k = ref.current;
      const key = e.key.toLowerCase();
      if (e.ctrlKey || e.metaKey) {
        if (key === 'z' && !e.shiftKey) {
          e.preventDefault();
          k.undo();
        }
        return;
      }
      if (key === 'p') k.flag('pick');
      else if (key === 'x') k.flag('reject');
      else if (key === 'u') k.flag(null);
      else if (/^[0-5]$/.test(key)) k.rate(Number(key));
      else if (LABEL_KEYS[key]) k.label(LABEL_KEYS[key]);
      else if (key === 'z') k.zoom();
      else if (key === 'arrowright' || key === 'arrowleft') k.move(key === 'arrowright' ? 1 : -1, false);
      else if (key === 'arrowdown' || key === 'arrowup') k.move(key === 'arrowdown' ? 1 : -1, true);
      else if (key === 'escape' || key === 'g') k.exit();
      else if (key === '/' && k.remove) k.remove();
      else if (!e.shiftKey && k.letters?.[key]) k.letters[key]();
      else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [enabled]);
}
