import { stat } from 'node:fs/promises';
import type { ScanProgress, ScanSummary } from '../../src-preload/contract';
import { recordOperations, type Operation } from '../catalogue/change-log';
import { setFolderOnline } from '../catalogue/folders';
import {
  finishFolderScan, insertScannedAsset, markAssetVanished, moveScannedAsset, saveScanCheckpoint, setExposure, setMediaHash, setMergedFields,
  setRejectedFromFile, updateScannedAsset, type ExposureColumns, type ScannedAsset,
} from '../catalogue/scanned-assets';
import { ApiError } from '../core/errors';
import type { LibraryCtx } from './context';
import { stackKeyOf } from './formats';
import { indexFile, type IndexedFile } from './index-file';
import { IMAGE_DATA_HASHED, imageDataHash } from './media-hash';
import { emptyExposure, ownsStemSidecar, readMetadata, type Exposure } from '../metadata/reader';
import { rekeyResults } from '../jobs/result-cache';
import { setAssetKeywords } from './keywords';
import { learnFileRead } from '../metadata/file-reading';
import { walkFolder, type WalkedFile } from './walk';
import { fillMissingFingerprints, saveFingerprint } from './similarity/store';
import { thumbQueue } from './thumb-queue';
import { mayCarryPicture } from './media/embedded';

// Incremental scan of one library folder:
//   walk (stat only) -> compare with the folder's rows, loaded with one query ->
//   index new/changed files, 4 at a time, off the main thread's critical path ->
//   commit every BATCH files in one transaction -> mark vanished files removed.
// Unchanged files (same size and mtime) cost a stat and a Map lookup, nothing else, which
// is also what makes a killed scan resumable: committed batches are simply skipped next time.

const CONCURRENCY = 4;
const BATCH = 100;
const PROGRESS_INTERVAL_MS = 250;
const EARLY_COMMIT_MS = 250;
/** scan_errors.stage of a problem caused by a missing tool rather than by the file. */
const TOOL_STAGE = 'tool';

export interface ScanOptions {
  signal?: AbortSignal;
  /** Throttled progress (~4/s) plus a final 'done' or 'cancelled'. */
  onProgress?: (p: ScanProgress) => void;
}

interface FolderRow {
  id: number;
  path: string;
  online: number;
  scan_checkpoint: string | null;
}

interface ExistingRow {
  id: number;
  rel_path: string;
  size: number;
  mtime_ms: number;
  content_hash: string | null;
  media_hash: string | null;
  format: string;
  exposure_read: number;
  removed_at: number | null;
  thumb: string | null;
  thumb_state: string | null;
  indexed_at: number;
}

interface WorkItem {
  file: WalkedFile;
  existing: ExistingRow | null;
  sidecarPath: string | null;
}

/** What a killed scan leaves behind; the next scan sees it was interrupted. */
interface Checkpoint {
  startedAt: number;
  phase: 'walking' | 'indexing';
  total: number;
  done: number;
}

export const OFFLINE_REASON =
  'The folder is not available (the drive may be unplugged, or the folder renamed or moved). Its photos stay in the library; reconnect the drive or relink the folder.';

const emptySummary = (): ScanSummary => ({ added: 0, updated: 0, removed: 0, moved: 0, errors: [], cancelled: false });

async function isAccessibleDir(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * 'IMG_1.CR2.xmp' (darktable, digiKam) belongs to exactly one file. 'IMG_1.xmp' (Lightroom,
 * Capture One, Apple Photos) by metadata/reader.ts ownsStemSidecar: the RAW of that name,
 * else a HEIC/video, else a lone file; never a JPEG twin of a RAW.
 */
function sidecarFor(file: WalkedFile, sidecars: Map<string, string>, root: string, byStem: Map<string, WalkedFile[]>): string | null {
  const exact = sidecars.get(`${file.relPath.toLowerCase()}.xmp`);
  const key = stackKeyOf(file.relPath);
  const siblings = (byStem.get(key) ?? []).filter((f) => f !== file).map((f) => f.format);
  const byBase = ownsStemSidecar(file.format, siblings) ? sidecars.get(`${key}.xmp`) : undefined;
  const rel = exact ?? byBase;
  return rel ? `${root}/${rel}` : null;
}

/**
 * Whether a sidecar was written after its file was last indexed: Lightroom and others change
 * only the sidecar of a RAW (a label, a rating), so the RAW's own size and time stay the same.
 */
async function changedSince(path: string, indexedAt: number): Promise<boolean> {
  try {
    return (await stat(path)).mtimeMs > indexedAt;
  } catch {
    return false;
  }
}

export async function scanFolder(ctx: LibraryCtx, folderId: number, opts: ScanOptions = {}): Promise<ScanSummary> {
  const { db } = ctx;
  const folder = db.prepare<[number], FolderRow>('SELECT id, path, online, scan_checkpoint FROM folders WHERE id = ? AND removing_at IS NULL').get(folderId);
  if (!folder) throw new ApiError('not_found', 'That folder is no longer in the library.');
  const root = folder.path;
  const summary = emptySummary();
  const started = Date.now();
  const progress: ScanProgress = { folderId, folderPath: root, phase: 'walking', found: 0, done: 0, errors: 0, filesPerSec: 0 };
  let lastEmit = 0;
  const report = (force = false): void => {
    const now = Date.now();
    if (!force && now - lastEmit < PROGRESS_INTERVAL_MS) return;
    lastEmit = now;
    progress.errors = summary.errors.length;
    progress.filesPerSec = Math.round((progress.done / Math.max(1, now - started)) * 1000);
    opts.onProgress?.({ ...progress });
  };
  const finish = (cancelled: boolean): ScanSummary => {
    summary.cancelled = cancelled;
    progress.phase = cancelled ? 'cancelled' : 'done';
    report(true);
    return summary;
  };

  // An unplugged drive must never look like 100k deleted photos: touch nothing, say why.
  if (!(await isAccessibleDir(root))) {
    if (folder.online) {
      setFolderOnline(db, folderId, false);
      ctx.events.emit('foldersChanged', {});
    }
    summary.errors.push({ path: root, reason: OFFLINE_REASON });
    return finish(false);
  }
  if (!folder.online) {
    setFolderOnline(db, folderId, true);
    ctx.events.emit('foldersChanged', {});
  }

  const checkpoint: Checkpoint = { startedAt: started, phase: 'walking', total: 0, done: 0 };
  const saveCheckpoint = (): void => saveScanCheckpoint(db, folderId, JSON.stringify(checkpoint));
  saveCheckpoint();

  const rows = db
    .prepare<[number], ExistingRow>('SELECT id, rel_path, size, mtime_ms, content_hash, media_hash, format, exposure_read, removed_at, thumb, thumb_state, indexed_at FROM assets WHERE folder_id = ?')
    .all(folderId);
  const byPath = new Map(rows.map((r) => [r.rel_path, r]));
  // Files that could not be read for want of a tool (ffprobe, perl...) are read again, even
  // unchanged: the tool may be there now.
  const toolBlocked = new Set(
    db.prepare<[number], { asset_id: number }>(`SELECT DISTINCT asset_id FROM scan_errors WHERE folder_id = ? AND stage = '${TOOL_STAGE}' AND asset_id IS NOT NULL`)
      .all(folderId).map((r) => r.asset_id),
  );

  let walked;
  try {
    walked = await walkFolder(root, {
      signal: opts.signal,
      onFound: (n) => {
        progress.found = n;
        report();
      },
    });
  } catch (err) {
    if (opts.signal?.aborted) return finish(true);
    throw err;
  }

  // Classify against the in-memory rows: no query per unchanged file.
  const work: WorkItem[] = [];
  const rehash: { row: ExistingRow; path: string }[] = [];
  const exposureToRead: { row: ExistingRow; file: WalkedFile; sidecarPath: string | null }[] = [];
  const seen = new Set<string>();
  // Full thumbnails a stopped scan left owed are made by this one.
  const owed: { id: number; thumb_state: string | null }[] = [];
  // The files sharing a name with an 'IMG.xmp' (who owns it depends on them); only those.
  const byStem = new Map<string, WalkedFile[]>();
  if (walked.sidecars.size > 0) {
    for (const f of walked.files) {
      const key = stackKeyOf(f.relPath);
      if (!walked.sidecars.has(`${key}.xmp`)) continue;
      const same = byStem.get(key);
      if (same) same.push(f);
      else byStem.set(key, [f]);
    }
  }
  for (const f of walked.files) {
    seen.add(f.relPath);
    const row = byPath.get(f.relPath) ?? null;
    const sidecarPath = sidecarFor(f, walked.sidecars, root, byStem);
    if (row && row.removed_at === null && row.size === f.size && row.mtime_ms === f.mtimeMs && !toolBlocked.has(row.id) &&
      !(sidecarPath && (await changedSince(sidecarPath, row.indexed_at)))) {
      if (needsMediaRehash(row)) rehash.push({ row, path: f.absPath });
      if (row.exposure_read === 0) exposureToRead.push({ row, file: f, sidecarPath });
      if (row.thumb_state === 'preview' || row.thumb_state === 'pending') owed.push(row);
      continue;
    }
    work.push({ file: f, existing: row, sidecarPath });
  }
  // Files that carry no picture of their own (PNGs, videos...) show an empty cell until their
  // full thumbnail is made: recorded first, their thumbnails are made while the rest is read,
  // videos first (a poster frame takes the longest: begun last, it would be the grid's last).
  // (A stable sort in place: spreading a first scan's hundreds of thousands of items as
  // arguments would overflow the stack.)
  work.sort((a, b) => readingOrder(a.file) - readingOrder(b.file));
  // Rows whose file is gone. Folders that could not be listed this time keep their rows.
  const vanished = new Map<number, ExistingRow>();
  const vanishedByHash = new Map<string, ExistingRow[]>();
  const vanishedUnhashed = new Map<string, ExistingRow[]>();
  for (const r of rows) {
    if (r.removed_at !== null || seen.has(r.rel_path)) continue;
    if (walked.unreadableDirs.some((d) => d === '' || r.rel_path.startsWith(d + '/'))) continue;
    vanished.set(r.id, r);
    const key = r.content_hash ?? (isUnhashedPicture(r) ? sizeAndTime(r.size, r.mtime_ms) : null);
    if (!key) continue;
    const into = r.content_hash ? vanishedByHash : vanishedUnhashed;
    const list = into.get(key) ?? [];
    list.push(r);
    into.set(key, list);
  }
  // Time to grid: a new file's content hash is left to the pass after the grid (its full
  // thumbnail's job), unless the file could be one that moved: a vanished or removed row of
  // the same size. Those are hashed now, so that their keywords and edits follow them.
  const movableSizes = new Set<number>([...vanished.values()].map((r) => r.size));
  for (const r of db.prepare<[], { size: number }>('SELECT DISTINCT size FROM assets WHERE removed_at IS NOT NULL').all()) movableSizes.add(r.size);

  progress.found = walked.files.length;
  progress.phase = 'indexing';
  checkpoint.phase = 'indexing';
  checkpoint.total = work.length;
  report(true);

  // Folder-level problems are re-recorded by every scan.
  const now = Date.now();
  db.transaction(() => {
    db.prepare('DELETE FROM scan_errors WHERE folder_id = ? AND asset_id IS NULL').run(folderId);
    const ins = db.prepare('INSERT INTO scan_errors (folder_id, asset_id, path, stage, reason, at) VALUES (?, NULL, ?, ?, ?, ?)');
    for (const p of walked.problems) ins.run(folderId, p.path, 'read', p.reason, now);
    saveCheckpoint();
  })();
  summary.errors.push(...walked.problems);

  const writer = new BatchWriter(ctx, folderId, root, vanished, vanishedByHash, vanishedUnhashed, summary);
  // Each file shows in the grid as soon as its batch commits (with its embedded preview);
  // its full thumbnail is made by the background queue, the cells on screen first.
  const thumbs = thumbQueue(ctx);
  const release = thumbs.hold();
  const queued: number[] = [];
  const onThumbProblem = (p: { path: string; reason: string }): void => {
    summary.errors.push(p);
  };
  const queueThumbs = (rows: { id: number; thumb_state: string | null }[]): void => {
    const bare = rows.filter((r) => r.thumb_state === 'pending').map((r) => r.id);
    const previewed = rows.filter((r) => r.thumb_state !== 'pending').map((r) => r.id);
    queued.push(...bare, ...previewed);
    thumbs.add(bare, onThumbProblem, { bare: true });
    thumbs.add(previewed, onThumbProblem);
  };
  queueThumbs(owed);
  const owedOf = db.prepare<[string], { id: number; thumb_state: string | null }>(
    `SELECT id, thumb_state FROM assets WHERE id IN (SELECT value FROM json_each(?)) AND thumb_state IN ('preview', 'pending')`,
  );
  const pending: { result: IndexedFile; existing: ExistingRow | null }[] = [];
  let lastCommit = 0;
  const commit = (): void => {
    if (pending.length === 0) return;
    lastCommit = Date.now();
    const batch = pending.splice(0, pending.length);
    const ids = db.transaction(() => {
      // Each photo added, changed or moved is recorded in the change log (the catalogue's door).
      const ops: Operation[] = [];
      const touched = batch.map((p) => {
        const moved = summary.moved;
        const id = writer.write(p.result, p.existing);
        const op = p.existing ? (p.existing.removed_at === null ? 'asset.change' : 'asset.add') : summary.moved > moved ? 'asset.move' : 'asset.add';
        ops.push({ op, assetId: id, value: { size: p.result.file.size, mtimeMs: p.result.file.mtimeMs, hash: p.result.hash } });
        return id;
      });
      recordOperations(db, null, ops);
      checkpoint.done = progress.done;
      saveCheckpoint();
      return touched;
    })();
    ctx.events.emit('libraryChanged', { reason: 'scan', assetIds: ids });
    queueThumbs(owedOf.all(JSON.stringify(ids)));
  };

  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < work.length && !opts.signal?.aborted) {
      const item = work[next++];
      const result = await indexFile(ctx, item.file, item.sidecarPath, { deferHash: item.existing !== null || !movableSizes.has(item.file.size) });
      pending.push({ result, existing: item.existing });
      progress.done++;
      // A file with no picture yet is committed early when the thumbnail queue has none of
      // those to make (its thumbnail is the queue's next job), at most every EARLY_COMMIT_MS
      // (each commit refreshes the grid).
      const early = result.thumbState === 'pending' && !thumbs.hasBareWork() && Date.now() - lastCommit >= EARLY_COMMIT_MS;
      if (pending.length >= BATCH || early) commit();
      report();
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, work.length) }, worker));
  } finally {
    release();
  }
  commit(); // finished work is kept even when cancelled
  // `tagsmith index` (and every caller of a scan) returns only when every full thumbnail
  // exists: scripts read `thumbnail` right after it. A cancelled scan leaves the rest owed.
  // Meanwhile the progress says so: every file is in the grid, thumbnails n of N.
  if (opts.signal?.aborted) thumbs.drop(queued);
  else {
    progress.phase = 'thumbnails';
    const owedIds = [...new Set(queued)];
    const reportThumbs = (force = false): void => {
      progress.thumbnails = { done: owedIds.filter((id) => !thumbs.owes(id)).length, total: owedIds.length };
      report(force);
    };
    reportThumbs(true);
    const stop = ctx.events.on('thumbnailsChanged', () => reportThumbs());
    try {
      await untilIdleOrAborted(thumbs.idle(), opts.signal);
    } finally {
      stop();
    }
    if (!opts.signal?.aborted) reportThumbs(true);
  }
  if (opts.signal?.aborted) thumbs.drop(queued);
  await upgradeMediaHashes(ctx, rehash, opts.signal);
  const backfilled = await backfillExposure(ctx, exposureToRead, opts.signal);
  if (backfilled.length > 0) ctx.events.emit('libraryChanged', { reason: 'scan', assetIds: backfilled });
  // Pictures catalogued before fingerprints existed, or whose thumbnail was already cached:
  // fingerprinted from that thumbnail, each one committed as made (a stopped pass resumes).
  await fillMissingFingerprints(ctx, { folderId, signal: opts.signal });

  if (opts.signal?.aborted) return finish(true);

  // Only a complete walk and index may declare files removed.
  const removedAt = Date.now();
  db.transaction(() => {
    const gone: Operation[] = [];
    for (const r of vanished.values()) {
      if (!markAssetVanished(db, r.id, removedAt)) continue;
      summary.removed++;
      gone.push({ op: 'asset.vanish', assetId: r.id });
    }
    recordOperations(db, null, gone);
    finishFolderScan(db, folderId, removedAt);
  })();
  if (vanished.size > 0) ctx.events.emit('libraryChanged', { reason: 'scan', assetIds: [...vanished.keys()] });
  return finish(false);
}

/** Videos, then other files with no picture of their own, then those carrying a preview. */
function readingOrder(file: WalkedFile): number {
  return file.format.kind === 'video' ? 0 : mayCarryPicture(file.format) ? 2 : 1;
}

/** A picture shown by a scan whose content hash its full-thumbnail job has not taken yet. */
function isUnhashedPicture(r: { content_hash: string | null; thumb_state: string | null }): boolean {
  return r.content_hash === null && (r.thumb_state === 'preview' || r.thumb_state === 'pending');
}

const sizeAndTime = (size: number, mtimeMs: number): string => `${size}:${mtimeMs}`;

/** Waits for `done`, or until the scan is cancelled. */
function untilIdleOrAborted(done: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return done;
  return new Promise((resolve) => {
    const stop = (): void => resolve();
    signal.addEventListener('abort', stop, { once: true });
    void done.then(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    });
  });
}

/**
 * Libraries catalogued before TIFF, DNG and HEIF files had a metadata-free media hash keyed
 * them by their content hash. While such a file is still the one that was hashed (unchanged
 * since, or changed by Tagsmith's own metadata write), its new media hash is taken and the
 * answers cached under the old key are carried over, so nothing is billed again for it.
 * A file that changed behind Tagsmith's back is re-indexed instead: its pixels may have
 * changed, so its old answers do not follow it. A file exiftool finds no image data in keeps
 * its content hash and is tried again by the next scan (one exiftool read).
 */
function needsMediaRehash(row: ExistingRow): boolean {
  // No media hash at all is one still owed (taken with the full thumbnail, or before a run).
  return IMAGE_DATA_HASHED.has(row.format) && row.media_hash !== null && !row.media_hash.startsWith('m:');
}

async function upgradeMediaHashes(ctx: LibraryCtx, rows: { row: ExistingRow; path: string }[], signal: AbortSignal | undefined): Promise<void> {
  for (const { row, path } of rows) {
    if (signal?.aborted) return;
    const next = await imageDataHash(path).catch(() => null);
    if (!next) continue;
    ctx.db.transaction(() => {
      rekeyResults(ctx.db, row.id, (row.media_hash ?? row.content_hash)!, next);
      setMediaHash(ctx.db, row.id, next);
    })();
  }
}

// The reader's exposure as the catalogue stores it (flash 1/0).
function exposureParams(e: Exposure): ExposureColumns {
  return { ...e, flash: e.flash === null ? null : e.flash ? 1 : 0 };
}

/**
 * Pictures catalogued before exposure was kept (migration 13) get it from their metadata
 * alone: no hash, no thumbnail, nothing else about the row changes.
 */
async function backfillExposure(ctx: LibraryCtx, items: { row: ExistingRow; file: WalkedFile; sidecarPath: string | null }[], signal: AbortSignal | undefined): Promise<number[]> {
  const done: number[] = [];
  // A few files at a time, as the indexer reads them; one short transaction per few.
  const step = 8;
  for (let i = 0; i < items.length && !signal?.aborted; i += step) {
    const batch = items.slice(i, i + step);
    const read = await Promise.all(batch.map(async ({ row, file, sidecarPath }) => {
      try {
        return { id: row.id, exposure: (await readMetadata(file.absPath, { format: file.format.format, buf: null, sidecarPath })).exposure };
      } catch {
        return { id: row.id, exposure: emptyExposure() }; // unreadable now: the next full read of the file tries again
      }
    }));
    ctx.db.transaction(() => {
      for (const r of read) setExposure(ctx.db, r.id, exposureParams(r.exposure));
    })();
    done.push(...read.map((r) => r.id));
  }
  return done;
}

/** Writes one indexed file (insert, update or move) inside the batch's transaction. */
class BatchWriter {
  private readonly removedByHash;
  private readonly removedUnhashed;
  private readonly removedUnhashedKeys;
  /** Size and time of every removed picture never hashed, read on the first new file. */
  private removedKeys: Set<string> | null = null;
  private readonly clearErrors;
  private readonly addError;

  constructor(
    private readonly ctx: LibraryCtx,
    private readonly folderId: number,
    private readonly root: string,
    private readonly vanished: Map<number, ExistingRow>,
    private readonly vanishedByHash: Map<string, ExistingRow[]>,
    /** Vanished pictures not hashed yet (closed before their job ran), by size and time. */
    private readonly vanishedUnhashed: Map<string, ExistingRow[]>,
    private readonly summary: ScanSummary,
  ) {
    const db = ctx.db;
    this.removedByHash = db.prepare<[string], { id: number }>(
      'SELECT id FROM assets WHERE content_hash = ? AND removed_at IS NOT NULL ORDER BY removed_at DESC LIMIT 1',
    );
    this.removedUnhashedKeys = db.prepare<[], { size: number; mtime_ms: number }>(
      "SELECT size, mtime_ms FROM assets WHERE content_hash IS NULL AND thumb_state IN ('preview', 'pending') AND removed_at IS NOT NULL",
    );
    this.removedUnhashed = db.prepare<[number, number], { id: number }>(
      `SELECT id FROM assets WHERE content_hash IS NULL AND thumb_state IN ('preview', 'pending') AND size = ? AND mtime_ms = ?
         AND removed_at IS NOT NULL ORDER BY removed_at DESC LIMIT 1`,
    );
    this.clearErrors = db.prepare('DELETE FROM scan_errors WHERE asset_id = ?');
    this.addError = db.prepare('INSERT INTO scan_errors (folder_id, asset_id, path, stage, reason, at) VALUES (?, ?, ?, ?, ?, ?)');
  }

  /** Returns the asset id written. */
  write(r: IndexedFile, existing: ExistingRow | null): number {
    const f = r.file;
    const db = this.ctx.db;
    const now = Date.now();
    const params: ScannedAsset = {
      folderId: this.folderId, relPath: f.relPath, name: f.name, ext: extLower(f.name), kind: f.format.kind,
      format: f.format.format, isRaw: f.format.isRaw ? 1 : 0, size: f.size, mtimeMs: f.mtimeMs, hash: r.hash,
      mediaHash: r.mediaHash, width: r.width, height: r.height, orientation: r.meta.orientation, durationS: r.durationS,
      videoCodec: r.videoCodec, audioCodec: r.audioCodec, takenAt: r.meta.takenAt, cameraMake: r.meta.cameraMake,
      cameraModel: r.meta.cameraModel, lens: r.meta.lens, gpsLat: r.meta.gpsLat, gpsLon: r.meta.gpsLon,
      rating: r.meta.rating, colorLabel: r.meta.colorLabel, caption: r.meta.caption, title: r.meta.title, ...r.meta.rights,
      thumb: r.thumb, thumbState: r.thumbState, stackKey: stackKeyOf(f.relPath), hasError: r.problems.length > 0 ? 1 : 0, now,
      ...exposureParams(r.meta.exposure),
      blockDisagreement: r.meta.blockDisagreement ? JSON.stringify(r.meta.blockDisagreement) : null,
    };

    const metaRead = !r.problems.some((p) => p.stage === 'metadata');

    let id: number;
    if (existing) {
      id = existing.id;
      // The metadata engine decides what the library keeps of what the file holds (asked
      // before the row is rewritten: the library's values as they were).
      const reading = learnFileRead(this.ctx, id, r.meta, { known: true, metaRead });
      updateScannedAsset(db, id, params);
      setAssetKeywords(db, id, reading.keywords);
      if (reading.fields) setMergedFields(db, id, reading.fields);
      if (reading.rejected !== undefined) setRejectedFromFile(db, id, reading.rejected);
      if (existing.removed_at === null) this.summary.updated++;
      else this.summary.added++;
    } else {
      const movedFrom = this.findMoveSource(r.hash, f);
      if (movedFrom !== null) {
        id = movedFrom;
        moveScannedAsset(db, id, params);
        this.summary.moved++;
        // Same content, same problems as before: keep its recorded errors, but fix the path.
        this.ctx.db.prepare('UPDATE scan_errors SET path = ?, folder_id = ? WHERE asset_id = ?').run(f.absPath, this.folderId, id);
        return id;
      }
      // A file another program rejected (XMP Rating -1) is catalogued as rejected.
      id = insertScannedAsset(db, params, r.meta.rejected);
      setAssetKeywords(db, id, learnFileRead(this.ctx, id, r.meta, { known: false, metaRead }).keywords);
      this.summary.added++;
    }
    if (r.fingerprint && r.hash) saveFingerprint(this.ctx.db, id, r.hash, r.fingerprint);
    this.clearErrors.run(id);
    for (const p of r.problems) {
      this.addError.run(this.folderId, id, f.absPath, p.missingTool ? TOOL_STAGE : p.stage, p.reason, now);
      this.summary.errors.push({ path: f.absPath, reason: p.reason });
    }
    return id;
  }

  /**
   * A vanished row of this scan with the same content, else a previously removed one. A row
   * whose content hash was never taken (Tagsmith closed before the pass after the grid) is
   * known by its size and modification time, which a move keeps, to the millisecond.
   */
  private findMoveSource(hash: string | null, file: WalkedFile): number | null {
    const take = (candidates: ExistingRow[] | undefined): number | null => {
      const row = candidates?.shift();
      if (!row) return null;
      this.vanished.delete(row.id);
      return row.id;
    };
    if (hash) {
      const id = take(this.vanishedByHash.get(hash)) ?? this.removedByHash.get(hash)?.id;
      if (id !== undefined && id !== null) return id;
    }
    const key = sizeAndTime(file.size, file.mtimeMs);
    const vanished = take(this.vanishedUnhashed.get(key));
    if (vanished !== null) return vanished;
    // Asked only for a size and time some removed row has (no query per new file of a first scan).
    this.removedKeys ??= new Set(this.removedUnhashedKeys.all().map((r) => sizeAndTime(r.size, r.mtime_ms)));
    return this.removedKeys.has(key) ? this.removedUnhashed.get(file.size, file.mtimeMs)?.id ?? null : null;
  }
}

function extLower(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
}

/**
 * One scan at a time (they compete for the same disk and cores); the rest wait in order.
 * enqueue() of a folder already queued returns the queued scan's promise.
 */
export class Scanner {
  private readonly queue: { folderId: number; resolve: (s: ScanSummary) => void; reject: (e: unknown) => void; promise: Promise<ScanSummary> }[] = [];
  private current: { folderId: number; controller: AbortController } | null = null;
  private idle: Promise<void> = Promise.resolve();
  private idleResolve: (() => void) | null = null;

  constructor(private readonly ctx: LibraryCtx) {}

  enqueue(folderId: number): Promise<ScanSummary> {
    const queued = this.queue.find((q) => q.folderId === folderId);
    if (queued) return queued.promise;
    let resolve!: (s: ScanSummary) => void;
    let reject!: (e: unknown) => void;
    const promise = new Promise<ScanSummary>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    this.queue.push({ folderId, resolve, reject, promise });
    if (!this.current) void this.drain();
    return promise;
  }

  /** Cancel the running scan and everything queued (queued scans resolve as cancelled). */
  cancel(): void {
    for (const q of this.queue.splice(0)) q.resolve({ ...emptySummary(), cancelled: true });
    this.current?.controller.abort();
  }

  isScanning(folderId: number): boolean {
    return this.current?.folderId === folderId || this.queue.some((q) => q.folderId === folderId);
  }

  waitForIdle(): Promise<void> {
    return this.current || this.queue.length > 0 ? this.idle : Promise.resolve();
  }

  private async drain(): Promise<void> {
    this.idle = new Promise((res) => (this.idleResolve = res));
    while (this.queue.length > 0) {
      const job = this.queue.shift()!;
      const controller = new AbortController();
      this.current = { folderId: job.folderId, controller };
      try {
        const summary = await scanFolder(this.ctx, job.folderId, {
          signal: controller.signal,
          onProgress: (p) => this.ctx.events.emit('scanProgress', p),
        });
        job.resolve(summary);
      } catch (err) {
        job.reject(err);
      } finally {
        this.current = null;
      }
    }
    this.idleResolve?.();
    this.idleResolve = null;
  }
}
