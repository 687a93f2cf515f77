import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { isToolMissing } from '../core/tools';
import { setFullThumb } from '../catalogue/scanned-assets';
import type { LibraryCtx } from './context';
import { saveFingerprint } from './similarity/store';
import { owedMediaHash, recordOwedMediaHash, takeOwedHashes } from './media-hash';
import { makeImageThumb, makePosterThumb, THUMB_SIZE, thumbAbsPath, thumbRelPath, type ThumbResult } from './thumbs';
import { posterFrame } from './video';

// Full thumbnails, made in the background after the scan has shown each file (with the
// preview embedded in it, or a placeholder). Assets the grid shows come first: the renderer
// tells which ids are on screen (setVisibleAssets), and the next job taken is the first of
// those still waiting; then the files that show no picture at all yet (no embedded
// preview: PNGs, videos...), then the oldest. Each thumbnail written is committed at once and
// announced (thumbnailsChanged, coalesced), and the cell swaps its picture: the full
// thumbnail has its own file name, so its URL is new and no cached picture is reused.
//
// A job reads its asset's row when it runs, so a job for a file changed or removed since it
// was queued does nothing wrong: only rows still owed a full thumbnail ('preview', 'pending')
// are worked on, with the file and content hash they have now.

/** Two at a time: one per core; sharp runs one libvips thread per job (media/decode.ts). */
const CONCURRENCY = 2;
/** At most this often the renderer is told which cells have a new picture. */
const ANNOUNCE_MS = 200;
const TOOL_STAGE = 'tool';

interface OwedRow {
  id: number;
  folder_id: number;
  folder_path: string;
  rel_path: string;
  kind: string;
  format: string;
  is_raw: number;
  content_hash: string | null;
  media_hash: string | null;
  size: number;
  mtime_ms: number;
  orientation: number | null;
  duration_s: number | null;
  width: number | null;
  height: number | null;
  thumb: string | null;
  thumb_state: string | null;
}

export type ProblemListener = (p: { path: string; reason: string }) => void;

export class ThumbQueue {
  /** Waiting asset ids, oldest first (a Set keeps insertion order). */
  private readonly waiting = new Set<number>();
  /** The waiting ones whose cell has no picture yet (made before those showing a preview). */
  private readonly bare = new Set<number>();
  /** Who wants to hear of a thumbnail that could not be made (the scan that queued it, for its summary). */
  private readonly listeners = new Map<number, ProblemListener>();
  private readonly running = new Set<number>();
  /** Running jobs a cancelled scan forgot: not queued again when they end. */
  private readonly dropped = new Set<number>();
  private visible: number[] = [];
  private active = 0;
  /** Scans still cataloguing files (see hold()). */
  private holds = 0;
  private idleWaiters: (() => void)[] = [];
  private announce: number[] = [];
  private announceTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly readRow;
  private readonly addError;

  constructor(
    private readonly ctx: LibraryCtx,
    private readonly opts: { onStart?: (assetId: number) => void } = {},
  ) {
    this.readRow = ctx.db.prepare<[number], OwedRow>(
      `SELECT a.id, a.folder_id, f.path AS folder_path, a.rel_path, a.kind, a.format, a.is_raw, a.content_hash, a.media_hash, a.size, a.mtime_ms, a.orientation,
              a.duration_s, a.width, a.height, a.thumb, a.thumb_state
         FROM assets a JOIN folders f ON f.id = a.folder_id WHERE a.id = ?`,
    );
    this.addError = ctx.db.prepare('INSERT INTO scan_errors (folder_id, asset_id, path, stage, reason, at) VALUES (?, ?, ?, ?, ?, ?)');
  }

  /** Queue assets for their full thumbnail (ids already waiting keep their place). */
  add(ids: Iterable<number>, onProblem?: ProblemListener, opts: { bare?: boolean } = {}): void {
    for (const id of ids) {
      if (onProblem) this.listeners.set(id, onProblem);
      if (this.running.has(id)) continue;
      this.waiting.add(id);
      if (opts.bare) this.bare.add(id);
    }
    this.pump();
  }

  /** Forget waiting jobs (a cancelled scan); the next scan queues what is still owed. */
  drop(ids: Iterable<number>): void {
    for (const id of ids) {
      this.waiting.delete(id);
      this.bare.delete(id);
      this.listeners.delete(id);
      if (this.running.has(id)) this.dropped.add(id);
    }
    this.settle();
  }

  /** The assets on screen, nearest first: their thumbnails are made before any other. */
  setVisible(ids: readonly number[]): void {
    this.visible = ids.slice(0, 2000);
  }

  /**
   * While a scan is still cataloguing files, the thumbnails wait unless their cell is on
   * screen or shows no picture at all, and only one is made at a time, two while cells with
   * no picture at all wait: the cores go to showing every file first, and a file shows when
   * it is catalogued with its embedded preview or has its thumbnail (with one at a time, the
   * PNGs' and videos' thumbnails were still being made a second after every other file of
   * the bench's 2,020-file tree had shown). Returns the release (call it once).
   */
  hold(): () => void {
    this.holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds--;
      this.pump();
    };
  }

  /** Whether this asset's full thumbnail is still to be made (waiting or being made). */
  owes(id: number): boolean {
    return this.waiting.has(id) || this.running.has(id);
  }

  /** Whether a thumbnail for a cell with no picture at all is waiting. */
  hasBareWork(): boolean {
    return this.bare.size > 0;
  }

  /** How many thumbnails are still to be made (waiting or being made). */
  get size(): number {
    return this.waiting.size + this.running.size;
  }

  /** Resolves when no thumbnail is waiting or being made. */
  idle(): Promise<void> {
    if (this.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private next(): number | null {
    const take = (id: number): number => {
      this.waiting.delete(id);
      this.bare.delete(id);
      return id;
    };
    for (const id of this.visible) if (this.waiting.has(id)) return take(id);
    for (const id of this.bare) return take(id);
    if (this.holds > 0) return null;
    for (const id of this.waiting) return take(id);
    return null;
  }

  private pump(): void {
    while (this.active < (this.holds > 0 && this.bare.size === 0 ? 1 : CONCURRENCY)) {
      const id = this.next();
      if (id === null) break;
      this.active++;
      this.running.add(id);
      this.opts.onStart?.(id);
      void this.make(id)
        .catch(() => false) // a job never stops the queue; its problem is recorded by make()
        .then((again) => {
          this.active--;
          this.running.delete(id);
          // Shown before it was hashed: the rest of its job comes after the grid.
          if (again && !this.dropped.has(id)) this.waiting.add(id);
          else this.listeners.delete(id);
          this.dropped.delete(id);
          this.pump();
          this.settle();
        });
    }
    this.settle();
  }

  private settle(): void {
    if (this.size > 0) return;
    this.flushAnnounce();
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  /** Makes one asset's full thumbnail; true when only its picture was made and the rest of the job is still to come. */
  private async make(id: number): Promise<boolean> {
    const row = this.readRow.get(id);
    if (!row || (row.thumb_state !== 'preview' && row.thumb_state !== 'pending')) return false;
    const path = join(row.folder_path, ...row.rel_path.split('/'));
    // A picture the scan showed before hashing it (time to grid) is hashed first, content and
    // media hash from one read; its thumbnail is then named by it like any other.
    let hash = row.content_hash;
    let hashedHere = false;
    if (!hash) {
      if (row.kind !== 'image') return false;
      // A cell with no picture at all gets it before its file is hashed: the grid waits for
      // the picture, not for two sha256 passes over the file (~15 ms of CPU for a 5 MB PNG).
      // The rest of the job waits behind every other cell with no picture.
      if (row.thumb_state === 'pending' && (await this.showUnhashed(row, path))) return true;
      const got = await takeOwedHashes(this.ctx, { id, path, format: row.format, size: row.size, mtimeMs: row.mtime_ms });
      if (got) {
        hash = got.hash;
        hashedHere = true;
      } else {
        // Hashed meanwhile (a service run settling it, Tagsmith's own write into the file):
        // go on with that hash. Else gone or changed since the scan: the next scan reads it.
        hash = this.readRow.get(id)?.content_hash ?? null;
        if (!hash) return false;
      }
    }
    let t: ThumbResult;
    let width = row.width;
    let height = row.height;
    let problemStage = 'thumbnail';
    // A picture the scan showed at once has its media hash taken here, beside the thumbnail's
    // decode (the file is read now anyway); one whose structure cannot be walked keeps its
    // content hash as media hash, as the scan would have given it.
    const media = row.media_hash !== null || hashedHere ? Promise.resolve(null) : owedMediaHash(path, row.format, hash);
    // While a scan is still cataloguing files, the thumbnails made are those of cells with no
    // picture yet (PNGs, videos) or on screen: the grid waits for them, not for their
    // fingerprint (~10 ms each), which the scan takes from the thumbnail once it is done
    // (fillMissingFingerprints).
    const fingerprint = this.holds === 0;
    if (row.kind === 'video') {
      try {
        t = await makePosterThumb(this.ctx, hash, await posterFrame(path, row.duration_s, { fit: THUMB_SIZE }), { fingerprint });
      } catch (err) {
        const missing = isToolMissing(err);
        if (missing) problemStage = TOOL_STAGE;
        t = { thumb: null, width: null, height: null, problem: missing ? err.message : 'No frame could be taken from this video for its thumbnail.' };
      }
    } else {
      t = (await this.adoptUnhashed(row, path, hash))
        ?? (await makeImageThumb(this.ctx, { path, format: row.format, isRaw: row.is_raw === 1, hash, buf: null, orientation: row.orientation, fingerprint }));
      if (t.missingTool) problemStage = TOOL_STAGE;
      ({ width, height } = decodedSize(row, t));
    }
    // No full thumbnail: the embedded preview (if any) stays what the grid shows, and the
    // reason is recorded like any scan problem.
    const mediaHash = await media;
    const thumb = t.thumb ?? (row.thumb_state === 'preview' ? row.thumb : null);
    const state = t.thumb ? 'full' : null;
    const changed = this.ctx.db.transaction(() => {
      if (!setFullThumb(this.ctx.db, { id, hash, thumb, state, width, height, problem: t.problem ? 1 : 0 })) return false; // the file changed meanwhile: its new row has its own job
      if (mediaHash) recordOwedMediaHash(this.ctx.db, id, hash, mediaHash);
      if (t.fingerprint) saveFingerprint(this.ctx.db, id, hash, t.fingerprint);
      if (t.problem) this.addError.run(row.folder_id, id, path, problemStage, t.problem, Date.now());
      return true;
    })();
    if (!changed) return false;
    this.queueAnnounce(id);
    if (t.problem) this.listeners.get(id)?.({ path, reason: t.problem });
    return false;
  }

  /**
   * The picture of a file not hashed yet, stored under a name of this version of the file
   * (unhashedThumbName) with the row still owed its full thumbnail ('preview'). False when it
   * could not be made cleanly: the whole job then runs at once and records why.
   */
  private async showUnhashed(row: OwedRow, path: string): Promise<boolean> {
    const name = unhashedThumbName(path, row.size, row.mtime_ms);
    const t = await makeImageThumb(this.ctx, { path, format: row.format, isRaw: row.is_raw === 1, hash: name, buf: null, orientation: row.orientation, fingerprint: false });
    if (!t.thumb || t.problem) return false;
    const { width, height } = decodedSize(row, t);
    // Not if the row was hashed or changed meanwhile: then its job goes on as any other.
    const shown = setFullThumb(this.ctx.db, { id: row.id, hash: null, thumb: t.thumb, state: 'preview', width, height, problem: 0 });
    if (shown) this.queueAnnounce(row.id);
    return shown;
  }

  /**
   * The thumbnail showUnhashed made, now named by the content hash like any other (renamed,
   * not decoded again). Null when the row shows something else, or the file is gone.
   */
  private async adoptUnhashed(row: OwedRow, path: string, hash: string): Promise<ThumbResult | null> {
    if (row.thumb_state !== 'preview' || row.thumb !== thumbRelPath(unhashedThumbName(path, row.size, row.mtime_ms))) return null;
    const from = thumbAbsPath(this.ctx, row.thumb);
    const rel = thumbRelPath(hash);
    const to = thumbAbsPath(this.ctx, rel);
    try {
      if (existsSync(to)) await rm(from, { force: true }); // the same picture elsewhere in the library
      else {
        await mkdir(dirname(to), { recursive: true });
        await rename(from, to);
      }
    } catch {
      return null;
    }
    // The decoded size was recorded with the picture; the fingerprint is taken from the
    // thumbnail after the scan (fillMissingFingerprints).
    return { thumb: rel, width: null, height: null, problem: null };
  }

  private queueAnnounce(id: number): void {
    this.announce.push(id);
    if (this.announceTimer) return;
    this.announceTimer = setTimeout(() => this.flushAnnounce(), ANNOUNCE_MS);
  }

  private flushAnnounce(): void {
    if (this.announceTimer) clearTimeout(this.announceTimer);
    this.announceTimer = null;
    if (this.announce.length === 0) return;
    const assetIds = this.announce.splice(0);
    this.ctx.events.emit('thumbnailsChanged', { assetIds });
  }
}

/**
 * Decoded size beats EXIF's claim (edited files often keep a stale one), except for RAWs,
 * whose thumbnail comes from a smaller embedded preview; a HEIF file may rotate itself (irot),
 * so the decoder's displayed size is taken as it is.
 */
function decodedSize(row: OwedRow, t: ThumbResult): { width: number | null; height: number | null } {
  if (t.displayed) return t.displayed;
  if (t.width === null || t.height === null) return { width: row.width, height: row.height };
  const swap = row.orientation !== null && row.orientation >= 5;
  return swap ? { width: t.height, height: t.width } : { width: t.width, height: t.height };
}

/** The thumbnail name of a picture shown before its file was hashed: this path, size and time. */
export function unhashedThumbName(path: string, size: number, mtimeMs: number): string {
  return 'u' + createHash('sha256').update(`${path}\0${size}\0${mtimeMs}`).digest('hex');
}

const queues = new WeakMap<LibraryCtx, ThumbQueue>();

/** The library's one background thumbnail queue. */
export function thumbQueue(ctx: LibraryCtx): ThumbQueue {
  let q = queues.get(ctx);
  if (!q) {
    q = new ThumbQueue(ctx);
    queues.set(ctx, q);
  }
  return q;
}
