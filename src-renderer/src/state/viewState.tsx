import { createContext, useCallback, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import type { Client } from '../api/client';

// The view state the user expects to find again after a restart (last view, sort, thumbnail
// size, filters): read once before the first render, saved through the Api (main keeps it in
// <data>/settings.json) a moment after the last change, so dragging a slider is one write.

const SAVE_DELAY_MS = 400;

interface Store {
  initial: Record<string, unknown>;
  save(key: string, value: unknown): void;
}

const Ctx = createContext<Store | null>(null);

export function ViewStateProvider({ api, initial, children }: { api: Pick<Client, 'setViewState'>; initial: Record<string, unknown>; children: ReactNode }) {
  const pending = useRef<Record<string, unknown>>({});
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const flush = useCallback(() => {
    if (timer.current) clearTimeout(timer.current);
    timer.current = null;
    const state = pending.current;
    pending.current = {};
    if (Object.keys(state).length) api.setViewState({ state }).catch(() => undefined);
  }, [api]);
  const [store] = useState<Store>(() => ({
    initial,
    save(key, value) {
      pending.current[key] = value;
      if (timer.current) clearTimeout(timer.current);
      timer.current = setTimeout(flush, SAVE_DELAY_MS);
    },
  }));
  // A change made just before the window closes or reloads is not lost to the delay.
  useEffect(() => {
    window.addEventListener('pagehide', flush);
    return () => window.removeEventListener('pagehide', flush);
  }, [flush]);
  return <Ctx.Provider value={store}>{children}</Ctx.Provider>;
}

/**
 * useState whose value survives a restart. `valid` checks what was stored (an older version's
 * value, or a hand-edited file, falls back to `fallback`).
 */
export function usePersistentState<T>(key: string, fallback: T, valid: (v: unknown) => v is T): [T, (v: T | ((old: T) => T)) => void] {
  const store = useContext(Ctx);
  const [value, setValue] = useState<T>(() => {
    const stored = store?.initial[key];
    return stored !== undefined && valid(stored) ? stored : fallback;
  });
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    store?.save(key, value);
  }, [store, key, value]);
  return [value, useCallback((v: T | ((old: T) => T)) => setValue(v), [])];
}

export const isOneOf =
  <T extends string>(...options: readonly T[]) =>
  (v: unknown): v is T =>
    typeof v === 'string' && (options as readonly string[]).includes(v);

export const isNumberIn =
  (min: number, max: number) =>
  (v: unknown): v is number =>
    typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max;

export const isPlainObject = <T extends object>(v: unknown): v is T => typeof v === 'object' && v !== null && !Array.isArray(v);
