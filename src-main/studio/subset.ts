import { realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { isInside } from '../core/media';
import { StudioError } from './client';
import { readMembership, writeMembership, type StudioSubset } from './membership';

// A laptop's subset of the studio (issue 34, point 3): the folders this replica holds. It pulls
// and applies only the changes of photos inside them, plus everything library-wide (the
// keyword list, presets, collections' definitions); it sends its own changes as any member.
// Widening the subset pulls the studio's log again from the start, so the photos now included
// arrive with everything done to them (the changes it already holds are recognised and not
// applied twice). Narrowing it keeps the photos already here; their changes stop arriving.

/** Whether a file (or a folder) here is inside the subset; no subset: everything is. */
export function inSubset(subset: StudioSubset | null | undefined, path: string): boolean {
  return !subset || subset.folders.some((f) => isInside(path, f));
}

/** The subset folder that holds a path here, or null. */
export function subsetFolderOf(subset: StudioSubset | null | undefined, path: string): string | null {
  return subset?.folders.find((f) => isInside(path, f)) ?? null;
}

function folderHere(path: string): string {
  let real: string;
  try {
    real = realpathSync(resolve(path.trim()));
  } catch {
    throw new StudioError('bad_path', `The folder “${path}” does not exist (or cannot be reached): connect the drive, then choose it again.`);
  }
  if (!statSync(real).isDirectory()) throw new StudioError('bad_path', `“${path}” is a file, not a folder: choose the folders this computer holds.`);
  return real;
}

/**
 * Hold only these folders of the studio here (null: all of it). Returns the subset and whether
 * it grew, in which case the next pull (studio join, sync, or the app's sync) copies the
 * studio's log again from the start for the photos now included.
 */
export function setSubset(dataDir: string, folders: readonly string[] | null): { subset: StudioSubset | null; widened: boolean } {
  const m = readMembership(dataDir);
  if (!m) throw new StudioError('not_member', 'This library is not a member of a studio: join one with tagsmith studio join URL --user NAME.');
  const subset: StudioSubset | null = folders === null ? null : { folders: [...new Set(folders.map(folderHere))] };
  if (subset && !subset.folders.length) throw new StudioError('bad_path', 'Choose at least one folder for this computer to hold, or all of the studio.');
  const had = m.subset ?? null;
  const widened = had !== null && (subset === null || subset.folders.some((f) => !inSubset(had, f)));
  writeMembership(dataDir, { ...m, subset, ...(widened ? { pulledSeq: 0, copying: true } : {}) });
  return { subset, widened };
}
