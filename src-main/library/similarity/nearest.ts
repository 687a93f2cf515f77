import type { Db } from '../db';
import { COLOUR_SLACK, COLOUR_WEIGHT, hamming } from './fingerprint';
import { fingerprintGeneration, loadFingerprints } from './store';

// "Find similar": the pictures nearest to one, ranked. A linear pass over packed arrays
// (two 32-bit words and 32 colour bytes per picture) is a few milliseconds even at a million
// pictures; the arrays are kept per catalogue and rebuilt when a fingerprint was written.

/** Beyond this distance two pictures have nothing in common worth showing (64 bits: 32 is chance). */
export const NEAREST_MAX_DISTANCE = 26;

export interface Neighbour {
  assetId: number;
  distance: number;
}

interface Packed {
  generation: number;
  ids: Int32Array;
  hi: Uint32Array;
  lo: Uint32Array;
  colour: Uint8Array;
  index: Map<number, number>;
}

const cache = new WeakMap<Db, Packed>();

function packed(db: Db): Packed {
  const generation = fingerprintGeneration(db);
  const cached = cache.get(db);
  if (cached && cached.generation === generation) return cached;
  const fps = loadFingerprints(db);
  const p: Packed = {
    generation,
    ids: new Int32Array(fps.length),
    hi: new Uint32Array(fps.length),
    lo: new Uint32Array(fps.length),
    colour: new Uint8Array(fps.length * 32),
    index: new Map(),
  };
  fps.forEach((f, i) => {
    p.ids[i] = f.assetId;
    p.hi[i] = f.hi;
    p.lo[i] = f.lo;
    p.colour.set(f.colour, i * 32);
    p.index.set(f.assetId, i);
  });
  cache.set(db, p);
  return p;
}

/** Forget the packed arrays (assets removed or restored: the next query rebuilds them). */
export function invalidateNearest(db: Db): void {
  cache.delete(db);
}

/**
 * The pictures nearest to `assetId` (itself excluded), nearest first, at most `limit`, none
 * further than NEAREST_MAX_DISTANCE. Null when the picture has no fingerprint.
 */
export function nearestTo(db: Db, assetId: number, limit: number): Neighbour[] | null {
  const p = packed(db);
  const at = p.index.get(assetId);
  if (at === undefined) return null;
  const hi = p.hi[at];
  const lo = p.lo[at];
  const co = at * 32;
  const found: Neighbour[] = [];
  let worst = NEAREST_MAX_DISTANCE;
  for (let i = 0; i < p.ids.length; i++) {
    if (i === at) continue;
    const h = hamming(hi, lo, p.hi[i], p.lo[i]);
    if (h > worst) continue;
    let c = 0;
    const ci = i * 32;
    for (let k = 0; k < 32; k++) c += Math.abs(p.colour[co + k] - p.colour[ci + k]);
    const d = h + Math.max(0, c / 32 - COLOUR_SLACK) * COLOUR_WEIGHT;
    if (d > worst) continue;
    found.push({ assetId: p.ids[i], distance: Math.round(d * 10) / 10 });
    if (found.length > limit * 4) {
      found.sort((a, b) => a.distance - b.distance || a.assetId - b.assetId);
      found.length = limit;
      worst = found[found.length - 1].distance;
    }
  }
  found.sort((a, b) => a.distance - b.distance || a.assetId - b.assetId);
  // A picture removed since the arrays were built is left out.
  const live = db.prepare<[number], { id: number }>('SELECT id FROM assets WHERE id = ? AND removed_at IS NULL');
  return found.filter((n) => live.get(n.assetId)).slice(0, limit);
}
