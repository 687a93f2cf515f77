import { setImmediate as nextTurn } from 'node:timers/promises';
import { recordOperations, type Operation } from '../catalogue/change-log';
import { deleteVocabularyEntry, insertVocabularyEntry, renameVocabularyEntry, updateVocabularyEntry } from '../catalogue/vocabulary';
import { ApiError } from '../core/errors';
import { inTurns, pace } from '../core/steps';
import type { LibraryCtx } from './context';
import { prepared } from './db';
import { inEditLane } from './edit-lane';
import { normalizeKeyword } from './keywords';
import { vocabularyChange, vocabularyDeletion, type LibraryUndo } from './library-undo';

// The keyword vocabulary (Lightroom's keyword list): keywords kept whether or not a photo
// carries them yet, each a whole hierarchy path ('Animals|Cat', as the catalogue stores
// keywords), with its synonyms and whether it is included on export. Read and written in
// Lightroom's keyword-list text format:
//
//   Animals            a keyword; one tab deeper per level of the hierarchy
//   \tCat
//   \t\t{Kitty}        a synonym of the keyword above, one tab deeper than it
//   \t[Unsorted]       a keyword that is not included on export
//
// Written exactly: UTF-8 without a BOM, LF after every line. Read leniently: a BOM, CRLF or CR
// line ends and blank lines (as other programs save the file) are accepted.

export interface VocabularyEntry {
  /** 'Animals|Cat'. */
  path: string;
  synonyms: string[];
  /** Lightroom's "Include on Export"; false is written as [name]. */
  exportable: boolean;
}

export interface KeywordListImport {
  /** Keywords new to the library's vocabulary. */
  added: number;
  /** Synonyms new to their keyword. */
  synonyms: number;
  /** Keywords the library already had (in its vocabulary or on a photo). */
  existing: number;
  /** Lines that could not be read, each with its number and why (the rest is imported). */
  skipped: string[];
}

const lower = (s: string): string => s.normalize('NFC').toLocaleLowerCase();

interface Row {
  id: number;
  path: string;
  exportable: number;
  synonyms: string;
  position: number;
}

function readRows(ctx: LibraryCtx): Row[] {
  return prepared(ctx.db, 'SELECT id, path, exportable, synonyms, position FROM keyword_vocabulary ORDER BY position, id').all() as Row[];
}

const parseSynonyms = (json: string): string[] => {
  const v = JSON.parse(json) as unknown;
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : [];
};

/** Every keyword of the vocabulary, in the order it was imported or added. */
export function listVocabulary(ctx: LibraryCtx): VocabularyEntry[] {
  return readRows(ctx).map((r) => ({ path: r.path, synonyms: parseSynonyms(r.synonyms), exportable: r.exportable === 1 }));
}

/** One parsed line: a keyword at a depth, or a synonym of the keyword above. */
type Line = { no: number; depth: number; kind: 'keyword'; name: string; exportable: boolean } | { no: number; depth: number; kind: 'synonym'; name: string };

/** One line at a time (a generator: parseKeywordList paces it). */
function* parseLines(text: string): Generator<void, { lines: Line[]; skipped: string[] }> {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const lines: Line[] = [];
  const skipped: string[] = [];
  const raws = body.split(/\r\n|\n|\r/);
  for (let i = 0; i < raws.length; i++) {
    yield;
    const raw = raws[i];
    const no = i + 1;
    if (raw.trim() === '') continue;
    const depth = /^\t*/.exec(raw)![0].length;
    const item = raw.slice(depth).trim();
    const wrapped = (open: string, close: string): string | null => (item.length >= 2 && item.startsWith(open) && item.endsWith(close) ? item.slice(1, -1) : null);
    const synonym = wrapped('{', '}');
    const hidden = wrapped('[', ']');
    const name = normalizeKeyword(synonym ?? hidden ?? item);
    if (!name) skipped.push(`line ${no}: an empty keyword`);
    else if (name.includes('|')) skipped.push(`line ${no}: “${name}” has a “|”, which separates the levels of a hierarchy`);
    else if (synonym !== null) lines.push({ no, depth, kind: 'synonym', name });
    else lines.push({ no, depth, kind: 'keyword', name, exportable: hidden === null });
  }
  return { lines, skipped };
}

/** Entries (a path each, parents before their children, in file order), one line at a time. */
function* parseEntries(text: string): Generator<void, { entries: VocabularyEntry[]; skipped: string[] }> {
  if (text.includes('\0')) throw new ApiError('validation', 'This is not a keyword list: it holds binary data. Choose a text file exported from Lightroom (Metadata › Export Keywords).');
  const { lines, skipped } = yield* parseLines(text);
  const entries: VocabularyEntry[] = [];
  const byPath = new Map<string, VocabularyEntry>();
  // stack[d] = the keyword at depth d that deeper lines belong to.
  const stack: VocabularyEntry[] = [];
  for (const line of lines) {
    yield;
    if (line.kind === 'synonym') {
      // One tab deeper than its keyword; read leniently: the nearest keyword above that is shallower.
      const owner = stack[Math.min(line.depth, stack.length) - 1];
      if (!owner) {
        skipped.push(`line ${line.no}: the synonym {${line.name}} has no keyword above it`);
        continue;
      }
      if (!owner.synonyms.some((s) => lower(s) === lower(line.name))) owner.synonyms.push(line.name);
      continue;
    }
    // A line more than one tab deeper than the one above is a child of it.
    const depth = Math.min(line.depth, stack.length);
    const path = [...stack.slice(0, depth).map((e) => e.path.split('|').pop()!), line.name].join('|');
    let entry = byPath.get(lower(path));
    if (!entry) {
      entry = { path, synonyms: [], exportable: line.exportable };
      byPath.set(lower(path), entry);
      entries.push(entry);
    }
    stack.length = depth;
    stack.push(entry);
  }
  return { entries, skipped };
}

/**
 * Parse a keyword list into entries, a turn's budget of lines at a time: a stock vocabulary of
 * 20,000 keywords is about 90 ms of parsing.
 */
export async function parseKeywordList(text: string): Promise<{ entries: VocabularyEntry[]; skipped: string[] }> {
  const steps = parseEntries(text);
  const next = pace();
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    await next();
  }
}

/** Rows of a table read per turn (by id) while an import looks at what the library has. */
const READ_STEP = 5_000;

async function readInSteps<R extends { id: number }>(ctx: LibraryCtx, sql: string, each: (row: R) => void): Promise<void> {
  const stmt = prepared(ctx.db, sql);
  for (let after = 0; ; await nextTurn()) {
    const rows = stmt.all(after, READ_STEP) as R[];
    if (rows.length === 0) return;
    for (const r of rows) each(r);
    after = rows[rows.length - 1].id;
  }
}

/**
 * Add a keyword list to the vocabulary: new keywords are added after the ones there (in the
 * file's order), a keyword already there gains the file's new synonyms and its export flag.
 *
 * In steps, in the edit lane: the list is parsed and the library read a turn at a time, and
 * written a turn's budget of entries per transaction. Importing a list again changes nothing
 * (an entry there gains only what it lacks), so a list cut short (the app quit) is completed by
 * importing it again.
 */
export function importKeywordList(ctx: LibraryCtx, text: string): Promise<KeywordListImport> {
  return inEditLane(ctx, async () => {
    const { entries, skipped } = await parseKeywordList(text);
    const result: KeywordListImport = { added: 0, synonyms: 0, existing: 0, skipped };
    const onPhotos = new Set<string>();
    await readInSteps<{ id: number; name: string }>(ctx, 'SELECT id, name FROM keywords WHERE id > ? ORDER BY id LIMIT ?', (r) => onPhotos.add(lower(r.name)));
    const rows = new Map<string, Row>();
    let next = 0;
    await readInSteps<Row>(ctx, 'SELECT id, path, exportable, synonyms, position FROM keyword_vocabulary WHERE id > ? ORDER BY id LIMIT ?', (r) => {
      rows.set(lower(r.path), r);
      next = Math.max(next, r.position + 1);
    });
    let ops: Operation[] = [];
    const write = (e: VocabularyEntry): void => {
      const row = rows.get(lower(e.path));
      if (!row) {
        insertVocabularyEntry(ctx.db, e.path, e.exportable, JSON.stringify(e.synonyms), next++);
        ops.push({ op: 'vocabulary.add', value: { path: e.path, exportable: e.exportable, synonyms: e.synonyms } });
        if (onPhotos.has(lower(e.path))) result.existing++;
        else result.added++;
        result.synonyms += e.synonyms.length;
        return;
      }
      result.existing++;
      const have = parseSynonyms(row.synonyms);
      const fresh = e.synonyms.filter((s) => !have.some((h) => lower(h) === lower(s)));
      result.synonyms += fresh.length;
      updateVocabularyEntry(ctx.db, row.id, e.exportable, JSON.stringify([...have, ...fresh]));
      if (fresh.length || (row.exportable === 1) !== e.exportable) ops.push({ op: 'vocabulary.update', value: { path: row.path, exportable: e.exportable, addSynonyms: fresh } });
    };
    await inTurns(entries.length, (from, more) =>
      ctx.db.transaction(() => {
        let i = from;
        do write(entries[i++]);
        while (i < entries.length && more());
        recordOperations(ctx.db, null, ops);
        ops = [];
        return i;
      })(),
    );
    if (entries.length) ctx.events.emit('libraryChanged', { reason: 'edit', assetIds: [] });
    return result;
  });
}

interface Node {
  name: string;
  path: string;
  entry: VocabularyEntry | null;
  order: number;
  children: Node[];
}

/**
 * The vocabulary, and every keyword on a photo that it does not hold yet, as a keyword list.
 * Siblings keep the vocabulary's order; keywords only on photos follow theirs alphabetically.
 */
export function exportKeywordList(ctx: LibraryCtx): string {
  const root: Node = { name: '', path: '', entry: null, order: -1, children: [] };
  const nodes = new Map<string, Node>([['', root]]);
  const place = (path: string, entry: VocabularyEntry | null, order: number): void => {
    const parts = path.split('|');
    let parent = root;
    parts.forEach((name, i) => {
      const p = parts.slice(0, i + 1).join('|');
      let node = nodes.get(lower(p));
      if (!node) {
        node = { name, path: p, entry: null, order: i === parts.length - 1 ? order : Number.MAX_SAFE_INTEGER, children: [] };
        nodes.set(lower(p), node);
        parent.children.push(node);
      }
      if (i === parts.length - 1 && entry) {
        node.entry = entry;
        node.order = Math.min(node.order, order);
      }
      parent = node;
    });
  };
  listVocabulary(ctx).forEach((e, i) => place(e.path, e, i));
  const onPhotos = (prepared(ctx.db, 'SELECT name FROM keywords').pluck().all() as string[]).filter((n) => !nodes.has(lower(n)));
  onPhotos.sort((a, b) => a.localeCompare(b, undefined, { sensitivity: 'base' })).forEach((n) => place(n, null, Number.MAX_SAFE_INTEGER));
  const out: string[] = [];
  const walk = (node: Node, depth: number): void => {
    const kids = [...node.children].sort((a, b) => a.order - b.order || a.name.localeCompare(b.name, undefined, { sensitivity: 'base' }));
    for (const k of kids) {
      const tabs = '\t'.repeat(depth);
      out.push(k.entry && !k.entry.exportable ? `${tabs}[${k.name}]` : `${tabs}${k.name}`);
      for (const s of k.entry?.synonyms ?? []) out.push(`${tabs}\t{${s}}`);
      walk(k, depth + 1);
    }
  };
  walk(root, 0);
  return out.map((l) => l + '\n').join('');
}

// ---------------------------------------------------------------------------- synonyms in files

const EXPORT_SYNONYMS_KEY = 'exportSynonyms';

/** Whether synonyms are written into files with their keyword (Lightroom's "Export Synonyms"); off by default. */
export function exportSynonymsEnabled(ctx: LibraryCtx): boolean {
  const v = prepared(ctx.db, 'SELECT value FROM keyword_settings WHERE key = ?').pluck().get(EXPORT_SYNONYMS_KEY) as string | undefined;
  return v !== undefined && JSON.parse(v) === true;
}

/**
 * The keywords a file gets for an asset's keyword list: the list itself, then, when synonyms
 * are exported, each keyword's synonyms as flat keywords (Lightroom writes them into
 * dc:subject and IPTC Keywords, not into the hierarchy), each once.
 */
export function withSynonyms(ctx: LibraryCtx, keywords: readonly string[]): string[] {
  if (!keywords.length || !exportSynonymsEnabled(ctx)) return [...keywords];
  const byPath = new Map(listVocabulary(ctx).map((e) => [lower(e.path), e]));
  const seen = new Set(keywords.flatMap((k) => k.split('|')).map(lower));
  const out = [...keywords];
  for (const k of keywords) {
    for (const s of byPath.get(lower(k))?.synonyms ?? []) {
      if (seen.has(lower(s))) continue;
      seen.add(lower(s));
      out.push(s);
    }
  }
  return out;
}

/**
 * Keep the vocabulary in step with a rename across the library ('Animals' -> 'Fauna' moves
 * 'Animals|Cat' too); returns what undoes it, or null when no entry changed.
 */
export function renameInVocabulary(ctx: LibraryCtx, from: string, to: string, children: boolean): LibraryUndo | null {
  const rows = readRows(ctx);
  const taken = new Set(rows.map((r) => lower(r.path)));
  const changes: { id: number; next: string; merged: boolean }[] = [];
  for (const r of rows) {
    let next: string | null = null;
    if (lower(r.path) === lower(from)) next = to;
    else if (children && lower(r.path).startsWith(lower(from) + '|')) next = to + r.path.slice(from.length);
    if (next === null || next === r.path) continue;
    // Renamed onto a keyword the vocabulary has: the two become one (the target keeps its synonyms).
    changes.push({ id: r.id, next, merged: taken.has(lower(next)) && lower(next) !== lower(r.path) });
    taken.add(lower(next));
  }
  if (!changes.length) return null;
  // What undo puts back (the rows as they are), read before they change.
  const undo = vocabularyChange(ctx.db, changes.map((c) => c.id));
  for (const c of changes) {
    if (c.merged) deleteVocabularyEntry(ctx.db, c.id);
    else renameVocabularyEntry(ctx.db, c.id, c.next);
  }
  return undo;
}

/** Drop a keyword (and by default its children) from the vocabulary; returns what undoes it, or null when nothing was there. */
export function deleteFromVocabulary(ctx: LibraryCtx, name: string, children: boolean): LibraryUndo | null {
  const going = readRows(ctx)
    .filter((r) => lower(r.path) === lower(name) || (children && lower(r.path).startsWith(lower(name) + '|')))
    .map((r) => r.id);
  if (!going.length) return null;
  // What undo puts back (the entries with their synonyms), read before they go.
  const undo = vocabularyDeletion(ctx.db, going);
  for (const id of going) deleteVocabularyEntry(ctx.db, id);
  return undo;
}
