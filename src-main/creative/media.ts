import { mkdir, stat } from 'node:fs/promises';
import { extname, isAbsolute, join } from 'node:path';
import { openImage } from '../library/media/decode';
import type { MediaRef } from '../../src-preload/contract';
import { ApiError } from '../core/errors';
import { isToolMissing, runTool, toolErrorLine } from '../core/tools';
import { assetPath, getAssetRow } from '../library/assets';
import type { LibraryCtx } from '../library/context';
import { IMAGE_EXT, LIPSYNC_AUDIO_EXT, LIPSYNC_VIDEO_EXT } from '../service/endpoints';

// Sources of creative requests: a library asset or an absolute path, checked against the
// formats the interface lists before anything is sent.

export interface ResolvedMedia {
  path: string;
  assetId: number | null;
}

export async function resolveRef(ctx: LibraryCtx, ref: MediaRef, field: string): Promise<ResolvedMedia> {
  let path: string;
  let assetId: number | null = null;
  if ('assetId' in ref) {
    const row = getAssetRow(ctx, ref.assetId);
    if (!row) throw new ApiError('not_found', `${field}: asset ${ref.assetId} is not in the library (it may have been removed).`, field);
    path = assetPath(row);
    assetId = row.id;
  } else {
    if (!isAbsolute(ref.path)) throw new ApiError('validation', `${field}: give an absolute path to the file.`, field);
    path = ref.path;
  }
  const s = await stat(path).catch(() => null);
  if (!s || !s.isFile()) throw new ApiError('validation', `${field}: the file ${path} cannot be read (missing, offline or not a file).`, field);
  return { path, assetId };
}

export type MediaRule = 'audio' | 'video' | 'image';

const RULES: Record<MediaRule, { ext: Record<string, string>; what: string }> = {
  audio: { ext: LIPSYNC_AUDIO_EXT, what: 'Lipsync audio must be MP3, WAV, M4A, OGG, FLAC, OPUS, AIFF, WMA, WEBM, WEBA, OGA, MID or AU' },
  video: { ext: LIPSYNC_VIDEO_EXT, what: 'Lipsync video must be MP4, MOV, AVI, WEBM, MPEG, MPG, M4V, WMV, OGV, OGM or ASX' },
  image: { ext: IMAGE_EXT, what: 'The image must be JPEG, PNG or WebP' },
};

export const ruleExtensions = (rule: MediaRule): string[] => Object.keys(RULES[rule].ext);

/** A video by its extension (face swap: a video target goes to video face swap). */
export const isVideoPath = (path: string): boolean => Object.hasOwn(LIPSYNC_VIDEO_EXT, extname(path).slice(1).toLowerCase());

/** Throws a validation error naming the rule when the file's type is not accepted. */
export function checkMediaType(path: string, rule: MediaRule, field: string): string {
  const ext = extname(path).slice(1).toLowerCase();
  const mime = RULES[rule].ext[ext];
  if (!mime) throw new ApiError('validation', `${field}: ${RULES[rule].what}; “${path.split(/[\\/]/).pop()}” is not.`, field);
  return mime;
}

/** Editing sources go as Data URIs: a copy at most this long on its long side keeps requests sane. */
export const EDIT_SOURCE_MAX_SIDE = 2048;

/**
 * A copy of an editing source that the service accepts: EXIF-rotated, metadata stripped,
 * downscaled to EDIT_SOURCE_MAX_SIDE (never enlarged), PNG kept as PNG (transparency), else JPEG.
 */
export async function prepareEditSource(path: string, dir: string, name: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  const png = extname(path).toLowerCase() === '.png';
  const out = join(dir, `${name}${png ? '.png' : '.jpg'}`);
  try {
    const img = (await openImage(path, { maxPixels: 300_000_000 })).pipeline('none')
      .resize(EDIT_SOURCE_MAX_SIDE, EDIT_SOURCE_MAX_SIDE, { fit: 'inside', withoutEnlargement: true });
    await (png ? img.png() : img.flatten({ background: '#ffffff' }).jpeg({ quality: 90 })).toFile(out);
  } catch (e) {
    throw new ApiError('validation', `The picture ${path} could not be read: ${(e as Error).message.split('\n')[0]}`, 'sources');
  }
  return out;
}

// ---- copies without metadata -------------------------------------------------------------
// Nothing that identifies a person or place leaves the machine unless the user sends it on
// purpose: every file a creative task sends is a copy without EXIF, XMP, IPTC, GPS, maker
// notes, QuickTime location and user-data atoms or ID3 tags.

/** Where a task's stripped input copies live (until the task is finished). */
export async function inputsDir(stagingDir: string, kind: string): Promise<string> {
  const dir = join(stagingDir, 'inputs', `${kind}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`);
  await mkdir(dir, { recursive: true });
  return dir;
}

/**
 * An image re-encoded without any metadata (sharp writes none unless asked): upright (EXIF
 * rotation applied), full size, in its own format (JPEG at quality 95, PNG, WebP).
 */
export async function strippedImage(path: string, dir: string, name: string, field: string): Promise<string> {
  const ext = extname(path).toLowerCase();
  const format = ext === '.png' ? 'png' : ext === '.webp' ? 'webp' : 'jpeg';
  const out = join(dir, `${name}${format === 'jpeg' ? '.jpg' : `.${format}`}`);
  try {
    const img = (await openImage(path, { maxPixels: 300_000_000 })).pipeline('none');
    await (format === 'png' ? img.png() : format === 'webp' ? img.webp({ quality: 95 }) : img.flatten({ background: '#ffffff' }).jpeg({ quality: 95 })).toFile(out);
  } catch (e) {
    throw new ApiError('validation', `${field}: the picture ${path} could not be read: ${(e as Error).message.split('\n')[0]}`, field);
  }
  return out;
}

const STRIP = ['-map_metadata', '-1', '-map_metadata:s', '-1', '-map_chapters', '-1', '-fflags', '+bitexact', '-flags:v', '+bitexact', '-flags:a', '+bitexact'];

/**
 * Audio or video remuxed without metadata (`-map_metadata -1`, no chapters, no data,
 * subtitle or cover-art streams, no ID3), streams copied; when the container cannot take a
 * plain copy, audio becomes WAV and video an H.264/AAC MP4 (both formats the service takes).
 */
export async function strippedMedia(path: string, dir: string, name: string, kind: 'audio' | 'video', field: string): Promise<string> {
  const ext = extname(path).toLowerCase();
  const streams = kind === 'audio' ? ['-map', '0:a:0'] : ['-map', '0:v:0', '-map', '0:a:0?'];
  const id3 = ext === '.mp3' ? ['-id3v2_version', '0', '-write_id3v1', '0'] : [];
  const mov = ['.mp4', '.mov', '.m4v', '.m4a'].includes(ext) ? ['-movflags', '+faststart'] : [];
  const copy = join(dir, `${name}${ext}`);
  try {
    await runTool('ffmpeg', ['-nostdin', '-v', 'error', '-y', '-i', path, ...streams, ...STRIP, ...id3, ...mov, '-c', 'copy', copy], { timeoutMs: 300_000 });
    return copy;
  } catch (e) {
    if (isToolMissing(e)) throw new ApiError('io', `${field}: ${e.message} Tagsmith sends only a copy without location and other metadata, and needs ffmpeg to make it; nothing was sent.`, field);
  }
  const out = join(dir, `${name}${kind === 'audio' ? '.wav' : '.mp4'}`);
  const codecs = kind === 'audio' ? ['-c:a', 'pcm_s16le'] : ['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '20', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-b:a', '160k', '-movflags', '+faststart'];
  try {
    await runTool('ffmpeg', ['-nostdin', '-v', 'error', '-y', '-i', path, ...streams, ...STRIP, ...codecs, out], { timeoutMs: 900_000 });
  } catch (e) {
    throw new ApiError('validation', `${field}: a copy of ${path} without its metadata could not be made, so nothing was sent: ${toolErrorLine(e)}`, field);
  }
  return out;
}
