import type { RenameApi } from '../../src-preload/contract';
import type { LibraryCtx } from '../library/context';
import { previewRename, renameAssets } from '../library/rename';

/** Batch rename (issue 16): the preview of every new name, and the rename itself. */
export function renameMethods(ctx: LibraryCtx): RenameApi {
  return {
    async previewRename(req) {
      return previewRename(ctx, req);
    },
    async renameAssets(req) {
      return renameAssets(ctx, req);
    },
  };
}
