import type { Operation } from '../catalogue/change-log';
import { respellKeyword } from '../catalogue/asset-fields';
import { logOperations } from '../catalogue/edit-log';
import { ApiError } from '../core/errors';
import type { LibraryCtx } from '../library/context';
import { getAssetKeywords, pruneUnusedKeywords } from '../library/keywords';
import { prepared } from '../library/db';
import { keywordCounts } from '../search/tallies';
import { deleteFromVocabulary, listVocabulary, renameInVocabulary, type VocabularyEntry } from '../library/keyword-list';
import { attachLibraryUndo, logLibraryEdit, type LibraryUndo } from '../library/library-undo';
import { EditLogWriter } from '../library/edit-log-writer';
import { inEditLane } from '../library/edit-lane';
import { countNoun, quote, writeInTurns } from './edit-log';
import { cleanKeyword } from './hygiene';
import type { LibraryKeyword, VocabularyEditResult } from '../../src-preload/contract';

export type { LibraryKeyword, VocabularyEditResult };

// The library-wide keyword list: counts, hierarchy, and rename / merge / delete across every
// asset, each one undoable edit. Hierarchical keywords are stored whole ('Animals|Cat', the
// way Lightroom writes lr:hierarchicalSubject); renaming or deleting a parent carries its
// children along.

const lower = (s: string): string => s.toLocaleLowerCase();

/** Every keyword in use on live assets with its count, hierarchies sorted under their parents. */
/** The keyword panel's order: by name, case and accents aside, as the user reads it. */
const byName = new Intl.Collator(undefined, { sensitivity: 'base' });

export function listLibraryKeywords(ctx: LibraryCtx): LibraryKeyword[] {
  const rows =
    keywordCounts(ctx, () => prepared(ctx.db, 'SELECT id, name FROM keywords ORDER BY id').all() as { id: number; name: string }[]) ??
    (prepared(
      ctx.db,
      `SELECT k.name AS name, count(*) AS count FROM keywords k
       JOIN asset_keywords ak ON ak.keyword_id = k.id JOIN assets a ON a.id = ak.asset_id AND a.removed_at IS NULL
       GROUP BY k.id ORDER BY k.id`,
    ).all() as { name: string; count: number }[]);
  // The vocabulary (an imported keyword list) adds its synonyms, and its keywords no photo carries yet.
  const vocab = new Map(listVocabulary(ctx).map((e) => [lower(e.path), e]));
  const out: LibraryKeyword[] = rows.map((r) => ({ ...r, path: r.name.split('|') }));
  for (const k of out) {
    const e = vocab.get(lower(k.name));
    vocab.delete(lower(k.name));
    if (e) Object.assign(k, vocabularyExtras(e));
  }
  for (const e of vocab.values()) out.push({ name: e.path, count: 0, path: e.path.split('|'), ...vocabularyExtras(e) });
  return out.sort((a, b) => byName.compare(a.name, b.name));
}

function vocabularyExtras(e: VocabularyEntry): Pick<LibraryKeyword, 'synonyms' | 'notExported'> {
  return { ...(e.synonyms.length ? { synonyms: e.synonyms } : {}), ...(e.exportable ? {} : { notExported: true }) };
}

/** Does `k` name `word` itself, or (with children) one of its descendants? */
const matches = (k: string, word: string, children: boolean): boolean => lower(k) === lower(word) || (children && lower(k).startsWith(lower(word) + '|'));

function assetsWith(ctx: LibraryCtx, words: readonly string[], children: boolean): number[] {
  const names = prepared(ctx.db, 'SELECT id, name FROM keywords').all() as { id: number; name: string }[];
  const ids = names.filter((n) => words.some((w) => matches(n.name, w, children))).map((n) => n.id);
  const q = prepared(ctx.db, 'SELECT ak.asset_id FROM asset_keywords ak JOIN assets a ON a.id = ak.asset_id AND a.removed_at IS NULL WHERE ak.keyword_id = ?');
  const out = new Set<number>();
  for (const id of ids) for (const a of q.pluck().all(id) as number[]) out.add(a);
  return [...out].sort((a, b) => a - b);
}

/**
 * Map the keywords of every asset as ONE undoable edit, a turn's budget of photos per
 * transaction. `before` changes the keyword list in the first chunk and returns its undo,
 * which goes with the edit's first entry in the log.
 */
async function applyAcross(
  ctx: LibraryCtx,
  assetIds: number[],
  map: (list: string[]) => string[],
  description: (what: string) => string,
  op: Operation,
  before?: () => LibraryUndo | null | void,
): Promise<VocabularyEditResult> {
  if (!assetIds.length) {
    // A keyword only the keyword list holds (imported, on no photo yet): only the list changes.
    const listed = new Set(listVocabulary(ctx).map((e) => e.path));
    const text = description('the keyword list');
    ctx.db.transaction(() => {
      const undo = before?.();
      if (undo) logLibraryEdit(ctx.db, text, [undo], [op]);
    })();
    const after = listVocabulary(ctx).map((e) => e.path);
    if (after.length === listed.size && after.every((p) => listed.has(p))) return { description: null, assetIds: [] };
    ctx.events.emit('libraryChanged', { reason: 'edit', assetIds: [] });
    return { description: text, assetIds: [] };
  }
  const text = description(countNoun(ctx, assetIds));
  const log = new EditLogWriter(ctx, text);
  let first = true;
  let recorded = false;
  try {
    await writeInTurns(ctx, assetIds, log, (assetId) => {
      if (first) {
        first = false;
        // The keyword-list entries changed with it come back with the same undo; the change
        // log has the keyword operation itself first, then each photo's keywords.
        const undo = before?.();
        if (undo) {
          attachLibraryUndo(ctx.db, log.row(), [undo], [op]);
          recorded = true;
        }
      }
      return [{ assetId, field: 'keywords', value: map(getAssetKeywords(ctx.db, assetId)) }];
    });
    pruneUnusedKeywords(ctx.db);
    // No keyword-list entry changed: the operation goes with the edit once photos changed.
    const editId = log.firstRow();
    if (!recorded && editId !== null) logOperations(ctx.db, editId, [op]);
  } finally {
    log.announce();
  }
  const changed = [...log.changed];
  return { description: changed.length ? text : null, assetIds: changed };
}

function required(word: string, field: string): string {
  const k = cleanKeyword(word);
  if (!k) throw new ApiError('validation', 'A keyword cannot be empty.', field);
  return k;
}

/**
 * Rename a keyword on every asset (and, by default, the children of a hierarchy: 'Animals'
 * -> 'Fauna' turns 'Animals|Cat' into 'Fauna|Cat'). The new spelling is used everywhere,
 * also where the target word already existed in another casing; an asset holding both ends
 * up with one, in the place of the first.
 */
export function renameKeyword(ctx: LibraryCtx, from: string, to: string, opts: { children?: boolean } = {}): Promise<VocabularyEditResult> {
  return inEditLane(ctx, async () => {
    const a = required(from, 'from');
    const b = required(to, 'to');
    const children = opts.children !== false;
    if (a === b) return { description: null, assetIds: [] };
    const ids = assetsWith(ctx, [a, b], children);
    const map = (list: string[]): string[] => {
      const out: string[] = [];
      const seen = new Set<string>();
      for (const k of list) {
        let next = k;
        if (lower(k) === lower(a) || lower(k) === lower(b)) next = b;
        else if (children && lower(k).startsWith(lower(a) + '|')) next = b + k.slice(a.length);
        else if (children && lower(k).startsWith(lower(b) + '|')) next = b + k.slice(b.length);
        if (seen.has(lower(next))) continue;
        seen.add(lower(next));
        out.push(next);
      }
      return out;
    };
    // The vocabulary is case-insensitive for ASCII: re-spell an existing row so the new
    // casing is what every asset stores (otherwise the old spelling would be found and kept).
    // The keyword list follows, on the same undo.
    const respell = (): LibraryUndo | null => {
      respellKeyword(ctx.db, b, b);
      if (lower(a) === lower(b)) respellKeyword(ctx.db, a, b);
      return renameInVocabulary(ctx, a, b, children);
    };
    const merging = ids.length > 0 && (prepared(ctx.db, 'SELECT 1 FROM keywords WHERE name = ?').get(b) !== undefined) && lower(a) !== lower(b);
    return applyAcross(
      ctx,
      ids,
      map,
      (what) => `${merging ? 'merge' : 'rename'} keyword ${quote(a)} ${merging ? 'into' : 'to'} ${quote(b)} on ${what}`,
      { op: merging ? 'keyword.merge' : 'keyword.rename', value: merging ? { from: [a], into: b, children } : { from: a, to: b, children } },
      respell,
    );
  });
}

/** Merge keywords into one (each `from` is renamed to `into`; assets end up with `into` once). */
export function mergeKeywords(ctx: LibraryCtx, from: readonly string[], into: string, opts: { children?: boolean } = {}): Promise<VocabularyEditResult> {
  return inEditLane(ctx, async () => {
    const target = required(into, 'into');
    const sources = from.map((f) => required(f, 'from')).filter((f) => lower(f) !== lower(target));
    if (!sources.length) return { description: null, assetIds: [] };
    const children = opts.children !== false;
    const ids = assetsWith(ctx, [...sources, target], children);
    const map = (list: string[]): string[] => {
      const out: string[] = [];
      const seen = new Set<string>();
      for (const k of list) {
        let next = k;
        for (const s of [...sources, target]) {
          if (lower(k) === lower(s)) next = target;
          else if (children && lower(k).startsWith(lower(s) + '|')) next = target + k.slice(s.length);
        }
        if (seen.has(lower(next))) continue;
        seen.add(lower(next));
        out.push(next);
      }
      return out;
    };
    const respell = (): LibraryUndo | null => {
      respellKeyword(ctx.db, target, target);
      // Every source's keyword-list entries on one undo, in the order they changed.
      const before = sources.flatMap((src) => {
        const undo = renameInVocabulary(ctx, src, target, children);
        return undo?.kind === 'vocabularyChanged' ? undo.before : [];
      });
      return before.length ? { kind: 'vocabularyChanged', before } : null;
    };
    const names = sources.map(quote).join(', ');
    return applyAcross(
      ctx,
      ids,
      map,
      (what) => `merge keyword${sources.length > 1 ? 's' : ''} ${names} into ${quote(target)} on ${what}`,
      { op: 'keyword.merge', value: { from: sources, into: target, children } },
      respell,
    );
  });
}

/** Remove a keyword (and by default its children) from every asset. */
export function deleteKeyword(ctx: LibraryCtx, name: string, opts: { children?: boolean } = {}): Promise<VocabularyEditResult> {
  return inEditLane(ctx, async () => {
    const word = required(name, 'name');
    const children = opts.children !== false;
    const ids = assetsWith(ctx, [word], children);
    return applyAcross(
      ctx,
      ids,
      (list) => list.filter((k) => !matches(k, word, children)),
      (what) => `delete keyword ${quote(word)} from ${what}`,
      { op: 'keyword.delete', value: { name: word, children } },
      () => deleteFromVocabulary(ctx, word, children),
    );
  });
}
