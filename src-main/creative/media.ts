import { mkdir, stat } from 'node:fs/promises';
import { extname, isAbsolute, join } from 'node:path';
import { openImage } from '../library/media/decode';
import type { MediaRef } from '../../src-preload/contract';
import { ApiError } from '../core/errors';
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
  audio: { ext: LIPSYNC_AUDIO_EXT, what: 'Lipsync audio must be MP3, WAV, M4A, OGG, FLAC, OPUS, AIFF, WMA, WEBM, WEBA, OGA, MID or AU (interface 4.9)' },
  video: { ext: LIPSYNC_VIDEO_EXT, what: 'Lipsync video must be MP4, MOV, AVI, WEBM, MPEG, MPG, M4V, WMV, OGV, OGM or ASX (interface 4.9)' },
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
