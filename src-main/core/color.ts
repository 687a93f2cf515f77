// Colour arithmetic for matching by perception rather than by name: sRGB -> CIE L*a*b*
// (D65), and the CIE76 distance between two Lab colours (ΔE ≈ 2.3 is a just-noticeable
// difference; ~25 keeps a hue family together, e.g. navy and sky blue apart from teal).

export type Rgb = [number, number, number];
export type Lab = [number, number, number];

/** '#1e50c8', '1E50C8' or '#15c' -> [r, g, b]; null when it is not a hex colour. */
export function parseHex(hex: string): Rgb | null {
  const m = /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(hex.trim());
  if (!m) return null;
  const h = m[1].length === 3 ? [...m[1]].map((c) => c + c).join('') : m[1];
  return [parseInt(h.slice(0, 2), 16), parseInt(h.slice(2, 4), 16), parseInt(h.slice(4, 6), 16)];
}

export const toHex = (rgb: Rgb): string => '#' + rgb.map((v) => Math.max(0, Math.min(255, Math.round(v))).toString(16).padStart(2, '0')).join('');

const linear = (v: number): number => {
  const c = v / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
};

// D65 reference white.
const XN = 0.95047;
const YN = 1.0;
const ZN = 1.08883;
const f = (t: number): number => (t > 216 / 24389 ? Math.cbrt(t) : (t * 24389) / 27 / 116 + 16 / 116);

export function rgbToLab([r8, g8, b8]: Rgb): Lab {
  const r = linear(r8);
  const g = linear(g8);
  const b = linear(b8);
  const x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / XN;
  const y = (0.2126729 * r + 0.7151522 * g + 0.072175 * b) / YN;
  const z = (0.0193339 * r + 0.119192 * g + 0.9503041 * b) / ZN;
  const fx = f(x);
  const fy = f(y);
  const fz = f(z);
  return [116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)];
}

/** CIE76 ΔE: Euclidean distance in L*a*b*. */
export const deltaE76 = (p: Lab, q: Lab): number => Math.hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]);

export const DEFAULT_COLOR_DISTANCE = 25;
export const DEFAULT_COLOR_SHARE = 0.25;
