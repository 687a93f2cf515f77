import { stmt, type Db } from './statements';

// What the scan learns of the files of a folder, written through the door (issue 33): a new
// photo, a changed one, a moved one, one whose file went, the fields the metadata engine
// decided on, the folder's scan checkpoint; and what the passes after the grid learn of a
// photo (its media hash, its full thumbnail and decoded size, its exposure). The scan records
// the photo's asset.add / asset.change / asset.move / asset.vanish in the change log in the
// same transaction as these writes (library/scan.ts, one per batch of files); the rest are
// facts each machine learns from its own files and are not recorded as changes.
// Every statement is prepared once per connection (stmt): a batch of a hundred files costs a
// hundred runs of the same statements in one transaction, as before.

// Exposure columns (migration 13) and the parameters bound to them.
const EXPOSURE_FIELDS = [
  ['aperture', 'aperture'], ['shutter', 'shutter'], ['iso', 'iso'], ['focal_length', 'focalLength'],
  ['focal_length_35', 'focalLength35'], ['exposure_bias', 'exposureBias'], ['flash', 'flash'],
] as const;
const EXPOSURE_COLUMNS = EXPOSURE_FIELDS.map(([c]) => c).join(', ');
const EXPOSURE_PARAMS = EXPOSURE_FIELDS.map(([, p]) => `@${p}`).join(', ');
const EXPOSURE_SET = EXPOSURE_FIELDS.map(([c, p]) => `${c} = @${p}`).join(', ');

/** A photo's exposure as stored (flash 1/0). */
export type ExposureColumns = Record<(typeof EXPOSURE_FIELDS)[number][1], number | string | null>;

/** A scanned file's facts and the metadata read from it, bound by name to the statements below. */
export type ScannedAsset = ExposureColumns & Record<
  'folderId' | 'relPath' | 'name' | 'ext' | 'kind' | 'format' | 'isRaw' | 'size' | 'mtimeMs' | 'hash' | 'mediaHash' | 'width' | 'height' |
  'orientation' | 'durationS' | 'videoCodec' | 'audioCodec' | 'takenAt' | 'cameraMake' | 'cameraModel' | 'lens' | 'gpsLat' | 'gpsLon' |
  'rating' | 'colorLabel' | 'caption' | 'title' | 'headline' | 'creator' | 'copyright' | 'credit' | 'city' | 'country' |
  'thumb' | 'thumbState' | 'stackKey' | 'hasError' | 'now' | 'blockDisagreement',
  string | number | null
>;

const INSERT_SQL = `INSERT INTO assets (folder_id, rel_path, name, ext, kind, format, is_raw, size, mtime_ms, content_hash, media_hash, width, height,
     orientation, duration_s, video_codec, audio_codec, taken_at, camera_make, camera_model, lens, gps_lat, gps_lon,
     rating, color_label, caption, title, headline, creator, copyright, credit, city, country, thumb, thumb_state, stack_key, has_error, added_at, indexed_at,
     ${EXPOSURE_COLUMNS}, exposure_read, block_disagreement, flag)
   VALUES (@folderId, @relPath, @name, @ext, @kind, @format, @isRaw, @size, @mtimeMs, @hash, @mediaHash, @width, @height,
     @orientation, @durationS, @videoCodec, @audioCodec, @takenAt, @cameraMake, @cameraModel, @lens, @gpsLat, @gpsLon,
     COALESCE(@rating, 0), @colorLabel, @caption, @title, @headline, @creator, @copyright, @credit, @city, @country,
     @thumb, @thumbState, @stackKey, @hasError, @now, @now, ${EXPOSURE_PARAMS}, 1, @blockDisagreement, @flag)`;

// A changed file: file facts are replaced; what the user may have set (rating, caption,
// title) is only replaced when the file now carries a value of its own.
const UPDATE_SQL = `UPDATE assets SET name = @name, ext = @ext, kind = @kind, format = @format, is_raw = @isRaw, size = @size,
     mtime_ms = @mtimeMs, content_hash = @hash, media_hash = @mediaHash, width = @width, height = @height, orientation = @orientation,
     duration_s = @durationS, video_codec = @videoCodec, audio_codec = @audioCodec, taken_at = @takenAt,
     camera_make = @cameraMake, camera_model = @cameraModel, lens = @lens, gps_lat = @gpsLat, gps_lon = @gpsLon,
     rating = COALESCE(@rating, rating), color_label = COALESCE(@colorLabel, color_label),
     caption = COALESCE(@caption, caption), title = COALESCE(@title, title),
     headline = COALESCE(@headline, headline), creator = COALESCE(@creator, creator), copyright = COALESCE(@copyright, copyright),
     credit = COALESCE(@credit, credit), city = COALESCE(@city, city), country = COALESCE(@country, country),
     thumb = @thumb, thumb_state = @thumbState, preview = NULL,
     stack_key = @stackKey, has_error = @hasError, indexed_at = @now, removed_at = NULL,
     ${EXPOSURE_SET}, exposure_read = 1, block_disagreement = @blockDisagreement
   WHERE id = @id`;

// A moved file is the same content: only where it lives changes; everything known is kept.
const MOVE_SQL = `UPDATE assets SET folder_id = @folderId, rel_path = @relPath, name = @name, ext = @ext, stack_key = @stackKey,
     size = @size, mtime_ms = @mtimeMs, thumb_state = CASE WHEN thumb IS NULL THEN @thumbState ELSE thumb_state END,
     thumb = COALESCE(thumb, @thumb), indexed_at = @now, removed_at = NULL
   WHERE id = @id`;

/** A new photo (rejected when its file says so: XMP Rating -1); returns its id. */
export function insertScannedAsset(db: Db, a: ScannedAsset, rejected: boolean): number {
  return Number(stmt(db, INSERT_SQL).run({ ...a, flag: rejected ? 'reject' : null }).lastInsertRowid);
}

/** A photo whose file changed (or came back): its file facts, and the fields its file now carries. */
export function updateScannedAsset(db: Db, id: number, a: ScannedAsset): void {
  stmt(db, UPDATE_SQL).run({ ...a, id });
}

/** A photo whose file moved (same content): where it lives; a thumbnail it lacked. */
export function moveScannedAsset(db: Db, id: number, a: ScannedAsset): void {
  stmt(db, MOVE_SQL).run({ ...a, id });
}

/** The managed fields the metadata engine's merge decided (caption … label). */
export function setMergedFields(
  db: Db,
  id: number,
  f: Record<'caption' | 'title' | 'headline' | 'creator' | 'copyright' | 'credit' | 'city' | 'country' | 'label', string | null> & { rating: number },
): void {
  stmt(
    db,
    `UPDATE assets SET caption = @caption, title = @title, rating = @rating, headline = @headline, creator = @creator,
       copyright = @copyright, credit = @credit, city = @city, country = @country, color_label = @label WHERE id = @id`,
  ).run({ ...f, id });
}

/**
 * The reject flag follows the file's XMP Rating -1 as the merge decided; a pick stays a pick
 * unless the file is now rejected (XMP has no pick).
 */
export function setRejectedFromFile(db: Db, id: number, rejected: boolean): void {
  stmt(db, "UPDATE assets SET flag = CASE WHEN @rejected = 1 THEN 'reject' WHEN flag = 'reject' THEN NULL ELSE flag END WHERE id = @id").run({
    id,
    rejected: rejected ? 1 : 0,
  });
}

/** A photo whose file is gone (a complete scan found it nowhere); false if it was already marked. */
export function markAssetVanished(db: Db, id: number, at: number): boolean {
  return stmt(db, 'UPDATE assets SET removed_at = ? WHERE id = ? AND removed_at IS NULL').run(at, id).changes > 0;
}

/** Where a scan of the folder got to (JSON), so the next one sees a killed scan. */
export function saveScanCheckpoint(db: Db, folderId: number, checkpoint: string): void {
  stmt(db, 'UPDATE folders SET scan_checkpoint = ? WHERE id = ?').run(checkpoint, folderId);
}

/** A complete scan of the folder: no checkpoint left, and when it ended. */
export function finishFolderScan(db: Db, folderId: number, at: number): void {
  stmt(db, 'UPDATE folders SET scan_checkpoint = NULL, last_scan_at = ? WHERE id = ?').run(at, folderId);
}

/** A photo's exposure read again from its metadata alone (libraries catalogued before migration 13). */
export function setExposure(db: Db, id: number, e: ExposureColumns): void {
  stmt(db, `UPDATE assets SET ${EXPOSURE_SET}, exposure_read = 1 WHERE id = @id`).run({ ...e, id });
}

/** A photo's media hash, taken again from its image data alone. */
export function setMediaHash(db: Db, id: number, mediaHash: string): void {
  stmt(db, 'UPDATE assets SET media_hash = ? WHERE id = ?').run(mediaHash, id);
}

/**
 * The media hash of a photo shown before it was taken, unless the row has one already or its
 * file changed since (another content hash). Returns whether it was recorded.
 */
export function setOwedMediaHash(db: Db, id: number, contentHash: string, mediaHash: string): boolean {
  return stmt(db, 'UPDATE assets SET media_hash = ? WHERE id = ? AND media_hash IS NULL AND content_hash = ?').run(mediaHash, id, contentHash).changes > 0;
}

/**
 * A photo's full thumbnail and decoded size, if its row still describes the file that was
 * read (same content hash) and still owes one; a problem marks the photo. Returns whether it
 * was recorded. (State 'preview' with no hash: the picture of a file not hashed yet, which
 * still owes the rest of its job; thumb-queue.ts showUnhashed.)
 */
export function setFullThumb(
  db: Db,
  t: { id: number; hash: string | null; thumb: string | null; state: string | null; width: number | null; height: number | null; problem: 0 | 1 },
): boolean {
  return stmt(
    db,
    `UPDATE assets SET thumb = @thumb, thumb_state = @state, width = @width, height = @height,
       has_error = CASE WHEN @problem THEN 1 ELSE has_error END
     WHERE id = @id AND content_hash IS @hash AND thumb_state IN ('preview', 'pending')`,
  ).run(t).changes > 0;
}
