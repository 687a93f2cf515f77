import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ColorLabel, KeywordCount } from '../../src-preload/contract';
import { ApiError } from '../core/errors';
import { inTurns, turnBudget } from '../core/steps';
import { liveSelection } from './selection';
import { inEditLane } from './edit-lane';
import { EditLogWriter } from './edit-log-writer';
import { setAssetColumn, type ColumnField } from '../catalogue/asset-fields';
import type { FieldChange } from '../catalogue/change-log';
import { logUndoneChanges, markUndone } from '../catalogue/edit-log';
import type { LibraryCtx } from './context';
import { cleanKeywordList, getAssetKeywords, normalizeKeyword, setAssetKeywords } from './keywords';
import { membership, setMembership } from './collection-store';
import { prepared } from './db';
import { binaryCompare, keywordCounts, nocaseCompare } from '../search/tallies';
import { LABEL_NAMES, labelOf } from './labels';
import { undoLibraryChanges } from './library-undo';
import { isRenameEdit, undoRename } from './rename';
import { readStockFields, writeStockField } from './stock-fields';
import { EXTENDED_FIELDS, cleanExtended, readExtended, writeExtended, type ExtendedField, type ExtendedValues } from '../metadata/extended-fields';

// Hand edits. Each one is committed to SQLite before it resolves (a person who saw "saved" never
// loses it), and logged in edits/edit_changes with the value before and after, so undo can put
// back exactly what was there. A large selection is written a chunk of assets at a time, one
// transaction per chunk with turns of the event loop between (select-all and add a keyword never
// freezes the window); the edits of one library run one at a time, undo included, so one edit's
// chunks never mix with another's. An edit logged meanwhile by other code or another process
// makes the rest of the chunked edit a new entry of the log: each asset's changes stay in the
// log's order, so undo stays exact.

/** Stock and rights fields (IPTC Core / XMP), edited like captions. */
export const RIGHTS_FIELDS = ['headline', 'creator', 'copyright', 'credit', 'city', 'country'] as const;
export type RightsField = (typeof RIGHTS_FIELDS)[number];
/** Agency fields (issue 19) live in asset_stock: editorial 0/1, releases and 'agency:value' categories as lists. */
const STOCK_FIELDS = ['editorial', 'releases', 'categories'] as const;
type StockField = (typeof STOCK_FIELDS)[number];
/** A manual collection's membership (issue 16): the value is the asset's place in its order, or null when not in it. */
type CollectionField = `collection:${number}`;
export type Field = 'keywords' | 'caption' | 'title' | 'rating' | 'flag' | 'label' | 'extended' | RightsField | StockField | CollectionField;
export type Value = string[] | string | number | ExtendedValues | null;


interface Change {
  assetId: number;
  field: Field;
  old: Value;
  new: Value;
}

const quote = (s: string): string => `“${s}”`;
const quoteList = (list: string[]): string => list.map(quote).join(', ');

/** "3 photos", "1 video", "2 files": what a person calls the things they edited. */
function countNoun(ctx: LibraryCtx, ids: number[]): string {
  const kinds = new Set<string>();
  const kindOf = prepared(ctx.db, 'SELECT kind FROM assets WHERE id = ?');
  for (const id of ids.slice(0, 1000)) kinds.add((kindOf.get(id) as { kind: string }).kind);
  const noun = kinds.size === 1 ? (kinds.has('image') ? 'photo' : kinds.has('video') ? 'video' : 'audio file') : 'file';
  return `${ids.length} ${noun}${ids.length === 1 ? '' : 's'}`;
}


/** Write one field of one asset (keywords through the keyword store, the rest directly). */
const isStockField = (f: Field): f is StockField => (STOCK_FIELDS as readonly string[]).includes(f);
const collectionOf = (f: Field): number | null => (f.startsWith('collection:') ? Number(f.slice('collection:'.length)) : null);

export function writeField(ctx: LibraryCtx, assetId: number, field: Field, value: Value): Value {
  if (field === 'keywords') return setAssetKeywords(ctx.db, assetId, value as string[]);
  if (field === 'extended') {
    writeExtended(ctx.db, assetId, cleanExtended(value));
    return readExtended(ctx.db, assetId);
  }
  const collection = collectionOf(field);
  if (collection !== null) {
    setMembership(ctx.db, collection, assetId, value as number | null);
    return value;
  }
  if (isStockField(field)) {
    writeStockField(ctx.db, assetId, field, field === 'editorial' ? value === 1 : (value as string[]));
    return value;
  }
  setAssetColumn(ctx.db, assetId, field as ColumnField, value as string | number | null);
  return value;
}

export function readField(ctx: LibraryCtx, assetId: number, field: Field): Value {
  if (field === 'keywords') return getAssetKeywords(ctx.db, assetId);
  if (field === 'extended') return readExtended(ctx.db, assetId);
  const collection = collectionOf(field);
  if (collection !== null) return membership(ctx.db, collection, assetId);
  if (isStockField(field)) {
    const stock = readStockFields(ctx.db, assetId);
    return field === 'editorial' ? (stock.editorial ? 1 : 0) : stock[field];
  }
  const row = prepared(
    ctx.db,
    'SELECT caption, title, rating, flag, color_label AS label, headline, creator, copyright, credit, city, country FROM assets WHERE id = ?',
  ).get(assetId) as Record<string, Value>;
  return row[field];
}

const same = (a: Value, b: Value): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * Apply `next(old)` to `field` of every asset, log what changed, commit, then tell listeners.
 * Assets whose value does not change are not logged; an edit that changes nothing is not
 * logged at all (so undo never "undoes" a no-op).
 */
function applyEdit(ctx: LibraryCtx, ids: number[], field: Field, next: (old: Value) => Value, description: string): Promise<number> {
  return applyFields(ctx, ids, [[field, next]], description);
}

/**
 * Several fields at once, as ONE undoable edit (a metadata preset), a turn's budget of assets
 * per transaction (EditLogWriter keeps the log exact whatever runs between them). Returns how
 * many assets changed. Listeners hear of every asset that changed, also when a later chunk
 * fails (what was committed stays, and undo reverts it).
 */
async function applyFields(ctx: LibraryCtx, ids: number[], fields: [Field, (old: Value, assetId: number) => Value][], description: string): Promise<number> {
  const log = new EditLogWriter(ctx, description);
  /** Edit the assets from `from` on while the turn's budget lasts; returns where it stopped. */
  const chunk = ctx.db.transaction((from: number, more: () => boolean): number => {
    const changes: Change[] = [];
    let i = from;
    do {
      const assetId = ids[i++];
      for (const [field, next] of fields) {
        const old = readField(ctx, assetId, field);
        const wanted = next(old, assetId);
        if (same(old, wanted)) continue;
        const stored = writeField(ctx, assetId, field, wanted);
        if (same(old, stored)) continue;
        changes.push({ assetId, field, old, new: stored });
      }
    } while (i < ids.length && more());
    log.add(changes);
    return i;
  });
  try {
    await inTurns(ids.length, chunk);
  } finally {
    log.announce();
  }
  return log.changed.size;
}

/**
 * Change the membership of live assets in a manual collection as ONE undoable edit, like any
 * other organising edit: `place(old, assetId)` gives an asset's new place in the collection's
 * order (null: out of it). Returns how many assets changed. Call it inside inEditLane, after
 * the reads that decided the places.
 */
export async function editMembership(
  ctx: LibraryCtx,
  collectionId: number,
  ids: readonly number[],
  place: (old: number | null, assetId: number) => number | null,
  description: (count: string) => string,
): Promise<number> {
  const live = await liveSelection(ctx, ids); // before anything reads the ids: a missing one is "not found"
  return applyFields(ctx, live, [[`collection:${collectionId}`, (old, assetId) => place(old as number | null, assetId)]], description(countNoun(ctx, live)));
}

/** "3 photos", "1 video": for the descriptions of edits made elsewhere in the library. */
export const describeCount = countNoun;

/**
 * Set stock and rights fields (headline, creator, copyright, credit, city, country) on several
 * assets as one undoable edit; a field given as null or blank is cleared, one left out is kept.
 */
export function setRightsFields(
  ctx: LibraryCtx,
  ids: number[],
  fields: Partial<Record<RightsField | ExtendedField, string | null>>,
  description?: string,
  addKeywords: readonly string[] = [],
): Promise<void> {
  return inEditLane(ctx, async () => {
    const live = await liveSelection(ctx, ids);
    const entries = rightsEntries(fields);
    const adding = cleanKeywordList(addKeywords);
    // Keywords to add (a template's): appended to each asset's own, none removed.
    if (adding.length) entries.push(['keywords', (old) => cleanKeywordList([...(old as string[]), ...adding])]);
    if (!entries.length) return;
    const names = [...RIGHTS_FIELDS, ...EXTENDED_FIELDS].filter((f) => fields[f] !== undefined).join(', ');
    await applyFields(ctx, live, entries, description ?? `set ${names} of ${countNoun(ctx, live)}`);
  });
}

/** One edit entry per rights column given, and one for all the extended fields given (a blank or null one is cleared). */
function rightsEntries(fields: Partial<Record<RightsField | ExtendedField, string | null>>): [Field, (old: Value) => Value][] {
  const entries = RIGHTS_FIELDS.filter((f) => fields[f] !== undefined).map((f): [Field, (old: Value) => Value] => {
    const text = cleanText(fields[f] ?? null);
    return [f, () => text];
  });
  const extended = EXTENDED_FIELDS.filter((f) => fields[f] !== undefined);
  if (extended.length) {
    entries.push([
      'extended',
      (old) => {
        const next: ExtendedValues = { ...(old as ExtendedValues) };
        for (const f of extended) {
          const text = cleanText(fields[f] ?? null);
          if (text === null) delete next[f];
          else next[f] = text;
        }
        return cleanExtended(next);
      },
    ]);
  }
  return entries;
}

/**
 * Set agency fields on several assets as one undoable edit: the editorial flag, release names
 * (replacing the list), and one agency's categories (replacing that agency's, keeping others').
 */
export function setStockFields(
  ctx: LibraryCtx,
  ids: number[],
  fields: { editorial?: boolean; releases?: string[]; categories?: { agency: string; values: string[] } },
): Promise<void> {
  return inEditLane(ctx, async () => {
    const live = await liveSelection(ctx, ids);
    const entries: [Field, (old: Value) => Value][] = [];
    const what: string[] = [];
    if (fields.editorial !== undefined) {
      entries.push(['editorial', () => (fields.editorial ? 1 : 0)]);
      what.push(fields.editorial ? 'mark as editorial' : 'mark as commercial');
    }
    if (fields.releases !== undefined) {
      const names = [...new Set(fields.releases.map((r) => r.normalize('NFC').trim()).filter(Boolean))];
      entries.push(['releases', () => names]);
      what.push(names.length ? `set releases ${quoteList(names)}` : 'clear the releases');
    }
    if (fields.categories !== undefined) {
      const { agency, values } = fields.categories;
      const prefix = `${agency}:`;
      const mine = [...new Set(values.map((v) => v.trim()).filter(Boolean))].map((v) => prefix + v);
      entries.push(['categories', (old) => [...(old as string[]).filter((c) => !c.startsWith(prefix)), ...mine]]);
      what.push(mine.length ? `set the ${agency} category to ${quoteList(values)}` : `clear the ${agency} category`);
    }
    if (!entries.length) return;
    await applyFields(ctx, live, entries, `${what.join(', ')} of ${countNoun(ctx, live)}`);
  });
}

const lower = (s: string): string => normalizeKeyword(s).toLocaleLowerCase();

export function editKeywords(ctx: LibraryCtx, ids: number[], add: string[], remove: string[]): Promise<void> {
  return inEditLane(ctx, async () => {
    const live = await liveSelection(ctx, ids);
    const adding = cleanKeywordList(add);
    const removing = new Set(cleanKeywordList(remove).map(lower));
    const toAdd = adding.filter((k) => !removing.has(lower(k)));
    if (!toAdd.length && !removing.size) return;
    const what = countNoun(ctx, live);
    const parts: string[] = [];
    if (toAdd.length) parts.push(`add keyword${toAdd.length > 1 ? 's' : ''} ${quoteList(toAdd)}`);
    if (removing.size) {
      const removed = cleanKeywordList(remove);
      parts.push(`remove keyword${removed.length > 1 ? 's' : ''} ${quoteList(removed)}`);
    }
    const description = toAdd.length && !removing.size ? `${parts[0]} to ${what}` : !toAdd.length ? `${parts[0]} from ${what}` : `${parts.join(' and ')} on ${what}`;
    await applyEdit(ctx, live, 'keywords', (old) => {
      // Existing order kept, removals case-insensitive, new keywords appended (de-duplicated
      // case-insensitively by setAssetKeywords' cleaning: the existing spelling stays).
      const kept = (old as string[]).filter((k) => !removing.has(lower(k)));
      return cleanKeywordList([...kept, ...toAdd]);
    }, description);
  });
}

/**
 * Take different keywords off each asset as ONE undoable edit (Check & export's "too many
 * keywords" fixed on many photos at once: each loses its own keywords past the agency's
 * maximum). Removals are case-insensitive; the order of the rest is kept.
 */
export function removeKeywordsEach(ctx: LibraryCtx, removals: readonly { id: number; remove: string[] }[]): Promise<void> {
  return inEditLane(ctx, async () => {
    const byId = new Map<number, Set<string>>();
    for (const r of removals) {
      const set = byId.get(r.id) ?? new Set<string>();
      for (const k of cleanKeywordList(r.remove)) set.add(lower(k));
      byId.set(r.id, set);
    }
    const live = await liveSelection(ctx, [...byId.keys()]);
    const count = [...byId.values()].reduce((n, set) => n + set.size, 0);
    if (!count) return;
    await applyFields(
      ctx,
      live,
      [['keywords', (old, assetId) => (old as string[]).filter((k) => !byId.get(assetId)?.has(lower(k)))]],
      `remove ${count} keyword${count === 1 ? '' : 's'} from ${countNoun(ctx, live)}`,
    );
  });
}

export function setKeywords(ctx: LibraryCtx, id: number, keywords: string[]): Promise<void> {
  return inEditLane(ctx, async () => {
    const [assetId] = await liveSelection(ctx, [id]);
    const list = cleanKeywordList(keywords);
    const name = (prepared(ctx.db, 'SELECT name FROM assets WHERE id = ?').get(assetId) as { name: string }).name;
    await applyEdit(ctx, [assetId], 'keywords', () => list, `set the keywords of ${quote(name)}`);
  });
}

function cleanText(value: string | null): string | null {
  const text = value === null ? null : value.normalize('NFC').trim();
  return text ? text : null;
}

export function setCaption(ctx: LibraryCtx, ids: number[], caption: string | null): Promise<void> {
  return inEditLane(ctx, async () => {
    const live = await liveSelection(ctx, ids);
    const text = cleanText(caption);
    const what = countNoun(ctx, live);
    await applyEdit(ctx, live, 'caption', () => text, text === null ? `clear the caption of ${what}` : `set the caption of ${what}`);
  });
}

export function setTitle(ctx: LibraryCtx, ids: number[], title: string | null): Promise<void> {
  return inEditLane(ctx, async () => {
    const live = await liveSelection(ctx, ids);
    const text = cleanText(title);
    const what = countNoun(ctx, live);
    await applyEdit(ctx, live, 'title', () => text, text === null ? `clear the title of ${what}` : `set the title of ${what}`);
  });
}

export async function setRating(ctx: LibraryCtx, ids: number[], rating: number): Promise<void> {
  if (!Number.isInteger(rating) || rating < 0 || rating > 5) {
    throw new ApiError('validation', 'A rating is a whole number of stars from 0 to 5.', 'rating');
  }
  return inEditLane(ctx, async () => {
    const live = await liveSelection(ctx, ids);
    const what = countNoun(ctx, live);
    const description = rating === 0 ? `clear the rating of ${what}` : `rate ${what} ${rating} star${rating === 1 ? '' : 's'}`;
    await applyEdit(ctx, live, 'rating', () => rating, description);
  });
}

/**
 * Set the colour label of several assets (null clears it) as one undoable edit. The catalogue
 * stores Lightroom's name ('Red'), which is what the file gets as xmp:Label; an asset that
 * already has that label in another spelling ('red') keeps its spelling.
 */
export function setLabel(ctx: LibraryCtx, ids: number[], label: ColorLabel | null): Promise<void> {
  return inEditLane(ctx, async () => {
    const live = await liveSelection(ctx, ids);
    const what = countNoun(ctx, live);
    const name = label === null ? null : LABEL_NAMES[label];
    await applyEdit(
      ctx,
      live,
      'label',
      (old) => (label !== null && labelOf(old as string | null) === label ? old : name),
      label === null ? `clear the colour label of ${what}` : `label ${what} ${label}`,
    );
  });
}

/**
 * Revert the most recent edit not yet undone; returns "Undo: <what it was>", or null. Its
 * changes are put back a chunk at a time, first to last; it is marked undone with the last
 * chunk. An edit logged meanwhile by other code or another process stops the undo where it is
 * (what was put back stays; undo again finishes it once the newer edit is undone).
 */
export function undo(ctx: LibraryCtx): Promise<string | null> {
  return inEditLane(ctx, () => undoNow(ctx));
}

interface LoggedEdit {
  id: number;
  description: string;
  library_undo: string | null;
}

const newestEdit = (ctx: LibraryCtx): LoggedEdit | undefined =>
  prepared(ctx.db, 'SELECT id, description, library_undo FROM edits WHERE undone = 0 ORDER BY id DESC LIMIT 1').get() as LoggedEdit | undefined;

/**
 * What undo puts back in a field: its value before the edit; for keywords changed since (by a
 * studio member, whose changes are not on this undo stack), only the edit's own adds and
 * removes are taken back, so theirs stay.
 */
function undoneValue(ctx: LibraryCtx, assetId: number, field: Field, old: Value, edited: Value): { before: Value; old: Value } {
  if (field !== 'keywords' || !Array.isArray(old) || !Array.isArray(edited)) return { before: edited, old };
  const now = readField(ctx, assetId, 'keywords') as string[];
  if (now.length === edited.length && now.every((k, i) => k === edited[i])) return { before: edited, old };
  const key = (k: string) => k.toLocaleLowerCase();
  const added = new Set(edited.filter((k) => !old.some((o) => key(o) === key(k))).map(key));
  const removed = old.filter((k) => !edited.some((e) => key(e) === key(k)));
  const back = now.filter((k) => !added.has(key(k)));
  for (const k of removed) if (!back.some((b) => key(b) === key(k))) back.push(k);
  return { before: now, old: back };
}

async function undoNow(ctx: LibraryCtx): Promise<string | null> {
  const latest = newestEdit(ctx);
  if (!latest) return null;
  if (isRenameEdit(ctx, latest.id)) {
    // A rename is undone by moving the files back (journaled like the rename itself).
    const r = await undoRename(ctx, latest.id);
    if (r.failed.length) {
      const f = r.failed[0];
      throw new ApiError('io', `Undo moved ${r.renamed.length} file(s) back, but ${r.failed.length} could not be (${f.path}: ${f.reason}). Fix that and undo again.`);
    }
    return `Undo: ${latest.description}`;
  }
  const assetIds: number[] = [];
  let libraryChanged = false;
  let after = 0; // the rowid of the last change put back
  const PAGE = 20;
  let state: 'going' | 'done' | 'overtaken' = 'going';
  const page = prepared(ctx.db, 'SELECT rowid, asset_id, field, old_value, new_value FROM edit_changes WHERE edit_id = ? AND rowid > ? ORDER BY rowid LIMIT ?');
  /** Put changes back while the turn's budget lasts. */
  const chunk = ctx.db.transaction((more: () => boolean) => {
    if (newestEdit(ctx)?.id !== latest.id) {
      state = 'overtaken';
      return;
    }
    // The library first (a deleted collection back before its memberships are touched).
    if (first) libraryChanged = undoLibraryChanges(ctx, latest.id, latest.library_undo);
    // What is put back is a change of its own in the change log (the edit's values reversed).
    const putBack: FieldChange[] = [];
    const putBackWhileBudget = (): void => {
      for (;;) {
        const changes = page.all(latest.id, after, PAGE) as { rowid: number; asset_id: number; field: Field; old_value: string; new_value: string }[];
        for (const c of changes) {
          const { before, old } = undoneValue(ctx, c.asset_id, c.field, JSON.parse(c.old_value) as Value, JSON.parse(c.new_value) as Value);
          writeField(ctx, c.asset_id, c.field, old);
          putBack.push({ assetId: c.asset_id, field: c.field, old: before, new: old });
          assetIds.push(c.asset_id);
          after = c.rowid;
          if (!more()) return;
        }
        if (changes.length < PAGE) {
          markUndone(ctx.db, latest.id);
          state = 'done';
          return;
        }
      }
    };
    putBackWhileBudget();
    logUndoneChanges(ctx.db, latest.id, putBack);
  });
  let first = true;
  try {
    for (; state === 'going'; first = false) {
      if (!first) await nextTurn();
      chunk(turnBudget());
    }
  } finally {
    if (assetIds.length) ctx.events.emit('libraryChanged', { reason: 'edit', assetIds });
    else if (libraryChanged) ctx.events.emit('libraryChanged', { reason: 'edit' });
  }
  if (state === 'overtaken') {
    throw new ApiError(
      'conflict',
      `Undo of “${latest.description}” stopped after ${assetIds.length} change(s): another edit was saved meanwhile. Undo again to undo that edit, then this one.`,
    );
  }
  return `Undo: ${latest.description}`;
}

/** Keywords in use on live assets, most used first; `prefix` matches case-insensitively (autocomplete). */
export function listKeywords(ctx: LibraryCtx, prefix?: string, limit = 50, ids?: readonly number[]): KeywordCount[] {
  if (ids) return keywordsOf(ctx, ids, prefix, limit);
  const p = prefix ? normalizeKeyword(prefix) : '';
  // LIKE with the wildcards of the user's text escaped: a prefix match, never a pattern.
  // SQLite's LIKE folds ASCII case only, so a non-ASCII prefix is matched in JS below.
  const ascii = /^[\x20-\x7e]*$/.test(p);
  const pattern = ascii ? p.replace(/[\\%_]/g, (c) => '\\' + c) + '%' : '%';
  const max = Math.max(1, Math.min(limit, 10_000));
  const named = (): { id: number; name: string }[] => prepared(ctx.db, `SELECT id, name FROM keywords WHERE name LIKE ? ESCAPE '\\' ORDER BY id`).all(pattern) as { id: number; name: string }[];
  const counted = keywordCounts(ctx, named)?.sort((a, b) => b.count - a.count || nocaseCompare(a.name, b.name) || binaryCompare(a.name, b.name));
  const rows =
    counted?.slice(0, ascii ? max : undefined) ??
    (prepared(
      ctx.db,
      `SELECT k.name AS name, count(*) AS count FROM keywords k
       JOIN asset_keywords ak ON ak.keyword_id = k.id
       JOIN assets a ON a.id = ak.asset_id AND a.removed_at IS NULL
       WHERE k.name LIKE ? ESCAPE '\\'
       GROUP BY k.id ORDER BY count DESC, k.name COLLATE NOCASE, k.name LIMIT ?`,
    ).all(pattern, ascii ? max : -1) as KeywordCount[]);
  if (ascii) return rows;
  const want = p.toLocaleLowerCase();
  return rows.filter((r) => r.name.toLocaleLowerCase().startsWith(want)).slice(0, max);
}

/**
 * How many of `ids` carry each keyword, in one read however many photos are selected (the
 * keyword list's assign boxes: all, some or none of the photos the panel edits).
 */
function keywordsOf(ctx: LibraryCtx, ids: readonly number[], prefix: string | undefined, limit: number): KeywordCount[] {
  const want = prefix ? normalizeKeyword(prefix).toLocaleLowerCase() : '';
  const rows = prepared(
    ctx.db,
    `SELECT k.name AS name, count(*) AS count FROM (SELECT DISTINCT value AS id FROM json_each(?)) s
     JOIN asset_keywords ak ON ak.asset_id = s.id
     JOIN assets a ON a.id = s.id AND a.removed_at IS NULL
     JOIN keywords k ON k.id = ak.keyword_id
     GROUP BY k.id ORDER BY count DESC, k.name COLLATE NOCASE, k.name`,
  ).all(JSON.stringify(ids)) as KeywordCount[];
  return rows.filter((r) => !want || r.name.toLocaleLowerCase().startsWith(want)).slice(0, Math.max(1, Math.min(limit, 10_000)));
}
