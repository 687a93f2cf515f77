import type { LibraryCtx } from '../library/context';
import { FileBusy, setFileHold } from '../metadata/file-hold';
import { studioAccountOf } from './account';
import { readMembership } from './membership';
import { volumeAt } from './volumes';

export { FileBusy };

// Writing into a file takes the studio's lease on it (issue 34, point 7): one writer at a time
// across the studio, so two machines never rewrite the same file at the same moment. The
// writer still re-reads the file just before it writes (metadata/file-writer.ts), so what the
// other machine wrote is kept. A private library takes no lease. A member whose studio cannot
// be reached writes anyway: offline-first, and the re-read before the write keeps what another
// machine wrote before (README, "A studio library").

/**
 * How the studio names a photo's file, the key of its lease: the volume and the file's path
 * inside it (`file:vol:ID/PATH`), so two members who have the same shared disk at different
 * mount points (`/Volumes/Archive`, `/mnt/archive`) take the same lease (point 6). A file on no
 * volume this machine has mapped keeps the folder and the path inside it (`file:FOLDER/PATH`).
 */
export function fileLeaseKey(ctx: LibraryCtx, assetId: number): string | null {
  const r = ctx.db.prepare<[number], { folder: string; path: string }>('SELECT f.path AS folder, a.rel_path AS path FROM assets a JOIN folders f ON f.id = a.folder_id WHERE a.id = ?').get(assetId);
  if (!r) return null;
  const at = volumeAt(readMembership(ctx.paths.dataDir)?.volumes ?? [], r.folder);
  if (!at) return `file:${r.folder}/${r.path}`;
  return `file:vol:${at.volume.id}/${at.rel ? `${at.rel}/${r.path}` : r.path}`;
}

/**
 * The lease on the photo's file for as long as it is written: resolves with its release (null
 * when no lease is needed or the studio cannot be reached). Waits up to `waitS` seconds while
 * another member writes it, then throws FileBusy.
 */
export async function holdStudioFile(ctx: LibraryCtx, assetId: number, waitS = 0): Promise<(() => Promise<void>) | null> {
  const account = studioAccountOf(ctx.paths.dataDir);
  if (!account.active()) return null;
  const key = fileLeaseKey(ctx, assetId);
  if (!key) return null;
  const got = await account.lease(key, waitS);
  if (!got) return null;
  if ('busy' in got) throw new FileBusy(got.busy.user, got.busy.device);
  return () => got.lease.release();
}

/** Writers of this process take the studio's lease on a file (a private library's write holds nothing still). */
export function useStudioLeases(): void {
  setFileHold(holdStudioFile);
}
