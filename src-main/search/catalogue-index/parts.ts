import type { StackArrays } from './columns';

// What a worker thread that built the index (or its full-text part) hands over: see
// build-worker.ts and CatalogueIndex.exportParts / adopt.

export type SortPerm = 'taken' | 'undated' | 'name' | 'added' | 'size';

/** The full-text part: the sorted tokens packed as UTF-16 units (text-index.ts PackedTerms), and their postings. */
export interface TextParts {
  chars: Uint16Array<ArrayBuffer>;
  at: Int32Array<ArrayBuffer>;
  start: Int32Array<ArrayBuffer>;
  postings: Int32Array<ArrayBuffer>;
}

/**
 * A whole index as a worker thread hands it over (build-worker.ts): typed arrays, moved
 * without copying (transferList); the tokens too, packed (a million short strings would be a
 * million allocations on the receiving thread, and a heap its garbage collector walks).
 */
export interface IndexParts {
  maxId: number;
  cap: number;
  attrs: Uint16Array<ArrayBuffer>;
  folder: Int32Array<ArrayBuffer>;
  make: Int32Array<ArrayBuffer>;
  model: Int32Array<ArrayBuffer>;
  lens: Int32Array<ArrayBuffer>;
  iso: Float64Array<ArrayBuffer>;
  focal: Float64Array<ArrayBuffer>;
  aperture: Float64Array<ArrayBuffer>;
  takenPos: Int32Array<ArrayBuffer>;
  /** The coded strings, code i + 1 at i. */
  strings: string[];
  /** Keyword ids, where each one's postings start (one more), the postings end to end. */
  keywordIds: Int32Array<ArrayBuffer>;
  keywordStart: Int32Array<ArrayBuffer>;
  keywordPostings: Int32Array<ArrayBuffer>;
  stacks: StackArrays;
  perms: [SortPerm, Int32Array<ArrayBuffer>][];
  ranks: [SortPerm, Int32Array<ArrayBuffer>][];
  /** The full-text part. */
  text: TextParts;
  /**
   * The columns' query scratch, all zero, allocated by the worker: ~10 MB a million assets
   * allocated on the receiving thread held it (and set off a garbage collection) when the
   * index was taken in.
   */
  scratch: { mark: Uint8Array<ArrayBuffer>; counts: Uint8Array<ArrayBuffer>; scratch: Uint8Array<ArrayBuffer>; hits: Int32Array<ArrayBuffer>; without: Uint8Array<ArrayBuffer> };
  /** The unfiltered view (CatalogueIndex PlainView), made by the worker: a pass over every asset the receiving thread need not make. */
  plain: { mark: Uint8Array<ArrayBuffer>; count: number };
}

/** The buffers of `parts` to transfer with it (each typed array owns its own buffer). */
export function partsTransferList(parts: IndexParts): ArrayBuffer[] {
  const arrays = [
    parts.attrs, parts.folder, parts.make, parts.model, parts.lens, parts.iso, parts.focal, parts.aperture, parts.takenPos,
    parts.keywordIds, parts.keywordStart, parts.keywordPostings, parts.stacks.raws, parts.stacks.start, parts.stacks.siblings,
    ...parts.perms.map((p) => p[1]), ...parts.ranks.map((r) => r[1]),
    parts.scratch.mark, parts.scratch.counts, parts.scratch.scratch, parts.scratch.hits, parts.scratch.without, parts.plain.mark,
  ];
  return [...new Set([...arrays.map((a) => a.buffer as ArrayBuffer), ...textTransferList(parts.text)])];
}

/** The buffers of a full-text part to transfer with it. */
export function textTransferList(text: TextParts): ArrayBuffer[] {
  return [text.chars.buffer, text.at.buffer, text.start.buffer, text.postings.buffer];
}

/** A finished full-text index as a worker hands it over. */
export function textParts(text: { terms: { chars: Uint16Array; at: Int32Array }; start: Int32Array; postings: Int32Array }): TextParts {
  return {
    chars: ownBuffer(text.terms.chars as Uint16Array<ArrayBuffer>),
    at: ownBuffer(text.terms.at as Int32Array<ArrayBuffer>),
    start: ownBuffer(text.start as Int32Array<ArrayBuffer>),
    postings: ownBuffer(text.postings as Int32Array<ArrayBuffer>),
  };
}

/** An array that owns its whole buffer, as a transfer needs (a view into a larger buffer is copied out). */
export function ownBuffer<T extends Int32Array<ArrayBuffer> | Uint16Array<ArrayBuffer> | Uint8Array<ArrayBuffer> | Float64Array<ArrayBuffer>>(a: T): T {
  return (a.byteOffset === 0 && a.byteLength === a.buffer.byteLength ? a : a.slice()) as T;
}
