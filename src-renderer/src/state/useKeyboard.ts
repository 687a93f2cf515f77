import { useEffect, useRef } from 'react';
import type { ColorLabel } from '../../../src-preload/contract';
import { LABEL_KEYS } from '../ui/ColorLabel';

export interface KeyActions {
  focusSearch(): void;
  selectAll(): void;
  undo(): void;
  move(dx: number, dy: number, shift: boolean): void;
  grid(): void;
  loupe(): void;
  escape(): void;
  rate(stars: number): void;
  /** 6 red, 7 yellow, 8 green, 9 blue (Lightroom's keys). */
  label?(label: ColorLabel): void;
  /** More single-letter commands of the view (e.g. k: Keyword…), lower-case key -> action. */
  letters?: Record<string, () => void>;
}

function typing(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el) return false;
  return el.isContentEditable || el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT';
}

/**
 * Lightroom's Library shortcuts. Ignored while typing in a field (except Ctrl/Cmd+F), and
 * entirely while `enabled` is false (the library is mounted but another view is shown).
 */
export function useKeyboard(enabled: boolean, actions: KeyActions): void {
  const ref = useRef(actions);
  useEffect(() => {
    ref.current = actions;
  });
  useEffect(() => {
    if (!enabled) return;
    const onKey = (e: KeyboardEvent) => {
      const a = ref.current;
      const mod = e.ctrlKey || e.metaKey;
      const key = e.key.toLowerCase();
      if (mod && key === 'f') {
        e.preventDefault();
        a.focusSearch();
        return;
      }
      if (typing(e.target) || e.defaultPrevented || e.altKey) return;
      if (document.querySelector('[role="dialog"]')) return;
      if (mod) {
        if (key === 'a') {
          e.preventDefault();
          a.selectAll();
        } else if (key === 'z' && !e.shiftKey) {
          e.preventDefault();
          a.undo();
        }
        return;
      }
      const arrows: Record<string, [number, number]> = { arrowleft: [-1, 0], arrowright: [1, 0], arrowup: [0, -1], arrowdown: [0, 1] };
      if (arrows[key]) {
        e.preventDefault();
        a.move(arrows[key][0], arrows[key][1], e.shiftKey);
      } else if (key === 'g') a.grid();
      else if (key === 'e' || key === ' ') {
        e.preventDefault();
        a.loupe();
      } else if (key === 'escape') a.escape();
      else if (/^[0-5]$/.test(key)) a.rate(Number(key));
      else if (LABEL_KEYS[key] && a.label) a.label(LABEL_KEYS[key]);
      else if (!e.shiftKey && a.letters?.[key]) {
        e.preventDefault();
        a.letters[key]();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [enabled]);
}
