// Collections (issue 16): manual collections, smart collections (a saved search) and
// collection sets. Types only; contract.ts re-exports every one.
import type { SearchQuery } from './library';

export type CollectionKind = 'manual' | 'smart' | 'set';

/** A smart collection's saved search: any filter of the library; sort and order are the view's. */
export type SmartQuery = Omit<SearchQuery, 'sort' | 'order'>;

export interface CollectionInfo {
  id: number;
  name: string;
  kind: CollectionKind;
  /** The set it is nested in, or null at the top. */
  parentId: number | null;
  parent: string | null;
  /** Photos in it now: members, a smart collection's live matches, a set's collections' photos (each once). */
  count: number;
  /** A smart collection's saved search, else null. */
  query: SmartQuery | null;
}

export interface CollectionsApi {
  /** Every collection and set, sets' children after their set, by name. */
  listCollections(): Promise<CollectionInfo[]>;
  /** A new manual collection, smart collection (with `query`) or set, optionally inside a set. */
  createCollection(args: { name: string; kind: CollectionKind; parentId?: number | null; query?: SmartQuery }): Promise<CollectionInfo>;
  /** Rename, move into another set (null: to the top), or change a smart collection's search. */
  updateCollection(args: { id: number; name?: string; parentId?: number | null; query?: SmartQuery }): Promise<CollectionInfo>;
  /** Delete a collection (a set with everything in it). Photos and files are never touched. */
  deleteCollection(args: { id: number }): Promise<void>;
  /** Add photos to a manual collection, after its last one (one undoable edit); returns how many were new. */
  addToCollection(args: { id: number; ids: number[] }): Promise<{ added: number }>;
  /** Take photos out of a manual collection (one undoable edit); the files are not touched. */
  removeFromCollection(args: { id: number; ids: number[] }): Promise<{ removed: number }>;
  /** Custom order: move `ids` (in this order) just before `beforeId`, or to the end when null (one undoable edit). */
  reorderCollection(args: { id: number; ids: number[]; beforeId: number | null }): Promise<void>;
}
