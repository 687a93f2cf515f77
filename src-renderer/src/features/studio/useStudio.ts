import { useEffect, useState } from 'react';
import type { StudioState } from '../../../../src-preload/contract';
import { useClient } from '../../api/ClientContext';
import { formatDateTime } from '../../ui/format';

/** The studio state main keeps, current: read once, then followed through studioChanged events. */
export function useStudio(): [StudioState | null, (s: StudioState) => void] {
  const { api } = useClient();
  const [state, setState] = useState<StudioState | null>(null);
  useEffect(() => {
    let live = true;
    const off = api.on('studioChanged', (s) => live && setState(s));
    api.studioStatus().then(
      (s) => live && setState(s),
      () => {},
    );
    return () => {
      live = false;
      off();
    };
  }, [api]);
  return [state, setState];
}

/** "just now", "4 min ago", "yesterday 18:02": when the last sync went through. */
export function whenText(iso: string | null, now: number): string {
  if (!iso) return 'not yet';
  const t = Date.parse(iso);
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 45) return 'just now';
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  return formatDateTime(t);
}

export const changesText = (n: number): string => `${n} change${n === 1 ? '' : 's'}`;
