import type { CollectionsApi } from '../../src-preload/contract';
import * as col from '../library/collections';
import type { LibraryCtx } from '../library/context';

// Collections, smart collections and sets as Api methods; the logic lives in library/collections.ts.

export function collectionMethods(ctx: LibraryCtx): CollectionsApi {
  return {
    async listCollections() {
      return col.listCollections(ctx);
    },
    async createCollection(args) {
      return col.createCollection(ctx, args);
    },
    async updateCollection({ id, ...changes }) {
      return col.updateCollection(ctx, id, changes);
    },
    async deleteCollection({ id }) {
      col.deleteCollection(ctx, id);
    },
    async addToCollection({ id, ids }) {
      return { added: await col.addToCollection(ctx, id, ids) };
    },
    async removeFromCollection({ id, ids }) {
      return { removed: await col.removeFromCollection(ctx, id, ids) };
    },
    async reorderCollection({ id, ids, beforeId }) {
      await col.reorderCollection(ctx, id, ids, beforeId);
    },
  };
}
