// The index's per-asset columns: typed arrays by asset id, with every yes/no filter and the
// rating and colour label packed into one attribute word, and the asset columns they are read from.

export const KIND_CODE: Record<string, number> = { image: 1, video: 2, audio: 3 };
export const FLAG_CODE: Record<string, number> = { pick: 1, reject: 2 };

/** The asset columns each row of the index is read from (CatalogueIndex.setRow). */
export const ROW_COLUMNS = `id, removed_at IS NULL AS live, kind, folder_id, rating, flag, has_error, keyword_count, camera_make, camera_model,
  content_hash IS NOT NULL AS hashed, lens, iso, focal_length, aperture, color_label`;
export type Row = [
  number, number, string, number, number, string | null, number, number, string | null, string | null, number,
  string | null, number | null, number | null, number | null, string | null,
];

/**
 * Packed per-asset attributes: every yes/no filter and the rating in one 16-bit word, so one
 * mask test per asset answers most of a query.
 */
export const A_LIVE = 1;
export const A_KIND_SHIFT = 1; // one-hot: image 2, video 4, audio 8
export const A_ERROR = 16;
export const A_NO_KEYWORDS = 32;
export const A_DUP = 64;
export const A_FLAG_SHIFT = 7; // 2 bits: 0 none, 1 pick, 2 reject, 3 other
export const A_FLAG_MASK = 3 << A_FLAG_SHIFT;
export const A_RATING_SHIFT = 9; // 3 bits
export const A_LABEL_SHIFT = 12; // 3 bits: labels.ts labelCode (0 none, 1..5 the five, 6 other)
export const A_LABEL_MASK = 7 << A_LABEL_SHIFT;

export interface StackArrays {
  raws: Int32Array;
  start: Int32Array;
  siblings: Int32Array;
}

export class Columns {
  cap = 0;
  attrs = new Uint16Array(0);
  folder = new Int32Array(0);
  make = new Int32Array(0);
  model = new Int32Array(0);
  /** The lens name's string code (0: none). */
  lens = new Int32Array(0);
  /** Exposure values as SQLite stores them (doubles, so a range bound compares as in SQL); NaN when unknown. */
  iso = new Float64Array(0);
  focal = new Float64Array(0);
  aperture = new Float64Array(0);
  /** Position on the timeline (the 'taken' permutation), -1 when undated or not placed. */
  takenPos = new Int32Array(0);
  /** Query scratch, cleared per query. */
  mark = new Uint8Array(0);
  counts = new Uint8Array(0);
  /** Kept all zero between uses (TextIndex.withPrefix). */
  scratch = new Uint8Array(0);
  /** Query scratch: the ids that matched, in the order they were tested. */
  hits = new Int32Array(0);
  without = new Uint8Array(0);

  grow(maxId: number): void {
    if (maxId < this.cap) return;
    const cap = Math.max(1024, Math.ceil((maxId + 1) * 1.25));
    const grown = <T extends Uint8Array | Uint16Array | Int32Array | Float64Array>(a: T, make: (n: number) => T, fill = 0): T => {
      const b = make(cap);
      if (fill) b.fill(fill);
      b.set(a);
      return b;
    };
    this.attrs = grown(this.attrs, (n) => new Uint16Array(n));
    this.folder = grown(this.folder, (n) => new Int32Array(n));
    this.make = grown(this.make, (n) => new Int32Array(n));
    this.model = grown(this.model, (n) => new Int32Array(n));
    this.takenPos = grown(this.takenPos, (n) => new Int32Array(n), -1);
    this.lens = grown(this.lens, (n) => new Int32Array(n));
    this.iso = grown(this.iso, (n) => new Float64Array(n), NaN);
    this.focal = grown(this.focal, (n) => new Float64Array(n), NaN);
    this.aperture = grown(this.aperture, (n) => new Float64Array(n), NaN);
    this.mark = new Uint8Array(cap);
    this.counts = new Uint8Array(cap);
    this.scratch = new Uint8Array(cap);
    this.hits = new Int32Array(cap);
    this.without = new Uint8Array(cap);
    this.cap = cap;
  }

  setDup(id: number, dup: boolean): void {
    this.attrs[id] = dup ? this.attrs[id] | A_DUP : this.attrs[id] & ~A_DUP;
  }
}
