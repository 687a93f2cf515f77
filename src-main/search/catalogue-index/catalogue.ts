import { prepared, type Db } from '../../library/db';
import { PackedTerms, TextIndex, TextIndexBuilder, Tokenizer } from '../text-index';
import { labelCode } from '../../library/labels';
import { clearDirty } from './changes';
import { A_DUP, A_ERROR, A_FLAG_SHIFT, A_KIND_SHIFT, A_LIVE, A_LABEL_SHIFT, A_NO_KEYWORDS, A_RATING_SHIFT, Columns, FLAG_CODE, KIND_CODE, ROW_COLUMNS, type Row, type StackArrays } from './columns';
import { indexOptions } from './options';
import { ownBuffer, textParts, type IndexParts, type SortPerm, type TextParts } from './parts';
import { buildInWorker, workerCanRead } from './spawn';

export type { SortPerm } from './parts';

/** The stored similar groups member by member, by group id then position (as SQL reads them, or as the grouping worker hands them over). */
export interface SimilarRows {
  group: Int32Array;
  asset: Int32Array;
  best: Int32Array;
  burst: Uint8Array;
}

/** The similar groups as arrays: each asset's group id (0: none) and whether that is a burst; per group its id, best frame and members. */
export interface SimilarArrays {
  stamp: number;
  groupOf: Int32Array;
  burst: Uint8Array;
  ids: Int32Array;
  best: Int32Array;
  start: Int32Array;
  members: Int32Array;
}

// The index itself: its columns, each keyword's postings, RAW+JPEG stack siblings, each
// sort's order as a permutation of ids (and ranks), the full-text part; read from SQL and
// patched from the changes this connection's triggers recorded. See index.ts for what it is
// for and how long it lives.

/**
 * What the grid lists with no filter at all (every live asset, RAW+JPEG stacks folded: a RAW
 * is left out when a better member of its stack is live too, exactly as a search folds it):
 * per id 1 when listed, how many are, and the RAWs it was folded with. Kept current by
 * applyDirty, so that the opening view of the grid, and the first use of any sort without a
 * filter, walk only their first page instead of testing every asset.
 */
export interface PlainView {
  mark: Uint8Array;
  count: number;
  raws: Int32Array;
}

/** Ids taken per step when the unfiltered view is made while an index is adopted. */
const PLAIN_STEP = 50_000;

const SORTS: SortPerm[] = ['taken', 'undated', 'name', 'added', 'size'];

/** Keywords or stacks set up per step when an index is adopted. */
const ADOPT_STEP = 20_000;

/** Each order's keys before the id (as in search.ts orderBy), for an alias. */
const ORDER_KEYS: Record<SortPerm, ((x: string) => string)[]> = {
  taken: [(x) => `${x}.taken_at`, (x) => `${x}.name`],
  undated: [(x) => `${x}.name`],
  name: [(x) => `${x}.name COLLATE NOCASE`],
  added: [(x) => `${x}.added_at`],
  size: [(x) => `${x}.size`],
};
/** More sort-key changes than this at once: read the orders again instead of patching them. */
const PATCH_MAX = 2000;

export class CatalogueIndex {
  readonly cols = new Columns();
  maxId = 0;
  private strings = new Map<string, number>();
  /** Keyword id -> ascending asset ids linked to it. */
  postings = new Map<number, Int32Array>();
  /**
   * For each RAW asset, the members of its stack that would fold it when they match too, as
   * flat arrays (a million-asset catalogue has a hundred thousand RAWs: no object each), and
   * the changes since, by RAW id (null: it folds no more), merged in at the next search.
   */
  private stackBase: StackArrays = { raws: new Int32Array(0), start: new Int32Array(1), siblings: new Int32Array(0) };
  private stackEdits = new Map<number, Int32Array | null>();
  private similarArrays: SimilarArrays | null = null;
  /** The unfiltered view (plainView): null until first read. */
  private plain: PlainView | null = null;
  private perms = new Map<SortPerm, Int32Array>();
  private ranks = new Map<SortPerm, Int32Array>();
  /**
   * Per order, the first place from which its positions (the timeline's cols.takenPos, the
   * other orders' ranks) are still to be written after new assets were placed in it: written
   * when next read (takenPositions, rank), so that the search after a scan batch, which walks
   * the orders themselves, does not rewrite a million positions of every order first.
   */
  private stalePos = new Map<SortPerm, number>();
  /** The full-text part; null while it is built or rebuilt (FTS5 answers text meanwhile). */
  text: TextIndex | null = null;
  private tok: Tokenizer | null = null;
  /** A build of the full-text part under way (a worker thread's, or read here a step at a time). */
  private textBuild: { abandon(): void } | null = null;
  /** Assets whose text changed while the full-text part was being rebuilt. */
  private textPending = new Set<number>();
  /** Stamp of the catalogue the index reflects: data_version and total_changes. */
  version = -1;
  changes = -1;

  constructor(private readonly db: Db) {}

  /**
   * Everything read, for another thread (the worker that built it gives it away: the index
   * here is unusable afterwards). Every sort order and its ranks are read first, so that the
   * first use of any sort costs nothing on the receiving thread.
   */
  exportParts(text: TextIndex): IndexParts {
    const c = this.cols;
    for (const which of SORTS) {
      this.perm(which);
      if (which !== 'taken') this.rank(which);
    }
    const keywordIds = Int32Array.from(this.postings.keys());
    const keywordStart = new Int32Array(keywordIds.length + 1);
    let total = 0;
    for (const p of this.postings.values()) total += p.length;
    const keywordPostings = new Int32Array(total);
    let at = 0;
    keywordIds.forEach((k, i) => {
      const p = this.postings.get(k) as Int32Array;
      keywordStart[i] = at;
      keywordPostings.set(p, at);
      at += p.length;
    });
    keywordStart[keywordIds.length] = at;
    // The unfiltered view too, so that the receiving thread only takes it.
    for (const _ of this.makePlainView());
    const plain = this.plain as PlainView;
    // Each array must own its buffer to be transferred: a view into a larger one is copied.
    const own = ownBuffer;
    return {
      maxId: this.maxId,
      cap: c.cap,
      attrs: own(c.attrs), folder: own(c.folder), make: own(c.make), model: own(c.model), lens: own(c.lens),
      iso: own(c.iso), focal: own(c.focal), aperture: own(c.aperture), takenPos: own(c.takenPos),
      strings: [...this.strings.keys()],
      keywordIds, keywordStart, keywordPostings,
      stacks: (({ raws, start, siblings }) => ({ raws: own(raws as Int32Array<ArrayBuffer>), start: own(start as Int32Array<ArrayBuffer>), siblings: own(siblings as Int32Array<ArrayBuffer>) }))(this.stacks()),
      perms: [...this.perms].map(([w, p]) => [w, own(p as Int32Array<ArrayBuffer>)]),
      ranks: [...this.ranks].map(([w, r]) => [w, own(r as Int32Array<ArrayBuffer>)]),
      text: textParts(text),
      // Never used here (no query ran in the worker): all zero, as the receiving side needs them.
      scratch: { mark: own(c.mark as Uint8Array<ArrayBuffer>), counts: own(c.counts as Uint8Array<ArrayBuffer>), scratch: own(c.scratch as Uint8Array<ArrayBuffer>), hits: own(c.hits as Int32Array<ArrayBuffer>), without: own(c.without as Uint8Array<ArrayBuffer>) },
      plain: { mark: own(plain.mark as Uint8Array<ArrayBuffer>), count: plain.count },
    };
  }

  /**
   * Take over an index a worker built (exportParts), a step at a time: each yield is a point
   * where the caller may let the event loop run, so no step holds the thread for long.
   */
  *adopt(parts: IndexParts): Generator<void, void> {
    const c = this.cols;
    c.cap = parts.cap;
    c.attrs = parts.attrs;
    c.folder = parts.folder;
    c.make = parts.make;
    c.model = parts.model;
    c.lens = parts.lens;
    c.iso = parts.iso;
    c.focal = parts.focal;
    c.aperture = parts.aperture;
    c.takenPos = parts.takenPos;
    // The query scratch comes allocated (and zero) from the worker: nothing to allocate here.
    const z = parts.scratch;
    const fits = [z.mark, z.counts, z.scratch, z.hits, z.without].every((a) => a.length === c.cap);
    c.mark = fits ? z.mark : new Uint8Array(c.cap);
    c.counts = fits ? z.counts : new Uint8Array(c.cap);
    c.scratch = fits ? z.scratch : new Uint8Array(c.cap);
    c.hits = fits ? z.hits : new Int32Array(c.cap);
    c.without = fits ? z.without : new Uint8Array(c.cap);
    this.maxId = parts.maxId;
    this.strings = new Map(parts.strings.map((s, i) => [s, i + 1]));
    const { keywordIds, keywordStart, keywordPostings } = parts;
    for (let i = 0; i < keywordIds.length; i++) {
      this.postings.set(keywordIds[i], keywordPostings.subarray(keywordStart[i], keywordStart[i + 1]));
      if (i % ADOPT_STEP === ADOPT_STEP - 1) yield;
    }
    this.stackBase = parts.stacks;
    this.stackEdits.clear();
    for (const [which, p] of parts.perms) this.perms.set(which, p);
    for (const [which, r] of parts.ranks) this.ranks.set(which, r);
    // The unfiltered view the worker made (over the same columns and stacks), else made here in steps.
    if (parts.plain.mark.length === c.cap) this.plain = { mark: parts.plain.mark, count: parts.plain.count, raws: this.stacks().raws };
    else yield* this.makePlainView();
    const text = this.textFrom(parts.text);
    this.textBuild?.abandon();
    this.textBuild = null;
    this.textPending.clear();
    this.text = text;
  }

  /** A full-text part a worker read: its arrays taken as they are. */
  private textFrom(parts: TextParts): TextIndex {
    const text = new TextIndex(this.tokenizer());
    text.terms = new PackedTerms(parts.chars, parts.at);
    text.start = parts.start;
    text.postings = parts.postings;
    return text;
  }

  /** What the index holds in memory, in bytes (its typed arrays; the few coded strings left out). */
  memoryBytes(): number {
    const c = this.cols;
    let n = [c.attrs, c.folder, c.make, c.model, c.lens, c.iso, c.focal, c.aperture, c.takenPos, c.mark, c.counts, c.without, c.scratch, c.hits].reduce((t, a) => t + a.byteLength, 0);
    for (const a of [...this.perms.values(), ...this.ranks.values(), ...this.postings.values()]) n += a.byteLength;
    const { raws, start, siblings } = this.stackBase;
    n += raws.byteLength + start.byteLength + siblings.byteLength;
    if (this.plain) n += this.plain.mark.byteLength;
    if (this.text) n += this.text.postings.byteLength + this.text.start.byteLength + this.text.terms.chars.byteLength + this.text.terms.at.byteLength;
    return n;
  }

  /** The unfiltered view (PlainView), made now when missing. */
  plainView(): PlainView {
    if (!this.plain || this.plain.mark.length < this.cols.cap) for (const _ of this.makePlainView());
    return this.plain as PlainView;
  }

  /** Make the unfiltered view from the columns and stacks, a step of ids at a time (each yield a point to let the event loop run). */
  private *makePlainView(): Generator<void, void> {
    this.plain = null;
    const { attrs, cap } = this.cols;
    const mark = new Uint8Array(cap);
    const end = Math.min(this.maxId, cap - 1) + 1;
    let count = 0;
    for (let from = 1; from < end; from += PLAIN_STEP) {
      count += markLive(attrs, mark, from, Math.min(end, from + PLAIN_STEP));
      if (from + PLAIN_STEP < end) yield;
    }
    const stacks = this.stacks();
    count -= foldStacks(mark, stacks);
    this.plain = { mark, count, raws: stacks.raws };
  }

  /**
   * Bring the unfiltered view up to date after `ids` changed (and any stack with them): their
   * own entries, and every RAW's before and after, are read again from the columns; then the
   * RAWs are folded as a search folds them. Linear in the changes and the RAWs, not the library.
   */
  private refreshPlainView(ids: readonly number[]): void {
    const plain = this.plain;
    if (!plain) return;
    const { attrs, cap } = this.cols;
    let mark = plain.mark;
    if (mark.length < cap) {
      mark = new Uint8Array(cap);
      mark.set(plain.mark);
    }
    let count = plain.count;
    const stacks = this.stacks();
    for (const list of [ids, plain.raws, stacks.raws]) {
      for (let i = 0; i < list.length; i++) {
        const id = list[i];
        if (id >= cap) continue;
        const live = attrs[id] & A_LIVE;
        count += live - mark[id];
        mark[id] = live;
      }
    }
    count -= foldStacks(mark, stacks);
    this.plain = { mark, count, raws: stacks.raws };
  }

  tokenizer(): Tokenizer {
    this.tok ??= new Tokenizer(this.db);
    return this.tok;
  }

  /**
   * Read the full-text part now (small catalogues), or in the background: in a worker thread
   * over its own connection when the catalogue is a file, else a step at a time here.
   */
  buildText(background: boolean): void {
    this.text = null;
    this.textBuild?.abandon();
    this.textPending.clear();
    const install = (build: { abandon(): void }, text: TextIndex): void => {
      if (this.textBuild !== build) return;
      this.textBuild = null;
      if (this.textPending.size) this.updateText(text, [...this.textPending]);
      this.textPending.clear();
      this.text = text;
    };
    if (background && workerCanRead(this.db)) {
      const worker = buildInWorker(this.db, 'text');
      const build = { abandon: worker.cancel };
      this.textBuild = build;
      worker.done.then(
        (parts) => {
          if (!parts || this.textBuild !== build || !this.db.open) return;
          install(build, this.textFrom(parts as TextParts));
        },
        (e: Error) => {
          if (this.textBuild !== build || !this.db.open) return;
          console.error('[search] full-text index worker failed, reading it on the main thread:', e.message);
          this.textBuild = null;
          this.buildText(false);
        },
      );
      return;
    }
    const builder = new TextIndexBuilder(this.db);
    this.textBuild = builder;
    if (!background) return install(builder, builder.finish(this.tokenizer()));
    const step = (): void => {
      if (this.textBuild !== builder) return;
      if (!this.db.open) return builder.abandon();
      builder.step();
      if (builder.done) install(builder, builder.finish(this.tokenizer()));
      else setImmediate(step);
    };
    setImmediate(step);
  }

  /** The index is being thrown away: stop a background build of the full-text part, close the tokenizer. */
  dispose(): void {
    this.textBuild?.abandon();
    this.textBuild = null;
    this.tok?.close();
    this.tok = null;
  }

  private updateText(text: TextIndex, ids: number[]): void {
    const rows = prepared(this.db, 'SELECT id, name, keywords_text, caption, title FROM assets WHERE id IN (SELECT value FROM json_each(?))')
      .raw(true)
      .all(JSON.stringify(ids)) as [number, string, string, string | null, string | null][];
    text.update(ids, rows);
  }

  code(s: string | null): number {
    if (s === null) return 0;
    let c = this.strings.get(s);
    if (c === undefined) {
      c = this.strings.size + 1;
      this.strings.set(s, c);
    }
    return c;
  }

  codeOf(s: string): number {
    return this.strings.get(s) ?? -1;
  }

  setRow(r: Row): void {
    const c = this.cols;
    const id = r[0];
    if (id > this.maxId) this.maxId = id;
    c.grow(id);
    const flag = r[5] === null ? 0 : (FLAG_CODE[r[5]] ?? 3);
    c.attrs[id] =
      (r[1] ? A_LIVE : 0) |
      (KIND_CODE[r[2]] ? 1 << (KIND_CODE[r[2]] - 1 + A_KIND_SHIFT) : 0) |
      (r[6] === 1 ? A_ERROR : 0) |
      (r[7] === 0 ? A_NO_KEYWORDS : 0) |
      (r[10] ? c.attrs[id] & A_DUP : 0) |
      (flag << A_FLAG_SHIFT) |
      ((Math.min(Math.max(r[4], 0), 7) & 7) << A_RATING_SHIFT) |
      (labelCode(r[15]) << A_LABEL_SHIFT);
    c.folder[id] = r[3];
    c.make[id] = this.code(r[8]);
    c.model[id] = this.code(r[9]);
    c.lens[id] = this.code(r[11]);
    c.iso[id] = r[12] ?? NaN;
    c.focal[id] = r[13] ?? NaN;
    c.aperture[id] = r[14] ?? NaN;
  }

  /**
   * The codes of the strings that contain `text`, folded as SQLite's lower() folds (ASCII
   * only), as a lookup by code; for the lens filter, which SQL answers with instr(lower(..)).
   */
  codesContaining(text: string): Uint8Array {
    const want = asciiLower(text);
    const out = new Uint8Array(this.strings.size + 1);
    for (const [s, code] of this.strings) if (asciiLower(s).includes(want)) out[code] = 1;
    return out;
  }

  /** How many live assets carry the keyword: its postings, removed assets left out. */
  liveCount(keywordId: number): number {
    const ids = this.postings.get(keywordId);
    if (!ids) return 0;
    const attrs = this.cols.attrs;
    let n = 0;
    for (let i = 0; i < ids.length; i++) n += attrs[ids[i]] & A_LIVE;
    return n;
  }

  /** Live assets per folder id. */
  liveByFolder(): Map<number, number> {
    const { attrs, folder } = this.cols;
    // By folder id (the folders' rowids: few, small) in a typed array, not a map update per asset.
    let counts = new Int32Array(64);
    const end = Math.min(this.maxId, this.cols.cap - 1);
    for (let id = 1; id <= end; id++) {
      if (!(attrs[id] & A_LIVE)) continue;
      const f = folder[id];
      if (f >= counts.length) {
        const grown = new Int32Array(Math.max(f + 1, counts.length * 2));
        grown.set(counts);
        counts = grown;
      }
      counts[f]++;
    }
    const out = new Map<number, number>();
    counts.forEach((n, f) => {
      if (n) out.set(f, n);
    });
    return out;
  }

  /**
   * Live assets per kind (KIND_CODE, by its one-hot bit) and per camera, as the sidebar's
   * facets count them: the model's name, else the make's (strings by code, 0 for none).
   */
  facetTallies(): { kinds: Record<string, number>; cameras: Map<string, number> } {
    const { attrs, make, model } = this.cols;
    const byCode = new Int32Array(this.strings.size + 1);
    const kindBits = new Int32Array(4);
    const end = Math.min(this.maxId, this.cols.cap - 1);
    for (let id = 1; id <= end; id++) {
      const a = attrs[id];
      if (!(a & A_LIVE)) continue;
      const k = (a >> A_KIND_SHIFT) & 7;
      kindBits[k === 1 ? 1 : k === 2 ? 2 : k === 4 ? 3 : 0]++;
      byCode[model[id] || make[id]]++;
    }
    const kinds: Record<string, number> = {};
    for (const [kind, code] of Object.entries(KIND_CODE)) if (kindBits[code]) kinds[kind] = kindBits[code];
    const cameras = new Map<string, number>();
    for (const [name, code] of this.strings) if (byCode[code]) cameras.set(name, byCode[code]);
    return { kinds, cameras };
  }

  /** Read the asset columns of ids (lo, hi]; returns the last id read, or -1 when done. */
  loadRows(after: number, limit: number): number {
    this.plain = null;
    const rows = prepared(this.db, `SELECT ${ROW_COLUMNS} FROM assets WHERE id > ? ORDER BY id LIMIT ?`).raw(true).all(after, limit) as Row[];
    for (const r of rows) this.setRow(r);
    return rows.length < limit ? -1 : rows[rows.length - 1][0];
  }

  loadDuplicates(): void {
    const c = this.cols;
    for (let id = 0; id < c.cap; id++) c.attrs[id] &= ~A_DUP;
    const ids = rawPluck(
      this.db,
      `SELECT id FROM assets WHERE removed_at IS NULL AND content_hash IN (
         SELECT content_hash FROM assets WHERE removed_at IS NULL AND content_hash IS NOT NULL GROUP BY content_hash HAVING count(*) > 1)`,
    );
    for (const id of ids) c.setDup(id, true);
  }

  loadKeywords(): void {
    this.postings.clear();
    for (const k of this.keywordIds()) this.loadPostings(k);
  }

  keywordIds(): number[] {
    return rawPluck(this.db, 'SELECT id FROM keywords');
  }

  loadPostings(keywordId: number): void {
    const ids = Int32Array.from(rawPluck(this.db, 'SELECT asset_id FROM asset_keywords WHERE keyword_id = ? ORDER BY asset_id', keywordId));
    if (ids.length) this.postings.set(keywordId, ids);
    else this.postings.delete(keywordId);
  }

  /**
   * The stacks as flat arrays: the RAW ids (ascending), where each one's siblings start, the
   * siblings. The changes since are merged in here, in one pass without an object per RAW.
   */
  stacks(): StackArrays {
    if (!this.stackEdits.size) return this.stackBase;
    const base = this.stackBase;
    const edits = this.stackEdits;
    const added = ([...edits].filter((e) => e[1] !== null) as [number, Int32Array][]).sort((a, b) => a[0] - b[0]);
    let count = added.length;
    let total = 0;
    for (const [, s] of added) total += s.length;
    for (let i = 0; i < base.raws.length; i++) {
      if (edits.has(base.raws[i])) continue;
      count++;
      total += base.start[i + 1] - base.start[i];
    }
    const raws = new Int32Array(count);
    const start = new Int32Array(count + 1);
    const siblings = new Int32Array(total);
    let n = 0;
    let at = 0;
    let j = 0;
    const put = (raw: number, from: Int32Array, lo: number, hi: number): void => {
      raws[n] = raw;
      start[n++] = at;
      for (let k = lo; k < hi; k++) siblings[at++] = from[k];
    };
    for (let i = 0; i < base.raws.length; i++) {
      const raw = base.raws[i];
      if (edits.has(raw)) continue;
      for (; j < added.length && added[j][0] < raw; j++) put(added[j][0], added[j][1], 0, added[j][1].length);
      put(raw, base.siblings, base.start[i], base.start[i + 1]);
    }
    for (; j < added.length; j++) put(added[j][0], added[j][1], 0, added[j][1].length);
    start[n] = at;
    this.stackBase = { raws, start, siblings };
    edits.clear();
    return this.stackBase;
  }

  /** Whether `id` folds (or folded) into a stack: a RAW of the stacks as last merged, or changed since. */
  private inStacks(id: number): boolean {
    if (this.stackEdits.has(id)) return true;
    const raws = this.stackBase.raws;
    let lo = 0;
    let hi = raws.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (raws[mid] < id) lo = mid + 1;
      else hi = mid;
    }
    return lo < raws.length && raws[lo] === id;
  }

  loadStacks(): void {
    this.plain = null;
    this.stackEdits.clear();
    const rows = prepared(
      this.db,
      `SELECT r.id, b.id FROM assets r JOIN assets b ON b.folder_id = r.folder_id AND b.stack_key = r.stack_key AND b.id <> r.id
         AND (b.is_raw = 0 OR b.id < r.id)
       WHERE r.is_raw = 1 ORDER BY r.id`,
    )
      .raw(true)
      .all() as [number, number][];
    let count = 0;
    for (let i = 0; i < rows.length; i++) if (i === 0 || rows[i][0] !== rows[i - 1][0]) count++;
    const raws = new Int32Array(count);
    const start = new Int32Array(count + 1);
    const siblings = new Int32Array(rows.length);
    let n = -1;
    rows.forEach(([raw, sibling], i) => {
      if (i === 0 || raw !== rows[i - 1][0]) {
        raws[++n] = raw;
        start[n] = i;
      }
      siblings[i] = sibling;
    });
    start[count] = rows.length;
    this.stackBase = { raws, start, siblings };
  }

  /**
   * The stored similar groups (migration 24) by asset: read again whenever they were written
   * since (their stamp moved) or the columns grew. Each group's members in their order.
   */
  similar(): SimilarArrays {
    const stamp = prepared(this.db, 'SELECT grouped FROM similarity_state WHERE id = 1').pluck(true).get() as number;
    const cap = this.cols.cap;
    if (this.similarArrays && this.similarArrays.stamp === stamp && this.similarArrays.groupOf.length === cap) return this.similarArrays;
    const rows = prepared(
      this.db,
      `SELECT m.group_id, m.asset_id, g.best_id, g.kind = 'burst' FROM similar_members m JOIN similar_groups g ON g.id = m.group_id ORDER BY m.group_id, m.position`,
    )
      .raw(true)
      .all() as [number, number, number, number][];
    const n = rows.length;
    const r: SimilarRows = { group: new Int32Array(n), asset: new Int32Array(n), best: new Int32Array(n), burst: new Uint8Array(n) };
    rows.forEach(([group, asset, bestId, isBurst], i) => {
      r.group[i] = group;
      r.asset[i] = asset;
      r.best[i] = bestId;
      r.burst[i] = isBurst;
    });
    this.similarArrays = this.similarOf(stamp, r);
    return this.similarArrays;
  }

  /**
   * Take the stored similar groups as the worker thread that wrote them hands them over
   * (library/similarity/background.ts): the main thread then never reads them back from SQL.
   * Ignored unless they are the ones stored now (their stamp).
   */
  adoptSimilar(stamp: number, rows: SimilarRows): void {
    const now = prepared(this.db, 'SELECT grouped FROM similarity_state WHERE id = 1').pluck(true).get() as number;
    if (now === stamp) this.similarArrays = this.similarOf(stamp, rows);
  }

  private similarOf(stamp: number, rows: SimilarRows): SimilarArrays {
    const cap = this.cols.cap;
    const groupOf = new Int32Array(cap);
    const burst = new Uint8Array(cap);
    const ids: number[] = [];
    const best: number[] = [];
    const start: number[] = [];
    const n = rows.group.length;
    for (let i = 0; i < n; i++) {
      const group = rows.group[i];
      const asset = rows.asset[i];
      if (!ids.length || ids[ids.length - 1] !== group) {
        ids.push(group);
        best.push(rows.best[i]);
        start.push(i);
      }
      if (asset < cap) {
        groupOf[asset] = group;
        burst[asset] = rows.burst[i];
      }
    }
    start.push(n);
    return { stamp, groupOf, burst, ids: Int32Array.from(ids), best: Int32Array.from(best), start: Int32Array.from(start), members: rows.asset };
  }

  /** A sort order, read from its covering index when missing or stale. */
  perm(which: SortPerm): Int32Array {
    let p = this.perms.get(which);
    if (p) return p;
    if (which === 'taken' || which === 'undated') {
      const taken = Int32Array.from(
        rawPluck(this.db, 'SELECT id FROM assets INDEXED BY assets_live_taken WHERE removed_at IS NULL AND taken_at IS NOT NULL ORDER BY taken_at, name, id'),
      );
      const pos = this.cols.takenPos;
      pos.fill(-1);
      for (let i = 0; i < taken.length; i++) pos[taken[i]] = i;
      // Undated: by name (binary) then id, as the timeline lists them after the dated ones.
      const byName = rawPluck(this.db, 'SELECT id FROM assets INDEXED BY assets_live_name WHERE removed_at IS NULL ORDER BY name, id');
      const undated = Int32Array.from(byName.filter((id) => pos[id] < 0));
      this.perms.set('taken', taken);
      this.perms.set('undated', undated);
      this.stalePos.delete('taken');
      return which === 'taken' ? taken : undated;
    }
    const sql = {
      name: 'SELECT id FROM assets INDEXED BY assets_live_name_nocase WHERE removed_at IS NULL ORDER BY name COLLATE NOCASE, id',
      added: 'SELECT id FROM assets INDEXED BY assets_live_added WHERE removed_at IS NULL ORDER BY added_at, id',
      size: 'SELECT id FROM assets INDEXED BY assets_live_size WHERE removed_at IS NULL ORDER BY size, id',
    }[which];
    p = Int32Array.from(rawPluck(this.db, sql));
    this.perms.set(which, p);
    return p;
  }

  /** Each id's place in a sort order (for the timeline's dated part, see takenPositions). */
  rank(which: Exclude<SortPerm, 'taken'>): Int32Array {
    let r = this.ranks.get(which);
    if (!r) {
      const perm = this.perm(which);
      r = new Int32Array(this.cols.cap);
      for (let i = 0; i < perm.length; i++) r[perm[i]] = i;
      this.ranks.set(which, r);
      this.stalePos.delete(which);
    }
    const stale = this.stalePos.get(which);
    if (stale !== undefined) {
      writePlaces(this.perm(which), r, stale);
      this.stalePos.delete(which);
    }
    return r;
  }

  /** Each dated asset's position on the timeline (cols.takenPos, -1 when undated), brought up to date. */
  takenPositions(): Int32Array {
    const perm = this.perm('taken');
    const stale = this.stalePos.get('taken');
    if (stale !== undefined) {
      writePlaces(perm, this.cols.takenPos, stale);
      this.stalePos.delete('taken');
    }
    return this.cols.takenPos;
  }

  /**
   * Put assets whose sort keys (or presence) changed in their new places in each order built
   * so far: out of the order, then back in where SQLite's own comparison of the keys puts
   * them (a binary search). Many changes at once: the orders are read again when next used.
   */
  private patchPerms(ids: number[], oldMaxId: number): void {
    if (ids.length > PATCH_MAX) return this.dropPerms();
    const json = JSON.stringify(ids);
    const present = new Map(
      prepared(this.db, 'SELECT id, taken_at IS NOT NULL FROM assets WHERE removed_at IS NULL AND id IN (SELECT value FROM json_each(?))')
        .raw(true)
        .all(json) as [number, number][],
    );
    // Only assets the index had before can be in an order: when every one is new (a scan
    // batch), nothing is taken out, and only the places from the first insertion on move.
    const anyOld = ids.some((id) => id <= oldMaxId);
    const out = this.cols.scratch;
    if (anyOld) for (const id of ids) out[id] = 1;
    /** Per order patched: the first place whose asset changed (every place before it kept its asset). */
    const changedFrom = new Map<SortPerm, number>();
    for (const [which, perm] of this.perms) {
      const keys = ORDER_KEYS[which];
      let kept = perm;
      let k = perm.length;
      if (anyOld) {
        kept = new Int32Array(perm.length);
        k = 0;
        for (let i = 0; i < perm.length; i++) {
          kept[k] = perm[i];
          k += 1 - out[perm[i]];
        }
      }
      const wanted = ids.filter((id) => present.has(id) && (which === 'taken' ? present.get(id) === 1 : which === 'undated' ? present.get(id) === 0 : true));
      if (!wanted.length && k === perm.length) continue;
      const sorted = prepared(this.db, `SELECT a.id FROM assets a WHERE a.id IN (SELECT value FROM json_each(?)) ORDER BY ${keys.map((f) => f('a')).join(', ')}, a.id`)
        .pluck(true)
        .all(JSON.stringify(wanted)) as number[];
      const places = this.placesIn(kept.subarray(0, k), sorted, keys);
      const merged = new Int32Array(k + sorted.length);
      let from = 0;
      let n = 0;
      sorted.forEach((id, i) => {
        merged.set(kept.subarray(from, places[i]), n);
        n += places[i] - from;
        merged[n++] = id;
        from = places[i];
      });
      merged.set(kept.subarray(from, k), n);
      this.perms.set(which, merged);
      changedFrom.set(which, anyOld ? 0 : places.length ? places[0] : merged.length);
    }
    if (anyOld) for (const id of ids) out[id] = 0;
    // Positions (the timeline's, each order's ranks) from the first changed place on; with
    // assets taken out, the timeline's all again and the ranks when next used.
    const cap = this.cols.cap;
    // Only new assets placed (a scan batch): the places before the first insertion kept their
    // assets, and the rest are written when next read.
    const later = (which: SortPerm, first: number): void => {
      this.stalePos.set(which, Math.min(first, this.stalePos.get(which) ?? first));
    };
    for (const [which, first] of changedFrom) {
      const perm = this.perms.get(which) as Int32Array;
      if (which === 'taken') {
        if (!anyOld) {
          later(which, first);
          continue;
        }
        const pos = this.cols.takenPos;
        pos.fill(-1);
        writePlaces(perm, pos, 0);
        this.stalePos.delete(which);
        continue;
      }
      const rank = this.ranks.get(which);
      if (!anyOld && rank && rank.length >= cap) later(which, first);
      else this.dropRank(which);
    }
    for (const [which, rank] of this.ranks) if (rank.length < cap) this.dropRank(which);
  }

  private dropRank(which: SortPerm): void {
    this.ranks.delete(which);
    this.stalePos.delete(which);
  }

  /**
   * For each of `ids`, the first place in `order` whose asset sorts after it: binary searches
   * run side by side, each round one SQL statement comparing every pending pair (SQLite's own
   * comparison, collations included).
   */
  private placesIn(order: Int32Array, ids: number[], keys: ((x: string) => string)[]): Int32Array {
    const lo = new Int32Array(ids.length);
    const hi = new Int32Array(ids.length).fill(order.length);
    const compare = prepared(
      this.db,
      `SELECT (${keys.map((f) => f('a')).join(', ')}, a.id) < (${keys.map((f) => f('b')).join(', ')}, b.id)
       FROM json_each(?) j JOIN assets a ON a.id = j.value ->> 0 JOIN assets b ON b.id = j.value ->> 1 ORDER BY j.key`,
    ).pluck(true);
    for (;;) {
      const pending: number[] = [];
      for (let i = 0; i < ids.length; i++) if (lo[i] < hi[i]) pending.push(i);
      if (!pending.length) return lo;
      const before = compare.all(JSON.stringify(pending.map((i) => [ids[i], order[(lo[i] + hi[i]) >>> 1]]))) as number[];
      if (before.length !== pending.length) throw new Error('catalogue index out of step: an asset to place is gone');
      pending.forEach((i, j) => {
        const mid = (lo[i] + hi[i]) >>> 1;
        if (before[j] === 1) hi[i] = mid;
        else lo[i] = mid + 1;
      });
    }
  }

  private dropPerms(): void {
    this.perms.clear();
    this.ranks.clear();
    this.stalePos.clear();
    this.cols.takenPos.fill(-1);
  }

  /** Apply what this connection's writes recorded since the last call. */
  applyDirty(): void {
    const db = this.db;
    const dirty = prepared(db, 'SELECT id, sort, text FROM temp.idx_dirty').raw(true).all() as [number, number, number][];
    const kw = prepared(db, 'SELECT DISTINCT keyword_id FROM temp.idx_dirty_kw').raw(true).all() as [number][];
    const stacks = prepared(db, 'SELECT folder_id, stack_key FROM temp.idx_dirty_stacks').raw(true).all() as [number, string][];
    const hashes = prepared(db, 'SELECT hash FROM temp.idx_dirty_hashes').raw(true).all() as [string][];
    if (!dirty.length && !kw.length && !stacks.length && !hashes.length) return;
    const c = this.cols;
    const oldMaxId = this.maxId;
    /** Whether an asset came, went, or was removed or restored: only then can the unfiltered view change. */
    let liveChanged = false;
    const wasLive = (id: number): number => (id < c.cap ? c.attrs[id] & A_LIVE : 0);
    if (dirty.length) {
      const ids = JSON.stringify(dirty.map((d) => d[0]));
      const rows = prepared(db, `SELECT ${ROW_COLUMNS} FROM assets WHERE id IN (SELECT value FROM json_each(?))`).raw(true).all(ids) as Row[];
      const seen = new Set<number>();
      for (const r of rows) {
        const before = wasLive(r[0]);
        this.setRow(r);
        if ((c.attrs[r[0]] & A_LIVE) !== before) liveChanged = true;
        seen.add(r[0]);
      }
      for (const [id] of dirty) {
        if (seen.has(id) || id >= c.cap) continue;
        // Deleted: matches nothing, and is in no stack any more.
        if (wasLive(id)) liveChanged = true;
        c.attrs[id] = 0;
        if (this.inStacks(id)) this.stackEdits.set(id, null);
      }
      const moved = dirty.filter(([, sort]) => sort === 1).map(([id]) => id);
      if (moved.length) this.patchPerms(moved, oldMaxId);
    }
    const textIds = dirty.filter((d) => d[2] === 1).map((d) => d[0]);
    if (textIds.length) {
      if (this.textBuild) for (const id of textIds) this.textPending.add(id);
      if (this.text) {
        this.updateText(this.text, textIds);
        if (this.text.worthRebuilding) this.buildText(this.maxId > indexOptions.syncBuildMax);
      }
    }
    for (const [keywordId] of kw) this.patchPostings(keywordId);
    for (const [folderId, stackKey] of stacks) {
      const members = prepared(db, 'SELECT id, is_raw FROM assets WHERE folder_id = ? AND stack_key = ? ORDER BY id').raw(true).all(folderId, stackKey) as [number, number][];
      for (const [id, raw] of members) {
        const better = members.filter(([b, bRaw]) => b !== id && (bRaw === 0 || b < id)).map(([b]) => b);
        const folds = raw === 1 && better.length ? Int32Array.from(better) : null;
        // A file that folds into nothing and did not before (a scan batch's new JPEGs): no change.
        if (folds || this.inStacks(id)) this.stackEdits.set(id, folds);
      }
    }
    for (const [hash] of hashes) {
      const ids = rawPluck(db, 'SELECT id FROM assets WHERE content_hash = ? AND removed_at IS NULL', hash);
      for (const id of ids) c.setDup(id, ids.length > 1);
    }
    if (liveChanged || stacks.length) this.refreshPlainView(dirty.map((d) => d[0]));
    clearDirty(db);
  }

  private patchPostings(keywordId: number): void {
    const old = this.postings.get(keywordId) ?? new Int32Array(0);
    const touched = rawPluck(this.db, 'SELECT asset_id FROM temp.idx_dirty_kw WHERE keyword_id = ? ORDER BY asset_id', keywordId);
    const present = new Set(
      rawPluck(
        this.db,
        'SELECT asset_id FROM asset_keywords WHERE keyword_id = ? AND asset_id IN (SELECT asset_id FROM temp.idx_dirty_kw WHERE keyword_id = ?)',
        keywordId,
        keywordId,
      ),
    );
    const touchedSet = new Set(touched);
    const out: number[] = [];
    let i = 0;
    let j = 0;
    // Merge: the old postings minus every touched id, plus the touched ids still linked.
    while (i < old.length || j < touched.length) {
      const a = i < old.length ? old[i] : Infinity;
      const b = j < touched.length ? touched[j] : Infinity;
      if (a < b) {
        if (!touchedSet.has(a)) out.push(a);
        i++;
      } else {
        if (present.has(b)) out.push(b);
        if (a === b) i++;
        j++;
      }
    }
    if (out.length) this.postings.set(keywordId, Int32Array.from(out));
    else this.postings.delete(keywordId);
  }
}

/** places[order[i]] = i for every place i from `from` on. */
function writePlaces(order: Int32Array, places: Int32Array, from: number): void {
  for (let i = from; i < order.length; i++) places[order[i]] = i;
}

/** mark[id] = whether asset id is live, for ids [from, to); returns how many are. */
function markLive(attrs: Uint16Array, mark: Uint8Array, from: number, to: number): number {
  let count = 0;
  for (let id = from; id < to; id++) {
    const live = attrs[id] & A_LIVE;
    mark[id] = live;
    count += live;
  }
  return count;
}

/**
 * Fold RAW+JPEG stacks in `mark`: a marked RAW is unmarked when a better member of its stack
 * is marked too (whether that member is itself folded or not, as in SQL). Returns how many
 * were unmarked.
 */
export function foldStacks(mark: Uint8Array, stacks: StackArrays): number {
  const { raws, start, siblings } = stacks;
  const folded: number[] = [];
  for (let r = 0; r < raws.length; r++) {
    if (mark[raws[r]] !== 1) continue;
    for (let i = start[r]; i < start[r + 1]; i++) {
      if (mark[siblings[i]] === 1) {
        folded.push(raws[r]);
        break;
      }
    }
  }
  for (const raw of folded) mark[raw] = 0;
  return folded.length;
}

function rawPluck(db: Db, sql: string, ...params: unknown[]): number[] {
  return prepared(db, sql).pluck(true).all(...params) as number[];
}

/** SQLite's lower(): ASCII letters only. */
function asciiLower(s: string): string {
  return s.replace(/[A-Z]/g, (ch) => String.fromCharCode(ch.charCodeAt(0) + 32));
}
