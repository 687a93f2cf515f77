import type { AssetHistoryLine } from '../../src-preload/contract';
import { assetHistory, deviceId, type HistoryEntry } from '../catalogue/change-log';
import { collectionByUid } from '../catalogue/collections';
import type { LibraryCtx } from './context';
import { prepared } from './db';

// The inspector's History: a photo's changes as a photographer reads them ("Added keyword
// “beach”", "Rating 3 → 5", "Removed from collection “Portfolio”"), newest first, each with who
// made it (this computer, or the studio member the server named) and when. Built from the
// change log (catalogue/change-log.ts), which holds this library's changes and those pulled
// from the studio. A field's earlier value is the one the change before it (by the clock) set.

const LABELS: Record<string, string> = {
  caption: 'Caption',
  title: 'Title',
  rating: 'Rating',
  flag: 'Flag',
  label: 'Colour label',
  headline: 'Headline',
  creator: 'Creator',
  copyright: 'Copyright',
  credit: 'Credit',
  city: 'City',
  country: 'Country',
  editorial: 'Editorial use only',
  releases: 'Releases',
  categories: 'Agency categories',
};

/** Fields shown with their values (short ones); the others say only that they changed. */
const SHOWN = new Set(['rating', 'flag', 'label']);

const q = (s: unknown): string => `“${String(s)}”`;
const empty = (v: unknown): boolean => v === null || v === undefined || v === '' || (Array.isArray(v) && v.length === 0);

function shown(field: string, v: unknown): string {
  if (empty(v) || (field === 'rating' && v === 0)) return 'none';
  if (field === 'rating') return String(v);
  if (field === 'flag') return v === 'pick' ? 'Pick' : v === 'reject' ? 'Rejected' : String(v);
  if (field === 'label') return String(v).charAt(0).toUpperCase() + String(v).slice(1);
  return String(v);
}

function humanField(field: string): string {
  if (LABELS[field]) return LABELS[field];
  const name = field.startsWith('extended.') ? field.slice('extended.'.length) : field;
  // "IntellectualGenre" reads "Intellectual genre".
  const words = name.replace(/^[^:]*:/, '').replace(/([a-z])([A-Z])/g, '$1 $2').replace(/[_.]/g, ' ').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {});

/** A collection's name as this library holds it now (by its studio-wide id, or this library's id). */
function collectionName(ctx: LibraryCtx, v: Obj): string | null {
  const id = typeof v.uid === 'string' ? collectionByUid(ctx.db, v.uid) : typeof v.collection === 'number' ? v.collection : null;
  if (id === null) return null;
  return (prepared(ctx.db, 'SELECT name FROM collections WHERE id = ?').pluck().get(id) as string | undefined) ?? null;
}

/** The file's size and time as the last add, change or move recorded them (a key no field uses). */
const FILE_FACTS = '\0file';

/** A line for the change, or null for one the photographer did not make and would not see (a hash taken after the grid). */
function describe(ctx: LibraryCtx, e: HistoryEntry, before: Map<string, unknown>): string | null {
  const v = e.value;
  const field = e.field ?? '';
  if (e.op === 'asset.add' || e.op === 'asset.change' || e.op === 'asset.move') {
    const facts = `${String(obj(v).size)}:${String(obj(v).mtimeMs)}`;
    const same = before.get(FILE_FACTS) === facts;
    before.set(FILE_FACTS, facts);
    // The content hash arriving after the grid (catalogue/asset-hashes.ts) is recorded as a
    // change of the same size and time: the file did not change.
    if (e.op === 'asset.change' && same) return null;
  }
  if (field === 'keywords') {
    if (e.op === 'add') return `Added keyword ${q(v)}`;
    if (e.op === 'remove') return `Removed keyword ${q(v)}`;
    return 'Keywords put in another order';
  }
  if (field === 'collections') {
    const name = collectionName(ctx, obj(v));
    const which = name === null ? 'a collection since deleted' : `collection ${q(name)}`;
    if (e.op === 'add') return `Added to ${which}`;
    if (e.op === 'remove') return `Removed from ${which}`;
    return `Moved within ${which}`;
  }
  if (field === 'path' && e.op === 'set') {
    const p = obj(v);
    return typeof p.to === 'string' ? `Renamed or moved to ${q(p.to)}` : 'Renamed or moved';
  }
  switch (e.op) {
    case 'suggestion.accept':
      return `Accepted the suggested keyword ${q(obj(v).keyword)}`;
    case 'suggestion.reject':
      return `Rejected the suggested keyword ${q(obj(v).keyword)}`;
    case 'suggestion.reset':
      return `Put the suggested keyword ${q(obj(v).keyword)} back for review`;
    case 'caption.accept':
      return `Accepted a suggested caption as the ${obj(v).as === 'title' ? 'title' : 'caption'}`;
    case 'caption.reject':
      return 'Rejected a suggested caption';
    case 'caption.edit':
      return 'Edited a suggested caption';
    case 'suggestion.add':
      return 'Keywords suggested by a keyword run';
    case 'caption.add':
      return 'A caption suggested by a caption run';
    case 'analysis.quality':
      return 'Quality scored by an analysis run';
    case 'analysis.ugc':
      return 'UGC quality scored by an analysis run';
    case 'analysis.faces':
      return 'Faces counted by an analysis run';
    case 'analysis.colors':
      return 'Colours measured';
    case 'asset.add':
      return 'Added to the library';
    case 'asset.change':
      return 'The file changed on disk and was read again';
    case 'asset.move':
      return 'Found moved on disk';
    case 'asset.vanish':
      return 'The file was missing from its folder';
    case 'asset.remove':
      return 'Removed from the library';
    default:
      break;
  }
  if (e.op === 'set' && field) {
    const name = humanField(field);
    const had = before.has(field) ? before.get(field) : undefined;
    before.set(field, v);
    if (SHOWN.has(field)) return had === undefined ? `${name} set to ${shown(field, v)}` : `${name} ${shown(field, had)} → ${shown(field, v)}`;
    if (empty(v)) return `${name} removed`;
    if (had === undefined || empty(had)) return `${name} added`;
    return `${name} changed`;
  }
  return `${humanField(field || e.op)} changed`;
}

/** A seed entry (what a library held when it joined a studio) carries a clock time in 1970. */
const SEEDED_BEFORE = Date.UTC(1971, 0, 1);

/** A photo's history for the inspector, newest first (at most `limit` lines). */
export function photoHistory(ctx: LibraryCtx, assetId: number, limit = 200): AssetHistoryLine[] {
  const me = deviceId(ctx.db);
  // Oldest first, so a field's earlier value is known when its next change is described.
  const entries = assetHistory(ctx.db, assetId, 10_000).reverse();
  const before = new Map<string, unknown>();
  const lines: AssetHistoryLine[] = [];
  for (const e of entries) {
    const wall = Date.parse(e.at.slice(0, 24));
    const seeded = !Number.isFinite(wall) || wall < SEEDED_BEFORE;
    const what = describe(ctx, e, before);
    if (what === null) continue;
    lines.push({
      at: seeded ? null : new Date(wall).toISOString(),
      by: e.device === me ? 'you' : 'member',
      user: e.author,
      what: e.undo ? `${what} (undo)` : what,
    });
  }
  return lines.reverse().slice(0, Math.max(1, limit));
}
