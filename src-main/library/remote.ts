import { hasChange, newestTime, recordRemote, recordSeed, type RemoteChange, type SeedEntry } from '../catalogue/remote-log';
import type { LibraryCtx } from './context';
import { prepared } from './db';
import { readField, writeField, type Field, type Value } from './edits';
import { RIGHTS_FIELDS } from './edits';

// Another studio member's changes applied to this replica, by the studio's conflict rules:
// - a change this library already holds (its device and sequence) is not applied again;
// - a scalar field (caption, title, rating, flag, colour label, rights fields) takes the
//   latest edit by the hybrid logical clock, whichever order the changes arrive in;
// - keywords merge as adds and removes: each keyword of a photo follows its own latest add
//   or remove, so two people adding different keywords both keep theirs.
// Applied changes are recorded in the change log under their own device and time, on no edit
// (undo takes back one's own changes only).

/** The asset a change names, as the member's machine saw it: its folder, its path inside it. */
export interface RemoteAsset {
  folder: string | null;
  path: string | null;
  hash: string | null;
}

export interface IncomingChange extends Omit<RemoteChange, 'assetId'> {
  asset: RemoteAsset | null;
}

export type ApplyOutcome = 'applied' | 'older' | 'duplicate' | 'not_here' | 'not_yet';

const SCALAR = new Set<string>(['caption', 'title', 'rating', 'flag', 'label', ...RIGHTS_FIELDS]);

function findAsset(ctx: LibraryCtx, a: RemoteAsset): number | null {
  if (a.folder === null || a.path === null) return null;
  const row = prepared(ctx.db, 'SELECT a.id FROM assets a JOIN folders f ON f.id = a.folder_id WHERE f.path = ? AND a.rel_path = ? AND a.removed_at IS NULL').get(a.folder, a.path) as { id: number } | undefined;
  return row?.id ?? null;
}

function applyOne(ctx: LibraryCtx, c: IncomingChange, after: number): ApplyOutcome {
  if (hasChange(ctx.db, c.device, c.seq)) return 'duplicate';
  const assetId = c.asset ? findAsset(ctx, c.asset) : null;
  const field = c.field;
  const isKeywordOp = field === 'keywords' && (c.op === 'add' || c.op === 'remove') && typeof c.value === 'string';
  const isScalar = c.op === 'set' && field !== null && SCALAR.has(field);
  if (!isKeywordOp && !isScalar) return 'not_yet';
  if (assetId === null) return 'not_here';
  const newest = newestTime(ctx.db, after, assetId, field!, isKeywordOp ? (c.value as string) : undefined);
  const later = newest === null || c.hlc > newest;
  if (later) {
    if (isKeywordOp) {
      const keyword = c.value as string;
      const had = readField(ctx, assetId, 'keywords') as string[];
      const lower = keyword.toLocaleLowerCase();
      const next = c.op === 'add' ? (had.some((k) => k.toLocaleLowerCase() === lower) ? had : [...had, keyword]) : had.filter((k) => k.toLocaleLowerCase() !== lower);
      if (next !== had) writeField(ctx, assetId, 'keywords', next);
    } else {
      writeField(ctx, assetId, field as Field, c.value as Value);
    }
  }
  // Recorded either way: the log holds every change of the studio this replica has seen, and
  // a change older than one already applied stays beaten by it on every replica.
  recordRemote(ctx.db, { ...c, assetId });
  return later ? 'applied' : 'older';
}

/**
 * Apply changes in one transaction; tells listeners which assets changed. `after`: the change
 * log's position when this library joined (what it did before never reached the studio).
 */
export function applyRemoteChanges(ctx: LibraryCtx, changes: readonly IncomingChange[], after: number): Record<ApplyOutcome, number> {
  const counts: Record<ApplyOutcome, number> = { applied: 0, older: 0, duplicate: 0, not_here: 0, not_yet: 0 };
  const touched = new Set<number>();
  ctx.db.transaction(() => {
    for (const c of changes) {
      const outcome = applyOne(ctx, c, after);
      counts[outcome]++;
      if (outcome === 'applied' && c.asset) {
        const id = findAsset(ctx, c.asset);
        if (id !== null) touched.add(id);
      }
    }
  })();
  if (touched.size) ctx.events.emit('libraryChanged', { reason: 'edit', assetIds: [...touched] });
  return counts;
}

const SEED_COLUMNS = 'id, caption, title, rating, flag, color_label AS label, headline, creator, copyright, credit, city, country, keywords_text';
const SEED_CHUNK = 2000;

/**
 * What a library holds, seeded into its change log as its own changes (see recordSeed), or with
 * `dryRun` only counted (to say before joining what will be shared). Returns how many photos
 * and changes.
 */
export function seedCatalogue(ctx: LibraryCtx, dryRun = false): { photos: number; changes: number } {
  let index = 0;
  let photos = 0;
  let lastId = 0;
  const page = prepared(ctx.db, `SELECT ${SEED_COLUMNS} FROM assets WHERE removed_at IS NULL AND id > ? ORDER BY id LIMIT ${SEED_CHUNK}`);
  for (;;) {
    const rows = page.all(lastId) as Array<Record<string, unknown> & { id: number; keywords_text: string | null }>;
    if (!rows.length) break;
    lastId = rows.at(-1)!.id;
    const entries: SeedEntry[] = [];
    for (const r of rows) {
      const had = entries.length;
      for (const field of SCALAR) {
        const v = r[field];
        if (v !== null && v !== undefined && v !== '' && !(field === 'rating' && v === 0)) entries.push({ assetId: r.id, op: 'set', field, value: v });
      }
      for (const k of r.keywords_text ? r.keywords_text.split('\n') : []) entries.push({ assetId: r.id, op: 'add', field: 'keywords', value: k });
      if (entries.length > had) photos++;
    }
    if (dryRun) index += entries.length;
    else {
      ctx.db.transaction(() => {
        index = recordSeed(ctx.db, entries, index);
      })();
    }
  }
  return { photos, changes: index };
}
