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

/** Luma (Rec. 601), 0-255, of any 1-4 channel picture. */
function luma(px: Pixels): Float32Array {
  const { data, width, height, channels } = px;
  const out = new Float32Array(width * height);
  if (channels < 3) {
    for (let i = 0; i < out.length; i++) out[i] = data[i * channels];
    return out;
  }
  for (let i = 0, p = 0; i < out.length; i++, p += channels) out[i] = 0.299 * data[p] + 0.587 * data[p + 1] + 0.114 * data[p + 2];
  return out;
}

/** Area-average resample of a float plane to n x n. */
function squeeze(plane: Float32Array, width: number, height: number, n: number): Float64Array {
  const out = new Float64Array(n * n);
  const count = new Float64Array(n * n);
  for (let y = 0; y < height; y++) {
    const cy = Math.min(n - 1, Math.floor((y * n) / height)) * n;
    const row = y * width;
    for (let x = 0; x < width; x++) {
      const c = cy + Math.min(n - 1, Math.floor((x * n) / width));
      out[c] += plane[row + x];
      count[c]++;
    }
  }
  for (let i = 0; i < out.length; i++) out[i] = count[i] ? out[i] / count[i] : 0;
  return out;
}

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

function phashOf(y: Float32Array, width: number, height: number): { hi: number; lo: number } {
  const dct = lowDct(squeeze(y, width, height, N));
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

function colourOf(px: Pixels): Uint8Array {
  const { data, width, height, channels } = px;
  const g = 4;
  const sums = new Float64Array(g * g * 3);
  for (let y = 0; y < height; y++) {
    const cy = Math.min(g - 1, Math.floor((y * g) / height)) * g;
    for (let x = 0; x < width; x++) {
      const c = (cy + Math.min(g - 1, Math.floor((x * g) / width))) * 3;
      const p = (y * width + x) * channels;
      const r = data[p];
      const gr = channels >= 3 ? data[p + 1] : r;
      const b = channels >= 3 ? data[p + 2] : r;
      sums[c] += r;
      sums[c + 1] += gr;
      sums[c + 2] += b;
    }
  }
  const out = new Uint8Array(g * g * 2);
  for (let i = 0; i < g * g; i++) {
    const t = sums[i * 3] + sums[i * 3 + 1] + sums[i * 3 + 2];
    // A black cell has no colour: neutral.
    out[i * 2] = t > 0 ? Math.round((sums[i * 3] / t) * 255) : 85;
    out[i * 2 + 1] = t > 0 ? Math.round((sums[i * 3 + 1] / t) * 255) : 85;
  }
  return out;
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
  const y = luma(px);
  return { ...phashOf(y, px.width, px.height), colour: colourOf(px), sharpness: laplacianVariance(y, px.width, px.height) };
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
