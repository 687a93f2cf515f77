import type { Db } from '../db';
import {
  BURST_DISTANCE, BURST_GAP_MS, COLOUR_SLACK, COLOUR_WEIGHT, FINGERPRINT_VERSION, SIMILAR_DISTANCE, hamming,
} from './fingerprint';

// Groups of one scene. Two kinds of closeness join pictures:
// - a burst: frames taken within BURST_GAP_MS of each other (capture dates only) whose
//   fingerprints are within BURST_DISTANCE (crops, ±1 EV and a moving subject fit);
// - similar: fingerprints within SIMILAR_DISTANCE whenever they were taken (the same picture
//   resized, re-encoded, exposure-nudged, exported again).
// Groups are the connected parts of both (single linkage), so a picture is in at most one
// group. Candidates for "similar" come from a multi-index hash: the 64 bits cut into four
// 16-bit words; two fingerprints within 7 bits share at least one word within 1 bit
// (pigeonhole), so probing each word and its 16 one-bit neighbours finds every such pair
// without comparing all pairs (a million pictures would be 5e11 comparisons).

export type GroupKind = 'burst' | 'similar';

export interface SimilarGroup {
  kind: GroupKind;
  /** Asset ids, in capture order (undated last, by id). */
  members: number[];
  /** The suggested best frame: highest quality score when measured, else the sharpest. */
  best: number;
}

/**
 * What grouping reads, packed (a million pictures as a few typed arrays, not a million
 * objects): per picture its asset id, phash halves, 32 colour bytes, sharpness and capture
 * time (NaN: undated); and the measured quality scores. Plain data, so a worker thread can
 * hand it over (groups-worker.ts).
 */
export interface GroupInput {
  ids: Int32Array;
  hi: Uint32Array;
  lo: Uint32Array;
  colour: Uint8Array;
  sharpness: Float64Array;
  taken: Float64Array;
  /** Asset ids with a quality score, and the scores, in the same order. */
  qualityIds: Int32Array;
  qualityScores: Float64Array;
}

const COLOUR_BYTES = 32;

class UnionFind {
  readonly parent: Int32Array;
  constructor(n: number, from?: UnionFind) {
    this.parent = from ? from.parent.slice() : new Int32Array(n).map((_, i) => i);
  }
  find(i: number): number {
    let r = i;
    while (this.parent[r] !== r) r = this.parent[r];
    while (this.parent[i] !== r) {
      const next = this.parent[i];
      this.parent[i] = r;
      i = next;
    }
    return r;
  }
  union(a: number, b: number): void {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra !== rb) this.parent[Math.max(ra, rb)] = Math.min(ra, rb);
  }
}

/** 'YYYY-MM-DDTHH:MM:SS[.fff][±HH:MM]' as camera-local milliseconds (the offset is ignored: one camera, one clock). */
export function takenMs(takenAt: string | null): number | null {
  if (!takenAt) return null;
  const m = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d+))?/.exec(takenAt);
  if (!m) return null;
  const ms = m[7] ? Number(`0.${m[7]}`) * 1000 : 0;
  return Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]) + Math.round(ms);
}

interface InputRow {
  asset_id: number;
  phash_hi: number;
  phash_lo: number;
  colour: Buffer | null;
  sharpness: number | null;
  taken_at: string | null;
}

const INPUT_SQL = `SELECT f.asset_id, f.phash_hi, f.phash_lo, f.colour, f.sharpness, a.taken_at
  FROM asset_fingerprints f JOIN assets a ON a.id = f.asset_id
  WHERE a.removed_at IS NULL AND f.phash_hi IS NOT NULL AND f.content_hash = a.content_hash AND f.version = ${FINGERPRINT_VERSION}`;

/** Read what grouping needs (the live pictures' current fingerprints, or the given assets'), packed. */
export function loadGroupInput(db: Db, assetIds?: readonly number[]): GroupInput {
  const rows: InputRow[] = [];
  if (!assetIds) for (const r of db.prepare<[], InputRow>(INPUT_SQL).iterate()) rows.push(r);
  else {
    const one = db.prepare<[number], InputRow>(`${INPUT_SQL} AND f.asset_id = ?`);
    for (const id of assetIds) rows.push(...one.all(id));
  }
  const n = rows.length;
  const input: GroupInput = {
    ids: new Int32Array(n), hi: new Uint32Array(n), lo: new Uint32Array(n), colour: new Uint8Array(n * COLOUR_BYTES),
    sharpness: new Float64Array(n), taken: new Float64Array(n), qualityIds: new Int32Array(0), qualityScores: new Float64Array(0),
  };
  rows.forEach((r, i) => {
    input.ids[i] = r.asset_id;
    input.hi[i] = r.phash_hi >>> 0;
    input.lo[i] = r.phash_lo >>> 0;
    if (r.colour) input.colour.set(r.colour.subarray(0, COLOUR_BYTES), i * COLOUR_BYTES);
    input.sharpness[i] = r.sharpness ?? 0;
    input.taken[i] = takenMs(r.taken_at) ?? NaN;
  });
  const q = db.prepare<[], { asset_id: number; score: number }>('SELECT asset_id, score FROM asset_quality').all();
  input.qualityIds = Int32Array.from(q, (r) => r.asset_id);
  input.qualityScores = Float64Array.from(q, (r) => r.score);
  return input;
}

/** fingerprintDistance of pictures i and j of the input, given their phash distance h. */
function distanceOf(input: GroupInput, i: number, j: number, h: number): number {
  const c = input.colour;
  let s = 0;
  for (let k = 0, a = i * COLOUR_BYTES, b = j * COLOUR_BYTES; k < COLOUR_BYTES; k++) s += Math.abs(c[a + k] - c[b + k]);
  return h + Math.max(0, s / COLOUR_BYTES - COLOUR_SLACK) * COLOUR_WEIGHT;
}

/** Burst edges: each dated frame against the frames after it within the gap. */
function joinBursts(input: GroupInput, uf: UnionFind): void {
  const { taken, hi, lo } = input;
  const dated: number[] = [];
  for (let i = 0; i < taken.length; i++) if (!Number.isNaN(taken[i])) dated.push(i);
  dated.sort((a, b) => taken[a] - taken[b] || a - b);
  for (let a = 0; a < dated.length; a++) {
    const A = dated[a];
    for (let b = a + 1; b < dated.length && taken[dated[b]] - taken[A] <= BURST_GAP_MS; b++) {
      const B = dated[b];
      const h = hamming(hi[A], lo[A], hi[B], lo[B]);
      if (h <= BURST_DISTANCE && distanceOf(input, A, B, h) <= BURST_DISTANCE) uf.union(A, B);
    }
  }
}

const MIH_RADIUS = 1;

/**
 * Similar edges found through the four 16-bit words of the hash. Each table lists the
 * pictures by word value (counting sort) with their hash halves beside them.
 */
function joinSimilar(input: GroupInput, uf: UnionFind, limit: number): void {
  const { hi, lo } = input;
  const n = hi.length;
  // Four tables laid end to end: table w's value v starts at start[w * 65537 + v] (in entries
  // of order/thi/tlo, which hold table w at w * n).
  const words = new Uint16Array(4 * n);
  for (let i = 0; i < n; i++) {
    words[i] = hi[i] >>> 16;
    words[n + i] = hi[i] & 0xffff;
    words[2 * n + i] = lo[i] >>> 16;
    words[3 * n + i] = lo[i] & 0xffff;
  }
  const start = new Int32Array(4 * 65537);
  const order = new Int32Array(4 * n);
  const thi = new Uint32Array(4 * n);
  const tlo = new Uint32Array(4 * n);
  for (let w = 0; w < 4; w++) {
    const s0 = w * 65537;
    for (let i = 0; i < n; i++) start[s0 + words[w * n + i] + 1]++;
    start[s0] = w * n;
    for (let v = 0; v < 65536; v++) start[s0 + v + 1] += start[s0 + v];
    const fill = start.slice(s0, s0 + 65536);
    for (let i = 0; i < n; i++) {
      const k = fill[words[w * n + i]]++;
      order[k] = i;
      thi[k] = hi[i];
      tlo[k] = lo[i];
    }
  }
  // Bucket by bucket (memory read in order, not one random probe per picture and word): the
  // pairs within a value, and across each value and its one-bit neighbours above it. Each
  // candidate pair of a table is looked at once.
  const check = (k: number, l: number): void => {
    const h = hamming(thi[k], tlo[k], thi[l], tlo[l]);
    if (h > limit) return;
    const i = order[k];
    const j = order[l];
    if (uf.find(i) === uf.find(j)) return;
    if (distanceOf(input, i, j, h) <= limit) uf.union(i, j);
  };
  for (let w = 0; w < 4; w++) {
    const s0 = w * 65537;
    for (let v = 0; v < 65536; v++) {
      const a0 = start[s0 + v];
      const a1 = start[s0 + v + 1];
      if (a0 === a1) continue;
      for (let k = a0; k < a1; k++) for (let l = k + 1; l < a1; l++) check(k, l);
      if (MIH_RADIUS < 1) continue;
      for (let bit = 0; bit < 16; bit++) {
        const u = v ^ (1 << bit);
        if (u < v) continue;
        const b0 = start[s0 + u];
        const b1 = start[s0 + u + 1];
        for (let k = a0; k < a1; k++) for (let l = b0; l < b1; l++) check(k, l);
      }
    }
  }
}

/** Pairs within this many bits are always found by the word probe (4 words x radius 1 -> 7). */
export const SIMILAR_ANY_TIME = Math.min(SIMILAR_DISTANCE, 4 * (MIH_RADIUS + 1) - 1);

/**
 * The groups (two or more pictures) of a packed input. Each picture is in at most one group;
 * groups come sorted by their first member's capture time.
 */
export function computeGroups(input: GroupInput): SimilarGroup[] {
  const n = input.ids.length;
  const { ids, taken, sharpness } = input;
  const burstOnly = new UnionFind(n);
  joinBursts(input, burstOnly);
  const uf = new UnionFind(n, burstOnly);
  joinSimilar(input, uf, SIMILAR_ANY_TIME);
  // Members of each part, by root (in index order).
  const size = new Int32Array(n);
  const root = new Int32Array(n);
  for (let i = 0; i < n; i++) size[(root[i] = uf.find(i))]++;
  const quality = new Map<number, number>();
  input.qualityIds.forEach((id, k) => quality.set(id, input.qualityScores[k]));
  const parts = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    if (size[root[i]] < 2) continue;
    const list = parts.get(root[i]);
    if (list) list.push(i);
    else parts.set(root[i], [i]);
  }
  const t = (i: number): number => (Number.isNaN(taken[i]) ? Infinity : taken[i]);
  const groups: { g: SimilarGroup; first: number }[] = [];
  for (const idx of parts.values()) {
    idx.sort((a, b) => t(a) - t(b) || ids[a] - ids[b]);
    const b0 = burstOnly.find(idx[0]);
    const kind: GroupKind = idx.every((i) => burstOnly.find(i) === b0) ? 'burst' : 'similar';
    // The suggested best frame: the highest quality score when measured, else the sharpest (the first in capture order on a tie).
    let best = -1;
    for (const i of idx) if (quality.has(ids[i]) && (best < 0 || quality.get(ids[i])! > quality.get(ids[best])!)) best = i;
    if (best < 0) {
      best = idx[0];
      for (const i of idx) if (sharpness[i] > sharpness[best]) best = i;
    }
    groups.push({ g: { kind, members: idx.map((i) => ids[i]), best: ids[best] }, first: idx[0] });
  }
  groups.sort((a, b) => t(a.first) - t(b.first) || a.g.members[0] - b.g.members[0]);
  return groups.map((x) => x.g);
}

/**
 * The groups (two or more pictures) among the given assets, or the whole library. Each
 * picture is in at most one group; groups come sorted by their first member's capture time.
 */
export function findGroups(db: Db, assetIds?: readonly number[]): SimilarGroup[] {
  return computeGroups(loadGroupInput(db, assetIds));
}
