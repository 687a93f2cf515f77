import type { LibraryCtx } from '../library/context';

// What must be held while a photo's file is written: for a member of a studio, the studio's
// lease on the file (studio/file-lease.ts registers it; issue 34, point 7). A private library
// holds nothing. Kept here so the writer asks without knowing about studios (layering).

/** Another member of the studio is writing this file now: the write waits its turn. */
export class FileBusy extends Error {
  constructor(
    readonly user: string,
    readonly device: string,
  ) {
    super(`Being written by ${user} on ${device}; will try again.`);
    this.name = 'FileBusy';
  }
}

/** Resolves with the release of what it holds (null: nothing to hold); throws FileBusy after `waitS` seconds of another writer. */
export type FileHold = (ctx: LibraryCtx, assetId: number, waitS?: number) => Promise<(() => Promise<void>) | null>;

let hold: FileHold = () => Promise.resolve(null);

export function setFileHold(h: FileHold): void {
  hold = h;
}

export function holdFile(ctx: LibraryCtx, assetId: number, waitS?: number): Promise<(() => Promise<void>) | null> {
  return hold(ctx, assetId, waitS);
}
