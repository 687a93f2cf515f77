import { useEffect, useRef } from 'react';

// "Open the result": any view asks for an asset to be shown in the library; the shell
// switches to the library and the library selects it (clearing a search that hides it).

type Listener = (assetId: number) => void;
const listeners = new Set<Listener>();

export function revealAsset(assetId: number): void {
  listeners.forEach((l) => l(assetId));
}

export function useRevealListener(listener: Listener): void {
  const ref = useRef(listener);
  useEffect(() => {
    ref.current = listener;
  });
  useEffect(() => {
    const l: Listener = (id) => ref.current(id);
    listeners.add(l);
    return () => {
      listeners.delete(l);
    };
  }, []);
}
