import { dropPresetByName, putPresetRow } from '../catalogue/presets';
import { keywordDeletes, newestNamedTime, vocabularyChangesAfter } from '../catalogue/remote-log';
import { deleteVocabularyPaths, listedPaths, mergeVocabularyEntry, setVocabularyEntry } from '../catalogue/vocabulary';
import type { LibraryCtx } from './context';

// Another studio member's changes to the library's own lists, applied to this replica (the
// dispatch is in remote.ts):
// - metadata presets: saved and deleted by name; the latest save or delete of a name by the
//   hybrid logical clock decides, whichever order they arrive in;
// - the keyword list: an entry added or changed is merged in (synonyms are a set: each member's
//   stay; the export flag is the latest one's); a keyword deleted in the studio is taken out of
//   the list unless an entry for it was added later, and an add older than a delete is not
//   applied. What a delete does to the photos is remote.ts's (refold).

export type LibraryOutcome = 'applied' | 'older' | 'not_yet';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {});
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);

/** A list stored as JSON text (an entry's synonyms); none when it does not read. */
function parsedList(text: string): string[] {
  try {
    return strings(JSON.parse(text));
  } catch {
    return [];
  }
}

/** The changes this file applies. */
export const LIBRARY_LIST_OPS = new Set(['preset.save', 'preset.delete', 'vocabulary.add', 'vocabulary.update', 'vocabulary.restore']);

const PRESET_OPS = ['preset.save', 'preset.delete'];
const VOCABULARY_OPS = ['vocabulary.add', 'vocabulary.update'];

/** Whether the studio deleted keyword `path` (by itself or as a child) after `hlc`. */
function deletedAfter(ctx: LibraryCtx, after: number, path: string, hlc: string): boolean {
  const p = path.toLocaleLowerCase();
  return keywordDeletes(ctx.db, after).some((d) => d.hlc > hlc && (p === d.name.toLocaleLowerCase() || (d.children && p.startsWith(d.name.toLocaleLowerCase() + '|'))));
}

function applyEntry(ctx: LibraryCtx, after: number, hlc: string, path: string, synonyms: string[], exportable: boolean | null): boolean {
  if (deletedAfter(ctx, after, path, hlc)) return false;
  // The export flag is the latest change's: an older one gives only its synonyms.
  const newest = newestNamedTime(ctx.db, after, VOCABULARY_OPS, 'path', path);
  mergeVocabularyEntry(ctx.db, path, synonyms, newest !== null && newest > hlc ? null : exportable);
  return true;
}

/** Apply one change of a preset or of the keyword list (inside the caller's transaction, before it is recorded). */
export function applyLibraryList(ctx: LibraryCtx, op: string, value: unknown, hlc: string, after: number): LibraryOutcome {
  const v = obj(value);
  if (op === 'preset.save' || op === 'preset.delete') {
    const name = typeof v.name === 'string' ? v.name : null;
    if (!name) return 'not_yet';
    const newest = newestNamedTime(ctx.db, after, PRESET_OPS, 'name', name);
    if (newest !== null && newest > hlc) return 'older';
    if (op === 'preset.save') putPresetRow(ctx.db, name, obj(v.fields));
    else dropPresetByName(ctx.db, name);
    return 'applied';
  }
  if (op === 'vocabulary.add' || op === 'vocabulary.update') {
    const path = typeof v.path === 'string' ? v.path : null;
    if (!path) return 'not_yet';
    const exportable = typeof v.exportable === 'boolean' ? v.exportable : null;
    return applyEntry(ctx, after, hlc, path, strings(op === 'vocabulary.add' ? v.synonyms : v.addSynonyms), exportable) ? 'applied' : 'older';
  }
  if (op === 'vocabulary.restore') {
    // Undo of a rename, merge or delete of the list: its entries as they were.
    let any = false;
    for (const e of Array.isArray(v.entries) ? (v.entries as unknown[]).map(obj) : []) {
      if (typeof e.path !== 'string') continue;
      const synonyms = typeof e.synonyms === 'string' ? parsedList(e.synonyms) : strings(e.synonyms);
      any = applyEntry(ctx, after, hlc, e.path, synonyms, e.exportable === 1 || e.exportable === true) || any;
    }
    return any ? 'applied' : 'older';
  }
  return 'not_yet';
}

/**
 * A keyword-list entry the studio deleted at some point, as the studio's changes since leave it:
 * the changes after its latest delete (by the clock) in order, synonyms gathered and the last
 * export flag; none: it stays deleted. The same on every replica whatever order the changes
 * came in. Run once the change that touched it is recorded. False when no delete speaks of it
 * (then the merge in applyLibraryList stands).
 */
export function refoldVocabularyEntry(ctx: LibraryCtx, after: number, path: string): boolean {
  const p = path.toLocaleLowerCase();
  const deleted = keywordDeletes(ctx.db, after)
    .filter((d) => p === d.name.toLocaleLowerCase() || (d.children && p.startsWith(d.name.toLocaleLowerCase() + '|')))
    .at(-1);
  if (!deleted) return false;
  const rows = vocabularyChangesAfter(ctx.db, after, deleted.hlc, path);
  let synonyms: string[] = [];
  let exportable: boolean | null = null;
  for (const r of rows) {
    const v = obj(JSON.parse(r.value));
    const entries = r.op === 'vocabulary.restore' ? (Array.isArray(v.entries) ? (v.entries as unknown[]).map(obj) : []) : [v];
    for (const e of entries) {
      if (typeof e.path !== 'string' || e.path.toLocaleLowerCase() !== p) continue;
      const more = r.op === 'vocabulary.update' ? strings(e.addSynonyms) : typeof e.synonyms === 'string' ? parsedList(e.synonyms) : strings(e.synonyms);
      synonyms = [...synonyms, ...more.filter((s) => !synonyms.some((h) => h.toLocaleLowerCase() === s.toLocaleLowerCase()))];
      if (typeof e.exportable === 'boolean') exportable = e.exportable;
      else if (e.exportable === 0 || e.exportable === 1) exportable = e.exportable === 1;
      else exportable ??= true;
    }
  }
  if (exportable === null) deleteVocabularyPaths(ctx.db, path, false);
  else setVocabularyEntry(ctx.db, path, synonyms, exportable);
  return true;
}

/** Whether a keyword delete names a keyword (its list entries follow once it is recorded: settleKeywordList). */
export function isKeywordDelete(value: unknown): boolean {
  return typeof obj(value).name === 'string';
}

/**
 * Once a change of the keyword list or a keyword delete is recorded: each entry it speaks of as
 * the studio's changes leave it (refoldVocabularyEntry), where a delete speaks of that entry.
 */
export function settleKeywordList(ctx: LibraryCtx, after: number, op: string, value: unknown): void {
  const v = obj(value);
  const paths = new Set<string>();
  if (op === 'vocabulary.add' || op === 'vocabulary.update') {
    if (typeof v.path === 'string') paths.add(v.path);
  } else if (op === 'vocabulary.restore') {
    for (const e of Array.isArray(v.entries) ? (v.entries as unknown[]).map(obj) : []) if (typeof e.path === 'string') paths.add(e.path);
  } else if (op === 'keyword.delete' && typeof v.name === 'string') {
    const name = v.name.toLocaleLowerCase();
    paths.add(v.name);
    for (const r of listedPaths(ctx.db)) if (r.toLocaleLowerCase().startsWith(name + '|') && v.children !== false) paths.add(r);
  }
  for (const p of paths) refoldVocabularyEntry(ctx, after, p);
}
