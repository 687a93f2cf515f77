import { useEffect, useState } from 'react';
import type { ImageJobArgs, ImageJobPreview } from '../../../../src-preload/contract';
import { useClient } from '../../api/ClientContext';
import { useDebounced } from '../../state/useDebounced';

/** previewImageJob for the form as it stands (debounced): the rule it breaks, cost notes. */
export function useImageJobPreview(args: ImageJobArgs | null): ImageJobPreview | null {
  const { api } = useClient();
  const key = useDebounced(args ? JSON.stringify(args) : '', 200);
  const [state, setState] = useState<{ key: string; preview: ImageJobPreview } | null>(null);
  useEffect(() => {
    if (!key) return;
    let live = true;
    api.previewImageJob(JSON.parse(key) as ImageJobArgs).then(
      (preview) => live && setState({ key, preview }),
      (err: unknown) => live && setState({ key, preview: { ok: false, model: '', error: { field: null, message: err instanceof Error ? err.message : String(err) }, billedTasks: 0, costNotes: [], notes: [] } }),
    );
    return () => {
      live = false;
    };
  }, [api, key]);
  // Only the answer for the form as it stands now (debounced) counts.
  const current = args ? JSON.stringify(args) : '';
  return state && state.key === key && key === current ? state.preview : null;
}

export const SIZE_LABEL: Record<string, string> = {
  square: 'Square 1:1',
  portrait_3_2: 'Portrait 2:3',
  portrait_4_3: 'Portrait 3:4',
  portrait_16_9: 'Portrait 9:16',
  landscape_3_2: 'Landscape 3:2',
  landscape_4_3: 'Landscape 4:3',
  landscape_16_9: 'Landscape 16:9',
};

export const hexToRgb = (h: string): [number, number, number] => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16)) as [number, number, number];
export const rgbToHex = (c: readonly number[]): string => `#${c.map((x) => Math.max(0, Math.min(255, x)).toString(16).padStart(2, '0')).join('')}`;

/** Seed field text -> number (empty = random, i.e. not sent). */
export function parseSeed(s: string): { seed?: number; error: string | null } {
  const t = s.trim();
  if (!t) return { error: null };
  if (!/^-?\d+$/.test(t)) return { error: 'seed: a whole number (empty for a random seed).' };
  return { seed: Number(t), error: null };
}
