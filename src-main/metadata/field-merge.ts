import { normalizeKeyword } from '../library/keywords';
import { FIELD_NAMES, sameField, type FieldName, type ManagedFields } from './managed-fields';

// The three-way merge a rescan does when another program changed a file Tagsmith manages.
// base: what the file held when Tagsmith last read or wrote it (file_state.fields);
// file: what it holds now; library: what the catalogue holds now.
// A field changed only in the file takes the file's value; changed only in the library keeps
// the library's; changed on both sides to different values is a conflict the user resolves
// (the library's value stays until then). Nothing is dropped silently.

export interface FieldConflict {
  field: FieldName;
  base: unknown;
  file: unknown;
  library: unknown;
}

export interface MergeResult {
  /** The values the library should hold after the merge. */
  merged: Partial<ManagedFields>;
  /** Fields the library takes from the file. */
  fromFile: FieldName[];
  /** Fields changed on both sides to different values (merged keeps the library's). */
  conflicts: FieldConflict[];
}

const key = (k: string): string => normalizeKeyword(k).toLocaleLowerCase();

/**
 * Keywords merge as a set of edits, not as one value: keywords the other program added are
 * appended, keywords it removed are removed, and the library's additions, removals and
 * order stay. Two sides adding different keywords is not a conflict.
 */
export function mergeKeywords(base: readonly string[], file: readonly string[], library: readonly string[]): string[] {
  const inBase = new Set(base.map(key));
  const inFile = new Set(file.map(key));
  const removedInFile = new Set(base.map(key).filter((k) => !inFile.has(k)));
  const out = library.filter((k) => !removedInFile.has(key(k)));
  const have = new Set(out.map(key));
  for (const k of file) {
    if (inBase.has(key(k)) || have.has(key(k))) continue;
    have.add(key(k));
    out.push(k);
  }
  return out;
}

/** Pure: decide each field. A field missing from `base` (never recorded) that differs is a conflict. */
export function threeWayMerge(base: Partial<ManagedFields> | null, file: Partial<ManagedFields>, library: Partial<ManagedFields>): MergeResult {
  const result: MergeResult = { merged: {}, fromFile: [], conflicts: [] };
  const merged = result.merged as Record<FieldName, unknown>;
  const set = (f: FieldName, v: unknown): void => {
    if (v !== undefined) merged[f] = v;
  };
  for (const f of FIELD_NAMES) {
    const b = base?.[f];
    const fv = file[f];
    const lv = library[f];
    if (fv === undefined) {
      set(f, lv);
      continue;
    }
    if (lv === undefined || sameField(f, fv, lv)) {
      // Only the file knows it, or both agree: the library's spelling wins when it has one.
      set(f, lv ?? fv);
      if (lv === undefined && (b === undefined || !sameField(f, b, fv))) result.fromFile.push(f);
      continue;
    }
    if (b === undefined) {
      result.conflicts.push({ field: f, base: null, file: fv, library: lv });
      set(f, lv);
      continue;
    }
    const fileChanged = !sameField(f, b, fv);
    const libraryChanged = !sameField(f, b, lv);
    if (fileChanged && !libraryChanged) {
      set(f, fv);
      result.fromFile.push(f);
    } else if (fileChanged && libraryChanged) {
      if (f === 'keywords') {
        const list = mergeKeywords(b as string[], fv as string[], lv as string[]);
        set(f, list);
        if (!sameField(f, list, lv)) result.fromFile.push(f);
      } else {
        result.conflicts.push({ field: f, base: b, file: fv, library: lv });
        set(f, lv);
      }
    } else {
      set(f, lv);
    }
  }
  return result;
}

const TEXT_FIELDS: readonly FieldName[] = ['caption', 'title', 'headline', 'creator', 'copyright', 'credit', 'city', 'country', 'label'];

/**
 * What a write puts into a file: only what the user changed in the library since the file was
 * last read (`base`), applied to what the file holds NOW (re-read just before the write), so
 * values the catalogue never saw or that another program wrote meanwhile are kept.
 * Keywords merge as edits: the file's list in its order, the user's removals removed, the
 * user's additions appended, foreign keywords kept. A field the user did not change keeps the
 * file's value. Without a base (never recorded) nothing is cleared: the library's values are
 * added to the file's, never put in their place when the library has none.
 */
export function desiredForWrite(base: Partial<ManagedFields> | null, file: ManagedFields & Partial<ManagedFields>, library: ManagedFields): ManagedFields {
  const out: ManagedFields = { ...library };
  const o = out as unknown as Record<string, unknown>;
  const baseKeys = new Set((base?.keywords ?? []).map(key));
  const libKeys = new Set(library.keywords.map(key));
  const removedByUser = base?.keywords ? new Set([...baseKeys].filter((k) => !libKeys.has(k))) : new Set<string>();
  const kept = file.keywords.filter((k) => !removedByUser.has(key(k)));
  const have = new Set(kept.map(key));
  const added = library.keywords.filter((k) => !have.has(key(k)) && !(base?.keywords && baseKeys.has(key(k))));
  out.keywords = [...kept, ...added];
  for (const f of [...TEXT_FIELDS, 'rating', 'rejected'] as FieldName[]) {
    const lv = library[f];
    if (lv === undefined) continue;
    const b = base?.[f];
    // Without a recorded value, a value the library has counts as the user's; an empty one does not.
    const userChanged = b !== undefined ? !sameField(f, b, lv) : f === 'rating' ? lv !== 0 : f === 'rejected' ? lv === true : lv !== null;
    // Not the user's change: the target keeps what it has, even nothing (a value the library
    // read from elsewhere, a RAW's own EXIF or the other of file and sidecar, stays there).
    if (!userChanged) o[f] = file[f];
  }
  return out;
}
