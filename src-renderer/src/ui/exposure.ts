import type { Exposure } from '../../../src-preload/contract';

// Exposure in the words photographers read: ƒ/2.8 · 1/250 s · ISO 100 · 50 mm.

export const formatAperture = (f: number | null): string | null => (f === null ? null : `ƒ/${f}`);
export const formatShutter = (s: string | null): string | null => (s === null ? null : `${s} s`);
export const formatIso = (iso: number | null): string | null => (iso === null ? null : `ISO ${iso}`);

export function formatFocal(e: Pick<Exposure, 'focalLength' | 'focalLength35'>): string | null {
  if (e.focalLength === null) return e.focalLength35 === null ? null : `${e.focalLength35} mm (35 mm equiv.)`;
  return e.focalLength35 !== null && e.focalLength35 !== e.focalLength ? `${e.focalLength} mm (${e.focalLength35} mm equiv.)` : `${e.focalLength} mm`;
}

export function formatBias(ev: number | null): string | null {
  if (ev === null) return null;
  if (ev === 0) return '0 EV';
  return `${ev > 0 ? '+' : '−'}${Math.abs(ev)} EV`;
}

export const formatFlash = (fired: boolean | null): string | null => (fired === null ? null : fired ? 'Flash fired' : 'No flash');

/** The one-line summary (aperture, shutter, ISO), or null when the file records none of them. */
export function exposureLine(e: Exposure): string | null {
  const parts = [formatAperture(e.aperture), formatShutter(e.shutter), formatIso(e.iso)].filter((p): p is string => p !== null);
  return parts.length ? parts.join(' · ') : null;
}

/** Whether the file records anything about its exposure. */
export const hasExposure = (e: Exposure): boolean => Object.values(e).some((v) => v !== null);
