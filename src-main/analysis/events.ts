import type { LibraryCtx } from '../library/context';

/** Measurements of these assets changed: views re-query (the renderer listens to libraryChanged). */
export function measured(ctx: LibraryCtx, assetIds: number[]): void {
  if (assetIds.length) ctx.events.emit('libraryChanged', { reason: 'edit', assetIds });
}
