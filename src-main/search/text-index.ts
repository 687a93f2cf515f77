import type Database from 'better-sqlite3';
import { memoryDb, readerDb, type Db } from '../library/db';

// The full-text part of the catalogue index: every token FTS5 indexed (file name, keywords,
// caption, title), with the assets holding it, in memory. A query word is a prefix over the
// sorted tokens, so its assets are one slice of postings (a few for 'sun': sun, sunny,
// sunset), instead of an FTS5 query that decodes and returns every hit through SQLite.
//
// Exactness: the tokens are read from the FTS5 index itself (fts5vocab), and query words and
// changed rows are tokenized by the same tokenizer (unicode61, remove_diacritics 2) in a
// private in-memory database, so case folding and diacritics work as in FTS5. A word that is
// more than one token (IMG_0001 is 'img' then '0001', a phrase) is left to FTS5.
//
// Changes: assets whose text changed since the build are "stale": their postings are
// ignored and their current tokens, kept aside, are checked instead.

const TOKENIZE = `tokenize = 'unicode61 remove_diacritics 2'`;
/** Token instances read per step of a background build (~0.2 s each on a 2-core machine). */
const STEP_ROWS = 300_000;

/**
 * Sorted tokens packed end to end as UTF-16 code units, token i at chars[at[i] .. at[i+1]):
 * two typed arrays instead of a million short strings, so a worker thread hands them over
 * without a copy and the main thread's heap (and each of its garbage collections) carries
 * none of them. Compared unit by unit, which is JavaScript's string order.
 */
export class PackedTerms {
  constructor(
    readonly chars: Uint16Array<ArrayBuffer> = new Uint16Array(0),
    readonly at: Int32Array<ArrayBuffer> = new Int32Array(1),
  ) {}

  static from(terms: readonly string[]): PackedTerms {
    let total = 0;
    for (const t of terms) total += t.length;
    const chars = new Uint16Array(total);
    const at = new Int32Array(terms.length + 1);
    let n = 0;
    terms.forEach((t, i) => {
      at[i] = n;
      for (let k = 0; k < t.length; k++) chars[n++] = t.charCodeAt(k);
    });
    at[terms.length] = n;
    return new PackedTerms(chars, at);
  }

  get length(): number {
    return this.at.length - 1;
  }

  /** Token i as a string. */
  term(i: number): string {
    return String.fromCharCode(...this.chars.subarray(this.at[i], this.at[i + 1]));
  }

  /** Token i compared with `key` in JavaScript's string order: negative, 0 or positive. */
  compare(i: number, key: string): number {
    const from = this.at[i];
    const len = this.at[i + 1] - from;
    const m = Math.min(len, key.length);
    for (let k = 0; k < m; k++) {
      const d = this.chars[from + k] - key.charCodeAt(k);
      if (d !== 0) return d;
    }
    return len - key.length;
  }

  startsWith(i: number, prefix: string): boolean {
    const from = this.at[i];
    if (this.at[i + 1] - from < prefix.length) return false;
    for (let k = 0; k < prefix.length; k++) if (this.chars[from + k] !== prefix.charCodeAt(k)) return false;
    return true;
  }

  /** The first token not before `key`. */
  lowerBound(key: string): number {
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compare(mid, key) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

export class TextIndex {
  /** Sorted tokens (JavaScript string order) and, for token i, postings[start[i] .. start[i+1]). */
  terms = new PackedTerms();
  start = new Int32Array(1);
  postings = new Int32Array(0);
  /** Assets whose postings are out of date, with their current tokens. */
  readonly changed = new Map<number, string[]>();

  /**
   * Beyond this many changed assets the index is read again (in the background for a large
   * catalogue): each query word checks every changed asset's tokens, ~1 ms for 20k.
   */
  rebuildAt = 20_000;

  constructor(private readonly tok: Tokenizer) {}

  get worthRebuilding(): boolean {
    return this.changed.size > this.rebuildAt;
  }

  /** Record the current text of changed assets (`rows`: id, name, keywords, caption, title; absent ids were deleted). */
  update(ids: number[], rows: [number, string, string, string | null, string | null][]): void {
    const tokens = this.tok.tokensOf(rows);
    for (const id of ids) this.changed.set(id, tokens.get(id) ?? []);
  }

  /**
   * The assets with a token starting with `prefix` (a single token as the tokenizer made
   * it), each once. `scratch` is a zeroed byte per asset id, left zeroed.
   */
  withPrefix(prefix: string, scratch: Uint8Array): ArrayLike<number> {
    const terms = this.terms;
    const lo = terms.lowerBound(prefix);
    let hi = lo;
    while (hi < terms.length && terms.startsWith(hi, prefix)) hi++;
    const changed = this.changed;
    if (hi - lo === 1 && changed.size === 0) return this.postings.subarray(this.start[lo], this.start[lo + 1]);
    // Changed assets are judged by their current tokens only: 2 marks them to skip below.
    for (const id of changed.keys()) scratch[id] = 2;
    const out = new Int32Array(this.start[hi] - this.start[lo] + changed.size);
    let n = 0;
    for (let i = this.start[lo]; i < this.start[hi]; i++) {
      const id = this.postings[i];
      if (scratch[id] === 0) {
        scratch[id] = 1;
        out[n++] = id;
      }
    }
    for (let i = 0; i < n; i++) scratch[out[i]] = 0;
    for (const [id, tokens] of changed) {
      scratch[id] = 0;
      if (tokens.some((x) => x.startsWith(prefix))) out[n++] = id;
    }
    return out.subarray(0, n);
  }
}

/** Tokens as FTS5 makes them, from a private in-memory database (writing there moves nothing in the catalogue's change stamps). */
export class Tokenizer {
  private readonly mem: Db;
  // Prepared once: a query word is tokenized on every text search.
  private readonly insert: Database.Statement;
  private readonly instances: Database.Statement;
  private readonly clear: Database.Statement;

  constructor(like: Db) {
    this.mem = memoryDb(like);
    this.mem.exec(`CREATE VIRTUAL TABLE t USING fts5 (name, keywords, caption, title, ${TOKENIZE});
      CREATE VIRTUAL TABLE v USING fts5vocab (t, instance);`);
    this.insert = this.mem.prepare('INSERT INTO t (rowid, name, keywords, caption, title) VALUES (?, ?, ?, ?, ?)');
    this.instances = this.mem.prepare('SELECT term, doc FROM v').raw(true);
    this.clear = this.mem.prepare('DELETE FROM t');
  }

  /** Each row's token instances (term, row id) in FTS5's order: by term, then row, column, offset. */
  private instancesOf(rows: [number, string, string, string | null, string | null][]): [string, number][] {
    try {
      this.mem.transaction(() => {
        for (const r of rows) this.insert.run(...r);
      })();
      return this.instances.all() as [string, number][];
    } finally {
      this.clear.run();
    }
  }

  /** The distinct tokens of each row. */
  tokensOf(rows: [number, string, string, string | null, string | null][]): Map<number, string[]> {
    const out = new Map<number, string[]>();
    if (!rows.length) return out;
    for (const [term, doc] of this.instancesOf(rows)) {
      const list = out.get(doc);
      if (!list) out.set(doc, [term]);
      else if (list[list.length - 1] !== term) list.push(term);
    }
    return out;
  }

  /** The token a query word is, or null when it is none or several (a phrase, left to FTS5). */
  wordToken(word: string): string | null {
    const instances = this.instancesOf([[1, word, '', null, null]]);
    return instances.length === 1 ? instances[0][0] : null;
  }

  close(): void {
    this.mem.close();
  }
}

/**
 * Reads the FTS5 index into a TextIndex a step at a time, through a reading connection of
 * its own (its one long read sees a single snapshot while the app's connection goes on; what
 * changes meanwhile is caught by the change triggers and applied afterwards).
 */
export class TextIndexBuilder {
  private terms: string[] = [];
  private starts: number[] = [0];
  private postings = new Int32Array(1 << 16);
  private n = 0;
  private lastTerm: string | null = null;
  private lastDoc = -1;
  private readonly reader: Db;
  private readonly rows: IterableIterator<[string, number]>;
  done = false;

  constructor(db: Db) {
    this.reader = readerDb(db);
    this.reader.exec('CREATE VIRTUAL TABLE temp.instances USING fts5vocab (main, assets_fts, instance)');
    this.rows = this.reader.prepare('SELECT term, doc FROM temp.instances').raw(true).iterate() as IterableIterator<[string, number]>;
  }

  step(rows = STEP_ROWS): void {
    for (let read = 0; read < rows && !this.done; read++) {
      const next = this.rows.next();
      if (next.done) {
        this.done = true;
        this.reader.close();
        break;
      }
      const [term, doc] = next.value;
      if (term === this.lastTerm) {
        // Instances of a token come by asset (and column, offset): one posting per asset.
        if (doc === this.lastDoc) continue;
      } else {
        if (this.lastTerm !== null) this.starts.push(this.n);
        this.terms.push(term);
        this.lastTerm = term;
      }
      this.lastDoc = doc;
      if (this.n === this.postings.length) {
        const grown = new Int32Array(this.postings.length * 2);
        grown.set(this.postings);
        this.postings = grown;
      }
      this.postings[this.n++] = doc;
    }
  }

  /** Stop early (the catalogue went away or changed under the build). */
  abandon(): void {
    if (this.done) return;
    this.done = true;
    this.rows.return?.();
    this.reader.close();
  }

  /** The finished index (every step done). */
  finish(tok: Tokenizer): TextIndex {
    while (!this.done) this.step();
    if (this.lastTerm !== null) this.starts.push(this.n);
    this.lastTerm = null;
    const ix = new TextIndex(tok);
    // FTS5 orders tokens by their UTF-8 bytes; JavaScript compares UTF-16 units. They differ
    // only around surrogate pairs, but the prefix search needs JavaScript's order.
    let sorted = true;
    for (let i = 1; i < this.terms.length && sorted; i++) sorted = this.terms[i - 1] < this.terms[i];
    if (sorted) {
      ix.terms = PackedTerms.from(this.terms);
      ix.start = Int32Array.from(this.starts);
      ix.postings = this.postings.slice(0, this.n);
    } else {
      const order = this.terms.map((_, i) => i).sort((a, b) => (this.terms[a] < this.terms[b] ? -1 : this.terms[a] > this.terms[b] ? 1 : 0));
      ix.terms = PackedTerms.from(order.map((i) => this.terms[i]));
      ix.start = new Int32Array(order.length + 1);
      ix.postings = new Int32Array(this.n);
      let at = 0;
      order.forEach((t, i) => {
        ix.start[i] = at;
        ix.postings.set(this.postings.subarray(this.starts[t], this.starts[t + 1]), at);
        at += this.starts[t + 1] - this.starts[t];
      });
      ix.start[order.length] = at;
    }
    return ix;
  }
}
