import type { StackArrays } from './columns';

// What a worker thread that built the index (or its full-text part) hands over: see
// build-worker.ts and CatalogueIndex.exportParts / adopt.

export type SortPerm = 'taken' | 'undated' | 'name' | 'added' | 'size';

/** The full-text part: the sorted tokens in pieces joined by NUL (a token never holds one), and their postings. */
export interface TextParts {
  termPieces: string[];
  start: Int32Array<ArrayBuffer>;
  postings: Int32Array<ArrayBuffer>;
}

/** Tokens per piece of TextParts.termPieces; splitting one piece is a step of a few ms. */
export const TERMS_PER_PIECE = 50_000;

/**
 * A whole index as a worker thread hands it over (build-worker.ts): typed arrays, moved
 * without copying (transferList), and strings in a few long pieces (a structured clone of one
 * long string is a copy of its bytes; of a million short ones, a million allocations on the
 * receiving thread).
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
  /** The full-text part: the sorted tokens in pieces joined by NUL (a token never holds one), and their postings. */
  text: TextParts;
}

/** The buffers of `parts` to transfer with it (each typed array owns its own buffer). */
export function partsTransferList(parts: IndexParts): ArrayBuffer[] {
  const arrays = [
    parts.attrs, parts.folder, parts.make, parts.model, parts.lens, parts.iso, parts.focal, parts.aperture, parts.takenPos,
    parts.keywordIds, parts.keywordStart, parts.keywordPostings, parts.stacks.raws, parts.stacks.start, parts.stacks.siblings,
    ...parts.perms.map((p) => p[1]), ...parts.ranks.map((r) => r[1]),
  ];
  return [...new Set([...arrays.map((a) => a.buffer as ArrayBuffer), ...textTransferList(parts.text)])];
}

/** The buffers of a full-text part to transfer with it. */
export function textTransferList(text: TextParts): ArrayBuffer[] {
  return [text.start.buffer, text.postings.buffer];
}

/** A finished full-text index as a worker hands it over. */
export function textParts(text: { terms: string[]; start: Int32Array; postings: Int32Array }): TextParts {
  const termPieces: string[] = [];
  for (let i = 0; i < text.terms.length; i += TERMS_PER_PIECE) termPieces.push(text.terms.slice(i, i + TERMS_PER_PIECE).join('\u0000'));
  return { termPieces, start: ownBuffer(text.start as Int32Array<ArrayBuffer>), postings: ownBuffer(text.postings as Int32Array<ArrayBuffer>) };
}

/** An array that owns its whole buffer, as a transfer needs (a view into a larger buffer is copied out). */
export function ownBuffer<T extends Int32Array<ArrayBuffer> | Uint16Array<ArrayBuffer> | Float64Array<ArrayBuffer>>(a: T): T {
  return (a.byteOffset === 0 && a.byteLength === a.buffer.byteLength ? a : a.slice()) as T;
}
