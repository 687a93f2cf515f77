// A picture's perceptual fingerprint and local sharpness, computed from pixels already in
// memory (the thumbnail's, right after its decode): no second decode of the original.
//
// - phash: 64 bits, the signs (against their median) of the 8x8 lowest frequencies of a DCT
//   of the luminance squeezed to 32x32. Resizing and re-encoding barely move them; a change
//   of exposure scales them all alike, so their order against the median survives ±1 EV; a
//   crop of a few percent shifts them a little. The DC term is left out (it is brightness).
// - colour: a 4x4 grid of chromaticities (r, g over r+g+b), which exposure does not change.
//   It keeps two pictures of the same layout but different colours apart (a red and a blue
//   car on the same grey road), which the luminance alone would group.
// - sharpness: the variance of the Laplacian of the luminance at thumbnail size; only
//   compared between frames of one scene (same size, same subject), never across scenes.

export const FINGERPRINT_VERSION = 1;

export interface Fingerprint {
  /** 64 bits as two unsigned 32-bit halves (hi, lo). */
  hi: number;
  lo: number;
  /** 32 bytes: 16 cells x (r, g) chromaticity, 0-255. */
  colour: Uint8Array;
  sharpness: number;
}

export interface Pixels {
  data: Buffer | Uint8Array;
  width: number;
  height: number;
  channels: number;
}

const N = 32;
const LOW = 8;

const COS = (() => {
  const t = new Float64Array(LOW * N);
  for (let u = 0; u < LOW; u++) for (let x = 0; x < N; x++) t[u * N + x] = Math.cos(((2 * x + 1) * u * Math.PI) / (2 * N));
  return t;
})();

/** The 8x8 lowest DCT-II coefficients of a 32x32 plane (separable: rows, then columns). */
function lowDct(a: Float64Array): Float64Array {
  const rows = new Float64Array(N * LOW); // [y][u]
  for (let y = 0; y < N; y++) {
    for (let u = 0; u < LOW; u++) {
      let s = 0;
      for (let x = 0; x < N; x++) s += a[y * N + x] * COS[u * N + x];
      rows[y * LOW + u] = s;
    }
  }
  const out = new Float64Array(LOW * LOW); // [v][u]
  for (let v = 0; v < LOW; v++) {
    for (let u = 0; u < LOW; u++) {
      let s = 0;
      for (let y = 0; y < N; y++) s += rows[y * LOW + u] * COS[v * N + y];
      out[v * LOW + u] = s;
    }
  }
  return out;
}

function phashOf(squeezed: Float64Array): { hi: number; lo: number } {
  const dct = lowDct(squeezed);
  const ac = Array.from(dct.subarray(1)).sort((a, b) => a - b);
  const median = (ac[31] + ac[32]) / 2;
  let hi = 0;
  let lo = 0;
  for (let i = 1; i < 64; i++) {
    if (dct[i] <= median) continue;
    if (i < 32) lo |= 1 << i;
    else hi |= 1 << (i - 32);
  }
  return { hi: hi >>> 0, lo: lo >>> 0 };
}

/** Cell of each coordinate when `size` is cut into `n` (as squeeze does it). */
function cells(size: number, n: number): Int32Array {
  const out = new Int32Array(size);
  for (let i = 0; i < size; i++) out[i] = Math.min(n - 1, Math.floor((i * n) / size));
  return out;
}

const G = 4;

/**
 * One pass over the pixels: the luma plane (kept for the sharpness), its 32x32 area average
 * (for the phash) and the 4x4 grid's colour sums, with each pixel's cells looked up in
 * tables. The same sums, in the same order, as luma + squeeze + colour separately.
 */
function scan(px: Pixels): { y: Float32Array; squeezed: Float64Array; colour: Uint8Array } {
  const { data, width, height, channels } = px;
  const y = new Float32Array(width * height);
  const squeezed = new Float64Array(N * N);
  const count = new Float64Array(N * N);
  const sums = new Float64Array(G * G * 3);
  const colN = cells(width, N);
  const colG = cells(width, G);
  const rowN = cells(height, N);
  const rowG = cells(height, G);
  const rgb = channels >= 3;
  for (let r = 0, i = 0; r < height; r++) {
    const cy = rowN[r] * N;
    const gy = rowG[r] * G;
    for (let x = 0; x < width; x++, i++) {
      const p = i * channels;
      const R = data[p];
      const Gr = rgb ? data[p + 1] : R;
      const B = rgb ? data[p + 2] : R;
      const l = rgb ? Math.fround(0.299 * R + 0.587 * Gr + 0.114 * B) : R;
      y[i] = l;
      const c = cy + colN[x];
      squeezed[c] += l;
      count[c]++;
      const g = (gy + colG[x]) * 3;
      sums[g] += R;
      sums[g + 1] += Gr;
      sums[g + 2] += B;
    }
  }
  for (let k = 0; k < squeezed.length; k++) squeezed[k] = count[k] ? squeezed[k] / count[k] : 0;
  const colour = new Uint8Array(G * G * 2);
  for (let k = 0; k < G * G; k++) {
    const t = sums[k * 3] + sums[k * 3 + 1] + sums[k * 3 + 2];
    // A black cell has no colour: neutral.
    colour[k * 2] = t > 0 ? Math.round((sums[k * 3] / t) * 255) : 85;
    colour[k * 2 + 1] = t > 0 ? Math.round((sums[k * 3 + 1] / t) * 255) : 85;
  }
  return { y, squeezed, colour };
}

function laplacianVariance(y: Float32Array, width: number, height: number): number {
  if (width < 3 || height < 3) return 0;
  let sum = 0;
  let sq = 0;
  let n = 0;
  for (let r = 1; r < height - 1; r++) {
    for (let c = 1; c < width - 1; c++) {
      const i = r * width + c;
      const v = y[i - width] + y[i + width] + y[i - 1] + y[i + 1] - 4 * y[i];
      sum += v;
      sq += v * v;
      n++;
    }
  }
  const mean = sum / n;
  return sq / n - mean * mean;
}

/** Fingerprint and sharpness of decoded pixels (the thumbnail's, ~400 px). */
export function fingerprintPixels(px: Pixels): Fingerprint {
  const { y, squeezed, colour } = scan(px);
  return { ...phashOf(squeezed), colour, sharpness: laplacianVariance(y, px.width, px.height) };
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** Bits that differ between two phashes (0-64). */
export function hamming(aHi: number, aLo: number, bHi: number, bLo: number): number {
  return popcount((aHi ^ bHi) >>> 0) + popcount((aLo ^ bLo) >>> 0);
}

/** Mean absolute chromaticity difference over the grid (0-255). */
export function colourDistance(a: Uint8Array, b: Uint8Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += Math.abs(a[i] - b[i]);
  return s / a.length;
}

/**
 * One number for ranking: phash bits, plus a penalty when the colours differ beyond what the
 * same scene shows. Measured on generated bursts (tests/fixtures/bursts.ts, 8 scenes of one
 * palette x 9 frames: noise, ±1/3 and ±1 EV, 2% and 5% crops, quality 35, 40% size): frames
 * of one scene differ by at most 16 bits and 9.7 in colour (+1 EV clips the highlights);
 * distinct scenes by at least 22 bits.
 */
export function fingerprintDistance(a: Fingerprint, b: Fingerprint): number {
  return hamming(a.hi, a.lo, b.hi, b.lo) + Math.max(0, colourDistance(a.colour, b.colour) - COLOUR_SLACK) * COLOUR_WEIGHT;
}

export const COLOUR_SLACK = 10;
export const COLOUR_WEIGHT = 2;

/** Distance at or under which two pictures are the same scene, whenever they were taken. */
export const SIMILAR_DISTANCE = 18;
/** Frames taken within BURST_GAP_MS of each other may differ a little more (a moving subject). */
export const BURST_DISTANCE = 20;
export const BURST_GAP_MS = 10_000;
