// Fit <-> 100 % zoom shared by the loupe, compare and survey. A zoom is where the view is
// centred, as a fraction of the picture (0..1 on each axis), so two pictures of different
// pixel sizes stay on "the same place" when their zoom is locked together (Lightroom's sync).

export interface Zoom {
  /** True at 100 % (one picture pixel per screen pixel), false when the picture fits the frame. */
  on: boolean;
  x: number;
  y: number;
}

export const FIT: Zoom = { on: false, x: 0.5, y: 0.5 };

const clamp01 = (v: number): number => Math.min(1, Math.max(0, v));

/**
 * The centre a frame of `frame` px can show of a picture `size` px long: a picture smaller
 * than the frame is centred; a bigger one never shows past its edges.
 */
export function clampCentre(centre: number, size: number, frame: number): number {
  if (size <= frame || size <= 0) return 0.5;
  const half = frame / 2 / size;
  return Math.min(1 - half, Math.max(half, centre));
}

/** Where the picture's top-left corner sits in the frame for a centre (in px, ≤ 0 when it overflows). */
export function offsetFor(centre: number, size: number, frame: number): number {
  return Math.round(frame / 2 - clampCentre(centre, size, frame) * size);
}

/** Toggle as Z or a click does: to 100 % centred on (x, y), or back to fit keeping the place. */
export function toggled(z: Zoom, at?: { x: number; y: number }): Zoom {
  if (z.on) return { ...z, on: false };
  return at ? { on: true, x: clamp01(at.x), y: clamp01(at.y) } : { ...z, on: true };
}

/** Pan by a fraction of the picture (the arrow keys move an eighth of it). */
export function panned(z: Zoom, dx: number, dy: number): Zoom {
  return { ...z, x: clamp01(z.x + dx), y: clamp01(z.y + dy) };
}

export const ARROW_PAN = 1 / 8;
