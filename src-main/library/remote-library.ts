import { dropPresetByName, putPresetRow } from '../catalogue/presets';
import { keywordDeletes, newestNamedTime } from '../catalogue/remote-log';
import { deleteVocabularyPaths, mergeVocabularyEntry } from '../catalogue/vocabulary';
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

/** A keyword deleted in the studio, taken out of this keyword list (entries added after it stay). */
export function applyKeywordDeleteToList(ctx: LibraryCtx, value: unknown, hlc: string, after: number): boolean {
  const v = obj(value);
  if (typeof v.name !== 'string') return false;
  const newest = newestNamedTime(ctx.db, after, VOCABULARY_OPS, 'path', v.name);
  if (newest === null || newest < hlc) deleteVocabularyPaths(ctx.db, v.name, v.children !== false);
  return true;
}
