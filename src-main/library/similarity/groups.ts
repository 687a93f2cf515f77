import type { Db } from '../db';
import {
  BURST_DISTANCE, BURST_GAP_MS, SIMILAR_DISTANCE, fingerprintDistance, hamming, type Fingerprint,
} from './fingerprint';
import { loadFingerprints, type StoredFingerprint } from './store';

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

interface Member extends StoredFingerprint {
  takenMs: number | null;
}

class UnionFind {
  private readonly parent: Int32Array;
  constructor(n: number) {
    this.parent = new Int32Array(n).map((_, i) => i);
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

function loadMembers(db: Db, assetIds?: readonly number[]): Member[] {
  const fps = loadFingerprints(db, assetIds);
  const taken = db.prepare<[number], { taken_at: string | null }>('SELECT taken_at FROM assets WHERE id = ?');
  const all = !assetIds ? new Map(db.prepare<[], { id: number; taken_at: string | null }>('SELECT id, taken_at FROM assets WHERE removed_at IS NULL').all().map((r) => [r.id, r.taken_at])) : null;
  return fps.map((f) => ({ ...f, takenMs: takenMs(all ? all.get(f.assetId) ?? null : taken.get(f.assetId)?.taken_at ?? null) }));
}

/** Burst edges: each dated frame against the frames after it within the gap. */
function joinBursts(members: Member[], uf: UnionFind): void {
  const dated = members.map((m, i) => ({ t: m.takenMs, i })).filter((d): d is { t: number; i: number } => d.t !== null).sort((a, b) => a.t - b.t || a.i - b.i);
  for (let a = 0; a < dated.length; a++) {
    const A = members[dated[a].i];
    for (let b = a + 1; b < dated.length && dated[b].t - dated[a].t <= BURST_GAP_MS; b++) {
      const B = members[dated[b].i];
      if (fingerprintDistance(A, B) <= BURST_DISTANCE) uf.union(dated[a].i, dated[b].i);
    }
  }
}

const MIH_RADIUS = 1;

/** Similar edges found through the four 16-bit words of the hash. */
function joinSimilar(members: Member[], uf: UnionFind, limit: number): void {
  const words = (m: Fingerprint): number[] => [m.hi >>> 16, m.hi & 0xffff, m.lo >>> 16, m.lo & 0xffff];
  // tables[w]: word value -> member indexes, as one sorted array per table (counting sort).
  const n = members.length;
  const tables = [0, 1, 2, 3].map((w) => {
    const start = new Int32Array(65537);
    const vals = new Uint16Array(n);
    members.forEach((m, i) => {
      vals[i] = words(m)[w];
      start[vals[i] + 1]++;
    });
    for (let v = 0; v < 65536; v++) start[v + 1] += start[v];
    const fill = start.slice(0, 65536);
    const order = new Int32Array(n);
    for (let i = 0; i < n; i++) order[fill[vals[i]]++] = i;
    return { start, order };
  });
  for (let i = 0; i < n; i++) {
    const A = members[i];
    const ws = words(A);
    for (let w = 0; w < 4; w++) {
      const { start, order } = tables[w];
      for (let flip = -1; flip < 16; flip++) {
        if (flip >= 0 && MIH_RADIUS < 1) break;
        const v = flip < 0 ? ws[w] : ws[w] ^ (1 << flip);
        for (let k = start[v]; k < start[v + 1]; k++) {
          const j = order[k];
          if (j <= i) continue;
          const B = members[j];
          if (hamming(A.hi, A.lo, B.hi, B.lo) <= limit && fingerprintDistance(A, B) <= limit) uf.union(i, j);
        }
      }
    }
  }
}

/** Pairs within this many bits are always found by the word probe (4 words x radius 1 -> 7). */
export const SIMILAR_ANY_TIME = Math.min(SIMILAR_DISTANCE, 4 * (MIH_RADIUS + 1) - 1);

interface BestInfo {
  quality: Map<number, number>;
}

function bestOf(ids: number[], byId: Map<number, Member>, info: BestInfo): number {
  const scored = ids.filter((id) => info.quality.has(id));
  if (scored.length) return scored.reduce((a, b) => (info.quality.get(b)! > info.quality.get(a)! ? b : a));
  return ids.reduce((a, b) => (byId.get(b)!.sharpness > byId.get(a)!.sharpness ? b : a));
}

/**
 * The groups (two or more pictures) among the given assets, or the whole library. Each
 * picture is in at most one group; groups come sorted by their first member's capture time.
 */
export function findGroups(db: Db, assetIds?: readonly number[]): SimilarGroup[] {
  const members = loadMembers(db, assetIds);
  const uf = new UnionFind(members.length);
  const burstOnly = new UnionFind(members.length);
  joinBursts(members, burstOnly);
  joinBursts(members, uf);
  joinSimilar(members, uf, SIMILAR_ANY_TIME);
  const parts = new Map<number, number[]>();
  members.forEach((_, i) => {
    const r = uf.find(i);
    const list = parts.get(r);
    if (list) list.push(i);
    else parts.set(r, [i]);
  });
  const quality = new Map(db.prepare<[], { asset_id: number; score: number }>('SELECT asset_id, score FROM asset_quality').all().map((r) => [r.asset_id, r.score]));
  const byId = new Map(members.map((m) => [m.assetId, m]));
  const groups: SimilarGroup[] = [];
  for (const idx of parts.values()) {
    if (idx.length < 2) continue;
    idx.sort((a, b) => (members[a].takenMs ?? Infinity) - (members[b].takenMs ?? Infinity) || members[a].assetId - members[b].assetId);
    const ids = idx.map((i) => members[i].assetId);
    const kind: GroupKind = idx.every((i) => burstOnly.find(i) === burstOnly.find(idx[0])) ? 'burst' : 'similar';
    groups.push({ kind, members: ids, best: bestOf(ids, byId, { quality }) });
  }
  groups.sort((a, b) => (byId.get(a.members[0])!.takenMs ?? Infinity) - (byId.get(b.members[0])!.takenMs ?? Infinity) || a.members[0] - b.members[0]);
  return groups;
}
