import type { LibraryCtx } from '../library/context';
import { prepared } from '../library/db';
import { getAssetKeywords } from '../library/keywords';
import { threeWayMerge } from './field-merge';
import { getFileSnapshot, recordFileRead } from './file-state';
import type { ManagedFields } from './managed-fields';
import type { FileMetadata } from './reader';

// What a file holds, as the scan learns it (issue 33: the scan calls one function of the
// metadata engine). The file's fields were read by the reader (reader.ts, with its blocks and
// their reconciliation) while the file was indexed; here, inside the scan's write, the engine
// decides what the library keeps: against what the file held when last read or written
// (file_state, the merge base) it runs the three-way merge, and it records what the file now
// holds. The catalogue's writes of the answer stay the scan's (through src-main/catalogue/).

/** The managed fields, as the library keeps them in the asset's columns. */
export type ColumnFields = Pick<Required<ManagedFields>, 'caption' | 'title' | 'rating' | 'headline' | 'creator' | 'copyright' | 'credit' | 'city' | 'country' | 'label'>;

/** What the library holds for a file just read, as the engine decided it. */
export interface FileReading {
  /** The asset's keywords from now on. */
  keywords: string[];
  /** The managed fields' new values (the merge's), or null: the file facts' own write stands. */
  fields: ColumnFields | null;
  /** The reject flag: true sets it, false clears a reject (a pick stays), undefined leaves it. */
  rejected: boolean | undefined;
}

/** What the file holds for the fields Tagsmith manages (a file without a rating has 0 stars). */
function fileFieldsOf(meta: FileMetadata): Partial<ManagedFields> {
  return {
    keywords: meta.keywords, caption: meta.caption, title: meta.title, rating: meta.rating ?? 0, ...meta.rights,
    label: meta.colorLabel, rejected: meta.rejected,
  };
}

function libraryValues(ctx: LibraryCtx, id: number): ManagedFields {
  const { flag, ...row } = prepared(
    ctx.db,
    'SELECT caption, title, rating, headline, creator, copyright, credit, city, country, color_label AS label, flag FROM assets WHERE id = ?',
  ).get(id) as ColumnFields & { flag: string | null };
  return { ...row, rejected: flag === 'reject', keywords: getAssetKeywords(ctx.db, id) };
}

/**
 * Learn what a file holds: decide what the library keeps of `meta` (what the reader found in
 * the file; `metaRead` false when it could not be read) and record the file's values as the
 * next merge's base. A file already catalogued (`known`) is asked before its row is rewritten:
 * the library's values are read as they were. Call inside the scan's transaction.
 */
export function learnFileRead(ctx: LibraryCtx, assetId: number, meta: FileMetadata, opts: { known: boolean; metaRead: boolean }): FileReading {
  const fileFields = fileFieldsOf(meta);
  if (!opts.known) {
    if (opts.metaRead) recordFileRead(ctx, assetId, fileFields);
    return { keywords: meta.keywords, fields: null, rejected: undefined };
  }
  const base = opts.metaRead ? getFileSnapshot(ctx, assetId) : undefined;
  // A snapshot recorded before the reject was tracked: the file was not known as rejected.
  if (base && base.rejected === undefined) base.rejected = false;
  if (base) {
    const library = libraryValues(ctx, assetId);
    // Another program changed the file: a field changed only in the file takes the file's
    // value, one changed only in the library keeps the library's, and one changed on both
    // sides keeps the library's and is flagged for the user (file_state.conflicts).
    const merge = threeWayMerge(base, fileFields, library);
    const m = merge.merged;
    recordFileRead(ctx, assetId, fileFields, merge.conflicts);
    return {
      keywords: m.keywords ?? library.keywords,
      fields: {
        caption: m.caption ?? null, title: m.title ?? null, rating: m.rating ?? library.rating,
        headline: m.headline ?? null, creator: m.creator ?? null, copyright: m.copyright ?? null,
        credit: m.credit ?? null, city: m.city ?? null, country: m.country ?? null, label: m.label ?? null,
      },
      // Rejected (or un-rejected) in another program, e.g. Lightroom's X: the flag follows.
      rejected: m.rejected,
    };
  }
  // Never compared before (or unreadable metadata): keep everything either side has.
  if (base === null) recordFileRead(ctx, assetId, fileFields);
  return { keywords: [...getAssetKeywords(ctx.db, assetId), ...meta.keywords], fields: null, rejected: meta.rejected ? true : undefined };
}
