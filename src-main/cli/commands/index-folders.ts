import { realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ScanSummary } from '../../../src-preload/contract';
import { ApiError } from '../../core/errors';
import { isInside } from '../../core/media';
import type { LibraryCtx } from '../../library/context';
import { addFolder, listFolders } from '../../library/folders';
import { closeMetadataReader } from '../../metadata/reader';
import { Scanner } from '../../library/scan';
import { CliError, UsageError } from '../args';
import type { Command } from '../command';

/**
 * The library folder for a path: an existing folder it equals or lies inside (rescanned),
 * else a new one. Every path is checked before anything is added, so a typo in the third
 * path does not leave the first two half-done.
 */
function planFolders(ctx: LibraryCtx, paths: string[]): ({ existing: number } | { add: string })[] {
  const plan: ({ existing: number } | { add: string })[] = [];
  const folders = listFolders(ctx);
  for (const p of paths) {
    let real: string;
    try {
      real = realpathSync(resolve(p));
    } catch {
      throw new CliError(`“${resolve(p)}” does not exist (or cannot be reached).`);
    }
    const owner = folders.find((f) => isInside(real, f.path));
    if (owner) plan.push({ existing: owner.id });
    else if (!statSync(real).isDirectory()) throw new CliError(`“${real}” is a file, not a folder. Index the folder that contains it.`);
    else plan.push({ add: real });
  }
  return plan;
}

export const command: Command = {
  name: 'index',
  usage: 'index PATH...',
  summary: 'Add folders to the library (or rescan them if already there) and wait until they are scanned.',
  help: [],
  options: {},
  async run(ctx, { positionals }, out) {
    if (!positionals.length) throw new UsageError('index needs at least one folder PATH.', 'index');
    const plan = planFolders(ctx, positionals);
    const ids: number[] = [];
    for (const step of plan) {
      let id: number;
      if ('existing' in step) id = step.existing;
      else {
        try {
          id = addFolder(ctx, step.add).id;
        } catch (err) {
          if (err instanceof ApiError) throw new CliError(err.message);
          throw err;
        }
      }
      if (!ids.includes(id)) ids.push(id);
    }
    const scanner = new Scanner(ctx);
    const stopProgress = ctx.events.on('scanProgress', (p) =>
      out.progress(p.phase === 'thumbnails' && p.thumbnails
        ? `thumbnails ${p.folderPath}: ${p.thumbnails.done}/${p.thumbnails.total} (all ${p.found} files recorded), ${p.errors} errors`
        : `${p.phase} ${p.folderPath}: ${p.done}/${p.found} files, ${p.errors} errors, ${Math.round(p.filesPerSec)} files/s`),
    );
    const total: ScanSummary = { added: 0, updated: 0, removed: 0, moved: 0, errors: [], cancelled: false };
    try {
      for (const id of ids) {
        const s = await scanner.enqueue(id);
        total.added += s.added;
        total.updated += s.updated;
        total.removed += s.removed;
        total.moved += s.moved;
        total.errors.push(...s.errors);
      }
    } finally {
      stopProgress();
      out.endProgress();
      // exiftool runs as a child process: end it so the CLI exits as soon as it is done.
      await closeMetadataReader();
    }
    const summary = { added: total.added, updated: total.updated, removed: total.removed, moved: total.moved, errors: total.errors };
    out.result(summary, () =>
      [
        `Indexed ${ids.length} folder${ids.length === 1 ? '' : 's'}: ${summary.added} added, ${summary.updated} updated, ${summary.removed} removed, ${summary.moved} moved, ${summary.errors.length} errors.`,
        ...summary.errors.map((e) => `  ${e.path}: ${e.reason}`),
      ].join('\n'),
    );
    return 0;
  },
};
