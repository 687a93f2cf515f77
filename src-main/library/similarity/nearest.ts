import { prepared, type Db } from '../db';
import { COLOUR_SLACK, COLOUR_WEIGHT } from './fingerprint';
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
  // The arrays in locals and the bit count written out: this loop is the whole cost (a
  // million pictures per query), so it must stay a tight pass over typed arrays.
  const { ids, hi: his, lo: los, colour } = p;
  const hi = his[at];
  const lo = los[at];
  const co = at * 32;
  const found: Neighbour[] = [];
  let worst = NEAREST_MAX_DISTANCE;
  const n = ids.length;
  for (let i = 0; i < n; i++) {
    let x = (hi ^ his[i]) >>> 0;
    x -= (x >>> 1) & 0x55555555;
    x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
    let y = (lo ^ los[i]) >>> 0;
    y -= (y >>> 1) & 0x55555555;
    y = (y & 0x33333333) + ((y >>> 2) & 0x33333333);
    const h = (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) + (Math.imul((y + (y >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24);
    if (h > worst || i === at) continue;
    let c = 0;
    const ci = i * 32;
    for (let k = 0; k < 32; k++) c += Math.abs(colour[co + k] - colour[ci + k]);
    const d = h + Math.max(0, c / 32 - COLOUR_SLACK) * COLOUR_WEIGHT;
    if (d > worst) continue;
    found.push({ assetId: ids[i], distance: Math.round(d * 10) / 10 });
    if (found.length > limit * 4) {
      found.sort((a, b) => a.distance - b.distance || a.assetId - b.assetId);
      found.length = limit;
      worst = found[found.length - 1].distance;
    }
  }
  found.sort((a, b) => a.distance - b.distance || a.assetId - b.assetId);
  // A picture removed since the arrays were built is left out.
  const live = prepared(db, 'SELECT id FROM assets WHERE id = ? AND removed_at IS NULL');
  return found.filter((f) => live.get(f.assetId)).slice(0, limit);
}
