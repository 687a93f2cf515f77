import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import type { RenamePreview, RenamePreviewItem, RenameRequest, RenameResult } from '../../src-preload/contract';
import { logPathPlanned, markUndone, openEdit } from '../catalogue/edit-log';
import { ApiError } from '../core/errors';
import type { LibraryCtx } from './context';
import { prepared } from './db';
import { inEditLane } from './edit-lane';
import { STEP, inSteps, inTurns, pace } from '../core/steps';
import { stackKeyOf } from './formats';
import { abs, applyRow, closeShot, rollBackRow, sameFile, type JournalRow } from './rename-journal';
import { fillTemplate, parseTemplate, TemplateError, type ParsedTemplate } from './rename-template';

// Batch rename (issue 16). A plan names every file's new name (a RAW and its JPEG are one shot:
// one name, one sequence number; a partner left out of the selection is brought in so the
// pair keeps matching) and refuses, before anything moves, collisions with each other and
// with what is on disk, compared case-insensitively as macOS and Windows do.
//
// Crash safety: the plan is written to rename_journal, each file's row with its logged change in
// the same transaction (a turn's budget of files per transaction), and nothing moves until every
// file is journalled. Then, per file: its sidecars move, the file moves (the commit point), and
// one transaction points the catalogue at the new name and drops the journal row. A killed
// process leaves journal rows; the next open (recoverRenames) finishes each file whose move
// happened and puts back the sidecars of each file that did not (dropping its row and logged
// change, and the edit once it has none), so every file is either renamed with the catalogue
// following it, or untouched. The asset keeps its id, so its keywords, ratings, collections and
// cached service results stay with it, and the watcher's rescan finds it under the new name,
// unchanged.

interface SourceRow {
  id: number;
  folder_id: number;
  folder_path: string;
  online: number;
  rel_path: string;
  name: string;
  stack_key: string;
  taken_at: string | null;
  camera_model: string | null;
  title: string | null;
}

interface Move {
  from: string;
  to: string;
}

interface PlannedFile {
  /** The shot's number in the plan: a RAW and its JPEG share it. */
  shot: number;
  row: SourceRow;
  toRel: string;
  /** Folder-relative sidecar moves. */
  sidecars: Move[];
  problem: string | null;
  note: string | null;
}

const SOURCE_SQL = `SELECT a.id, a.folder_id, f.path AS folder_path, f.online, a.rel_path, a.name, a.stack_key, a.taken_at,
  a.camera_model, a.title FROM assets a JOIN folders f ON f.id = a.folder_id WHERE a.removed_at IS NULL`;

const fold = (name: string): string => name.normalize('NFC').toLowerCase();
const dirOf = (rel: string): string => (rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/') + 1) : '');
const baseOf = (name: string): string => (name.lastIndexOf('.') > 0 ? name.slice(0, name.lastIndexOf('.')) : name);
const extPart = (name: string): string => (name.lastIndexOf('.') > 0 ? name.slice(name.lastIndexOf('.')) : '');
const plural = (n: number, one: string): string => `${n} ${one}${n === 1 ? '' : 's'}`;

/** The selected assets in order, each shot's partners (RAW+JPEG) next to it; shots in selection order. */
async function shotsOf(ctx: LibraryCtx, ids: readonly number[]): Promise<SourceRow[][]> {
  const byId = prepared(ctx.db, `${SOURCE_SQL} AND a.id = ?`);
  // By the shot's own index: the planner may otherwise walk every live asset in name order for each shot.
  const partners = prepared(ctx.db, `${SOURCE_SQL.replace('FROM assets a ', 'FROM assets a INDEXED BY assets_stack ')} AND a.folder_id = ? AND a.stack_key = ? ORDER BY a.name`);
  const shots = new Map<string, SourceRow[]>();
  const missing: number[] = [];
  await inSteps([...new Set(ids)], (chunk) => {
    for (const id of chunk) {
      const row = byId.get(id) as SourceRow | undefined;
      if (!row) {
        missing.push(id);
        continue;
      }
      const key = `${row.folder_id}\u0000${row.stack_key}`;
      if (shots.has(key)) continue;
      const members = partners.all(row.folder_id, row.stack_key) as SourceRow[];
      shots.set(key, [row, ...members.filter((m) => m.id !== row.id)]);
    }
  }, 5 * STEP);
  if (missing.length) {
    throw new ApiError('not_found', `${plural(missing.length, 'selected item')} ${missing.length === 1 ? 'is' : 'are'} no longer in the library. Refresh and try again.`);
  }
  return [...shots.values()];
}

/** One directory's names, exact and case-folded (each folded name's entries in listing order): lookups, never scans. */
interface Listing {
  names: Set<string>;
  byFold: Map<string, string[]>;
}

/** Directory listings, read once per plan (an unreadable directory lists nothing). */
class Listings {
  private readonly cache = new Map<string, Listing>();
  get(dirAbs: string): Listing {
    let listing = this.cache.get(dirAbs);
    if (!listing) {
      let names: string[] = [];
      try {
        names = readdirSync(dirAbs);
      } catch {
        // Offline or gone: each file says so in plan().
      }
      listing = { names: new Set(names), byFold: new Map() };
      for (const n of names) {
        const same = listing.byFold.get(fold(n));
        if (same) same.push(n);
        else listing.byFold.set(fold(n), [n]);
      }
      this.cache.set(dirAbs, listing);
    }
    return listing;
  }
}

/** Every file's new name and problem, a few hundred shots per turn of the event loop (the preview runs as the user types). */
async function plan(ctx: LibraryCtx, template: ParsedTemplate, ids: readonly number[], start: number): Promise<PlannedFile[]> {
  const listings = new Listings();
  const files: PlannedFile[] = [];
  let seq = start;
  let shotNo = 0;
  await inSteps(await shotsOf(ctx, ids), (chunk) => chunk.forEach(planShot), 5 * STEP);
  await findCollisions(files, listings);
  return files;

  function planShot(shot: SourceRow[]): void {
    shotNo++;
    const first = shot[0];
    const filled = fillTemplate(template, {
      name: baseOf(first.name),
      takenAt: shot.find((r) => r.taken_at)?.taken_at ?? null,
      camera: shot.find((r) => r.camera_model)?.camera_model ?? null,
      title: shot.find((r) => r.title)?.title ?? null,
      seq: seq++,
    });
    const dir = dirOf(first.rel_path);
    const listing = listings.get(abs(first.folder_path, dir));
    shot.forEach((row, i) => {
      const newName = filled.base + extPart(row.name);
      const sidecars: Move[] = [];
      // IMG_1.CR2.xmp (darktable, digiKam) with each file; IMG_1.xmp (Lightroom, Capture One) once per shot.
      const own = listing.byFold.get(fold(row.name) + '.xmp')?.[0];
      if (own) sidecars.push({ from: dir + own, to: dir + newName + own.slice(row.name.length) });
      if (i === 0) {
        const base = baseOf(row.name);
        const shared = listing.byFold.get(fold(base) + '.xmp')?.[0];
        if (shared) sidecars.push({ from: dir + shared, to: dir + filled.base + shared.slice(base.length) });
      }
      let problem = filled.problem;
      if (!problem && !row.online) problem = 'its folder is offline';
      if (!problem && !listing.names.has(row.name)) problem = 'the file is not where the catalogue has it (rescan its folder)';
      if (!problem && Buffer.byteLength(newName + '.xmp') > 255) problem = `the new name “${newName}” is too long for a file name`;
      files.push({ shot: shotNo, row, toRel: dir + newName, sidecars, problem, note: filled.note });
    });
  }
}

/** Two files given one name, or a name already taken on disk: a problem on each file concerned. */
/** In steps: a plan of 10,000 files is three passes over them, 64 ms in one piece. */
async function findCollisions(files: PlannedFile[], listings: Listings): Promise<void> {
  const next = pace();
  // Every name a file (or sidecar) will have after the batch, per directory, case-folded.
  const claims = new Map<string, { file: PlannedFile; name: string }[]>();
  // Every name that moves away in this batch.
  const leaving = new Map<string, PlannedFile>();
  const key = (f: PlannedFile, rel: string): string => `${f.row.folder_id}\u0000${fold(rel)}`;
  for (const f of files) {
    await next();
    const moves: Move[] = [{ from: f.row.rel_path, to: f.toRel }, ...f.sidecars];
    for (const m of moves) {
      const list = claims.get(key(f, m.to)) ?? [];
      list.push({ file: f, name: m.to });
      claims.set(key(f, m.to), list);
      if (m.from !== m.to) leaving.set(key(f, m.from), f);
    }
  }
  const problemOf = (f: PlannedFile, p: string): void => {
    f.problem ??= p;
  };
  for (const list of claims.values()) {
    await next();
    const owners = [...new Set(list.map((c) => c.file))];
    if (owners.length > 1) {
      const names = owners.map((o) => `“${o.row.name}”`).join(', ');
      for (const o of owners) problemOf(o, `“${list[0].name.split('/').pop()}” would be the new name of ${owners.length} files (${names})`);
    }
  }
  for (const f of files) {
    await next();
    const moves: Move[] = [{ from: f.row.rel_path, to: f.toRel }, ...f.sidecars];
    const listing = listings.get(abs(f.row.folder_path, dirOf(f.row.rel_path)));
    for (const m of moves) {
      if (m.from === m.to) continue;
      const target = m.to.split('/').pop()!;
      // The file's own current name (a change of case only) is not a collision.
      const taken = listing.byFold.get(fold(target))?.find((n) => fold(dirOf(m.from) + n) !== fold(m.from));
      if (!taken) continue;
      const other = leaving.get(key(f, dirOf(m.from) + taken));
      problemOf(
        f,
        other && other !== f
          ? `“${target}” is the current name of “${other.row.name}”, which this rename also changes; rename in two steps (first with another template)`
          : `“${taken}” already exists in this folder`,
      );
    }
  }
}

function parse(template: string): ParsedTemplate {
  try {
    return parseTemplate(template);
  } catch (err) {
    if (err instanceof TemplateError) throw new ApiError('validation', err.message, 'template');
    throw err;
  }
}

function checkStart(start: number | undefined): number {
  const n = start ?? 1;
  if (!Number.isSafeInteger(n) || n < 0) throw new ApiError('validation', 'The start number must be a whole number, 0 or more.', 'start');
  return n;
}

function toItem(f: PlannedFile): RenamePreviewItem {
  const folder = f.row.folder_path;
  return {
    assetId: f.row.id,
    from: abs(folder, f.row.rel_path),
    to: abs(folder, f.toRel),
    changed: f.toRel !== f.row.rel_path,
    problem: f.problem,
    note: f.note,
    sidecars: f.sidecars.map((s) => ({ from: abs(folder, s.from), to: abs(folder, s.to) })),
  };
}

/** Every new name, with problems; moves nothing. A template that cannot be used is reported, not thrown. */
export async function previewRename(ctx: LibraryCtx, req: RenameRequest): Promise<RenamePreview> {
  const start = checkStart(req.start);
  let template: ParsedTemplate;
  try {
    template = parseTemplate(req.template);
  } catch (err) {
    if (err instanceof TemplateError) return { templateError: err.message, items: [], problems: 0, changes: 0 };
    throw err;
  }
  const items = (await plan(ctx, template, req.assetIds, start)).map(toItem);
  return { templateError: null, items, problems: items.filter((i) => i.problem).length, changes: items.filter((i) => i.changed).length };
}

interface Job {
  /** Files of one shot (a RAW and its JPEG) share it. */
  shot: number;
  assetId: number;
  folderPath: string;
  fromRel: string;
  toRel: string;
  sidecars: [string, string][];
}

/** How a batch is logged: `open` once (the edit it belongs to), `job` per file beside its journal row. */
interface RenameLog {
  open(db: LibraryCtx['db']): { editId: number | null; isUndo: boolean };
  job?(db: LibraryCtx['db'], editId: number, job: Job): void;
}

/**
 * Journal the jobs (each with its logged change, in the same transaction), then move them one
 * by one, a turn's budget of files at a time with the event loop running between (a shot may
 * be half moved between two turns; the journal settles it after a crash as after any other
 * cut).
 *
 * The journal is written a turn's budget of files per transaction too. Nothing moves before
 * every file is journalled, and a journalled file that did not move is rolled back (its row and
 * logged change dropped, the edit too once it has none): by the next open after a crash, or
 * here when a transaction fails.
 */
async function execute(ctx: LibraryCtx, jobs: Job[], log: RenameLog): Promise<RenameResult> {
  const batch = randomUUID();
  const journal: JournalRow[] = [];
  const ins = prepared(
    ctx.db,
    'INSERT INTO rename_journal (batch, shot, pid, edit_id, is_undo, asset_id, folder_path, from_rel, to_rel, sidecars) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  let edit: { editId: number | null; isUndo: boolean } | null = null;
  const journalFrom = (from: number, more: () => boolean): number => {
    const { editId, isUndo } = (edit ??= log.open(ctx.db));
    let i = from;
    do {
      const j = jobs[i++];
      if (editId !== null) log.job?.(ctx.db, editId, j);
      const row = { batch, shot: j.shot, pid: process.pid, edit_id: editId, is_undo: isUndo ? 1 : 0, asset_id: j.assetId, folder_path: j.folderPath, from_rel: j.fromRel, to_rel: j.toRel, sidecars: JSON.stringify(j.sidecars) };
      const id = Number(ins.run(batch, j.shot, process.pid, editId, row.is_undo, j.assetId, j.folderPath, j.fromRel, j.toRel, row.sidecars).lastInsertRowid);
      journal.push({ id, ...row });
    } while (i < jobs.length && more());
    return i;
  };
  try {
    await inTurns(jobs.length, (from, more) => ctx.db.transaction(journalFrom)(from, more));
  } catch (err) {
    for (const j of journal) rollBackRow(ctx, j);
    throw err;
  }
  const result: RenameResult = { renamed: [], failed: [] };
  // A shot's rows stay in the journal until all its files are settled (see commitRow).
  const left = new Map<number, number>();
  for (const j of journal) left.set(j.shot, (left.get(j.shot) ?? 0) + 1);
  const next = pace();
  for (const j of journal) {
    await next();
    try {
      applyRow(ctx, j, true);
      result.renamed.push({ assetId: j.asset_id, from: abs(j.folder_path, j.from_rel), to: abs(j.folder_path, j.to_rel) });
    } catch (err) {
      result.failed.push({ assetId: j.asset_id, path: abs(j.folder_path, j.from_rel), reason: err instanceof Error ? err.message : String(err) });
    }
    const remaining = left.get(j.shot)! - 1;
    left.set(j.shot, remaining);
    if (remaining === 0) closeShot(ctx, batch, j.shot);
  }
  const ids = [...result.renamed, ...result.failed].map((r) => r.assetId);
  if (ids.length) ctx.events.emit('libraryChanged', { reason: 'edit', assetIds: ids });
  return result;
}

/** The value logged for undo: where the file and its sidecars were or went. */
interface PathValue {
  rel: string;
  sidecars: string[];
}

/**
 * Rename the files as previewed: refused as a whole (nothing moves) while any file has a
 * problem. One undoable edit. A file that cannot be moved when its turn comes is reported
 * and left as it was; the others go on.
 */
export function renameAssets(ctx: LibraryCtx, req: RenameRequest): Promise<RenameResult> {
  return inEditLane(ctx, async () => renameNow(ctx, req));
}

async function renameNow(ctx: LibraryCtx, req: RenameRequest): Promise<RenameResult> {
  const start = checkStart(req.start);
  const template = parse(req.template);
  const files = await plan(ctx, template, req.assetIds, start);
  const bad = files.filter((f) => f.problem);
  if (bad.length) {
    const first = `${bad[0].row.name}: ${bad[0].problem}`;
    throw new ApiError('conflict', `Nothing was renamed: ${plural(bad.length, 'file')} cannot take ${bad.length === 1 ? 'its' : 'their'} new name (${first}${bad.length > 1 ? ', …' : ''}).`, 'template');
  }
  const moving = files.filter((f) => f.toRel !== f.row.rel_path || f.sidecars.some((s) => s.from !== s.to));
  if (!moving.length) return { renamed: [], failed: [] };
  const description = `rename ${plural(moving.length, 'file')} with “${req.template.normalize('NFC')}”`;
  return execute(
    ctx,
    moving.map((f) => ({ shot: f.shot, assetId: f.row.id, folderPath: f.row.folder_path, fromRel: f.row.rel_path, toRel: f.toRel, sidecars: f.sidecars.map((s) => [s.from, s.to]) })),
    {
      open: (db) => ({ editId: openEdit(db, description), isUndo: false }),
      job: (db, editId, j) => {
        const old: PathValue = { rel: j.fromRel, sidecars: j.sidecars.map(([from]) => from) };
        const now: PathValue = { rel: j.toRel, sidecars: j.sidecars.map(([, to]) => to) };
        logPathPlanned(db, editId, j.assetId, old, now);
      },
    },
  );
}

/** Whether a logged edit is a rename (undone by moving files back). */
export function isRenameEdit(ctx: LibraryCtx, editId: number): boolean {
  return !!prepared(ctx.db, "SELECT 1 FROM edit_changes WHERE edit_id = ? AND field = 'path' LIMIT 1").get(editId);
}

/**
 * Undo a rename edit: every file still under its new name goes back to its old one, with its
 * sidecars, through the journal like the rename itself. Refused as a whole when an old name
 * has been taken since. The edit is marked undone when every file is back.
 */
export async function undoRename(ctx: LibraryCtx, editId: number): Promise<RenameResult> {
  const changes = prepared(
    ctx.db,
    `SELECT c.asset_id, c.old_value, c.new_value, a.rel_path, f.path AS folder_path FROM edit_changes c
     JOIN assets a ON a.id = c.asset_id JOIN folders f ON f.id = a.folder_id
     WHERE c.edit_id = ? AND c.field = 'path' ORDER BY c.rowid`,
  ).all(editId) as { asset_id: number; old_value: string; new_value: string; rel_path: string; folder_path: string }[];
  const jobs: Job[] = [];
  const shots = new Map<string, number>();
  const next = pace();
  for (const c of changes) {
    await next();
    const old = JSON.parse(c.old_value) as PathValue;
    const now = JSON.parse(c.new_value) as PathValue;
    if (c.rel_path === old.rel) continue; // already back (an undo cut short)
    const sidecars = now.sidecars.map((s, i): [string, string] => [s, old.sidecars[i]]);
    for (const [from, to] of [[c.rel_path, old.rel], ...sidecars]) {
      const target = abs(c.folder_path, to);
      if (from !== to && existsSync(target) && !sameFile(abs(c.folder_path, from), target)) {
        throw new ApiError('conflict', `Cannot undo the rename: “${target}” exists again. Move it away and undo again. Nothing was changed.`);
      }
    }
    const shotKey = `${c.folder_path}\u0000${stackKeyOf(c.rel_path)}`;
    if (!shots.has(shotKey)) shots.set(shotKey, shots.size + 1);
    jobs.push({ shot: shots.get(shotKey)!, assetId: c.asset_id, folderPath: c.folder_path, fromRel: c.rel_path, toRel: old.rel, sidecars });
  }
  const result = jobs.length ? await execute(ctx, jobs, { open: () => ({ editId, isUndo: true }) }) : { renamed: [], failed: [] };
  if (!result.failed.length) markUndone(ctx.db, editId);
  return result;
}
