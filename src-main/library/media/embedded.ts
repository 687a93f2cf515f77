import exifr from 'exifr';
import { heifExifOrientation, heifHasTransform, heifThumbnail, looksLikeHeif } from './heif';

// The picture a file already carries for quick display, taken out without decoding the photo
// itself: the EXIF thumbnail of a JPEG or TIFF (IFD1, ~160 px), the preview a RAW or DNG
// camera embeds (PreviewImage, JpgFromRaw...), the thumbnail item of a HEIC (`thmb`). The scan
// shows it in the grid at once; the full thumbnail replaces it when made.

export interface EmbeddedPicture {
  /** A JPEG, or raw RGB or RGBA pixels (HEIC's thumbnail, decoded). */
  input: Buffer;
  raw?: { width: number; height: number; channels: 3 | 4 };
  /** Orientation to apply (the embedded picture is stored as the sensor saw it). */
  orientation: number;
}

const isJpeg = (b: Buffer | Uint8Array | undefined): b is Buffer | Uint8Array => !!b && b.length > 4 && b[0] === 0xff && b[1] === 0xd8;

/** RAW previews, smallest useful first: the grid needs ~400 px, not the camera's full-size JPEG. */
const RAW_PREVIEW_TAGS = ['PreviewImage', 'ThumbnailImage', 'JpgFromRaw', 'OtherImage'];

export interface EmbeddedSource {
  path: string;
  format: string;
  isRaw: boolean;
  /** The file's bytes when the scan holds them. */
  buf: Buffer | null;
  /** The file's EXIF orientation as the metadata reader found it. */
  orientation: number | null;
  /** Reads one binary tag with exiftool (RAW previews); rejects when the file has none. */
  extractTag: (tag: string, path: string) => Promise<Buffer>;
}

/**
 * Whether files of this format can carry a picture for quick display (what embeddedPicture()
 * looks for). Those that cannot (PNG, WebP, GIF, videos...) show nothing until their full
 * thumbnail is made, so a scan records them first and their thumbnails start early.
 */
export function mayCarryPicture(format: { kind: string; format: string; isRaw: boolean }): boolean {
  return format.kind === 'image' && (format.isRaw || ['jpeg', 'tiff', 'heic', 'heif'].includes(format.format));
}

export async function embeddedPicture(src: EmbeddedSource): Promise<EmbeddedPicture | null> {
  const orientation = src.orientation ?? 1;
  if (src.isRaw) {
    for (const tag of RAW_PREVIEW_TAGS) {
      try {
        const buf = await src.extractTag(tag, src.path);
        if (isJpeg(buf) && buf.length > 2000) return { input: buf, orientation };
      } catch {
        // This camera does not write that tag; try the next.
      }
    }
    return null;
  }
  if (!src.buf) return null;
  if (src.format === 'jpeg' || src.format === 'tiff') {
    try {
      const thumb = await exifr.thumbnail(src.buf);
      if (isJpeg(thumb)) return { input: Buffer.from(thumb.buffer, thumb.byteOffset, thumb.byteLength), orientation };
    } catch {
      // No IFD1 or an unreadable one: the file simply waits for its full thumbnail.
    }
    return null;
  }
  if ((src.format === 'heic' || src.format === 'heif') && looksLikeHeif(src.buf.subarray(0, 64))) {
    try {
      const px = await heifThumbnail(src.buf);
      if (!px) return null;
      // libheif applied the thumbnail's own transforms; EXIF orientation only when the file has none.
      const o = heifHasTransform(src.buf) ? 1 : heifExifOrientation(src.buf) ?? 1;
      return { input: px.data, raw: { width: px.width, height: px.height, channels: px.channels }, orientation: o };
    } catch {
      return null;
    }
  }
  return null;
}
