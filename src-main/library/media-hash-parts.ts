// The byte ranges of a picture file that hold its image data and not its metadata, and of a
// clip its media data (see media-hash.ts): pure parsers over a Buffer, with no import, so the scan's worker thread
// (media/pixel-worker.ts) hashes a file's media content beside its content hash.

/** Prefix of a media hash taken here or by exiftool (a content hash has none). */
export const MEDIA_HASH_PREFIX = 'm:';

/** The parser of each format whose image data is found in its bytes here. */
const PARSERS: Readonly<Record<string, (buf: Buffer) => [number, number][] | null>> = {
  jpeg: (buf) => jpegImageParts(buf),
  png: (buf) => pngImageParts(buf),
  webp: (buf) => webpImageParts(buf),
  tiff: (buf) => tiffImageParts(buf),
  dng: (buf) => tiffImageParts(buf),
};

/** Whether a parser here applies to the format (else its media hash comes another way). */
export const hasImageParts = (format: string): boolean => Object.hasOwn(PARSERS, format);

/**
 * The ranges of a file held in memory that its media hash covers: a picture's image data, an
 * MP4/MOV's media data (as isoMediaHash reads them from disk); null when no parser applies.
 */
export function mediaHashParts(buf: Buffer, format: string): [number, number][] | null {
  const parts = format === 'mp4' || format === 'mov' ? isoMediaParts(buf) : hasImageParts(format) ? PARSERS[format](buf) : null;
  return parts && parts.length > 0 ? parts : null;
}

export interface IsoBox {
  type: string;
  /** Where the box starts, and where its payload starts. */
  at: number;
  payload: number;
  /** Just past the box. */
  end: number;
}

/**
 * An ISO media file's (MP4, MOV) top-level boxes in order, each header read through `header`
 * (up to 16 bytes at a position); the walk stops where the chain breaks (a size past the end).
 */
export function* isoBoxes(size: number, header: (pos: number) => Buffer): Generator<IsoBox> {
  let pos = 0;
  while (pos + 8 <= size) {
    const h = header(pos);
    if (h.length < 8) return;
    let boxSize = h.readUInt32BE(0);
    let headerLen = 8;
    if (boxSize === 1) {
      if (h.length < 16) return;
      boxSize = Number(h.readBigUInt64BE(8));
      headerLen = 16;
    } else if (boxSize === 0) {
      boxSize = size - pos;
    }
    if (boxSize < headerLen || pos + boxSize > size) return;
    yield { type: h.toString('latin1', 4, 8), at: pos, payload: pos + headerLen, end: pos + boxSize };
    pos += boxSize;
  }
}

/** The payloads of an MP4/MOV's top-level `mdat` boxes (its audio and video samples) held in memory, or null when it has none. */
export function isoMediaParts(buf: Buffer): [number, number][] | null {
  const parts: [number, number][] = [];
  for (const box of isoBoxes(buf.length, (pos) => buf.subarray(pos, pos + 16))) if (box.type === 'mdat') parts.push([box.payload, box.end]);
  return parts.length ? parts : null;
}

export interface JpegSegment {
  marker: number;
  /** Where the segment's 0xFF marker byte is. */
  at: number;
  /** Just past its payload; for SOS and EOI, just past the marker. */
  end: number;
}

/**
 * A JPEG's marker segments in order, from after SOI through the first SOS (start of the image
 * data) or EOI, which is the last one given; fill bytes are skipped. The walk just stops when
 * the bytes are not a JPEG or the chain breaks (a byte that is no marker, a length past the
 * end): a caller that needs the whole header sees no SOS or EOI. Every walk over a JPEG's
 * segments goes through here.
 */
export function* jpegSegments(buf: Buffer): Generator<JpegSegment> {
  if (buf.length < 4 || buf[0] !== 0xff || buf[1] !== 0xd8) return;
  let i = 2;
  while (i + 4 <= buf.length) {
    if (buf[i] !== 0xff) return;
    const marker = buf[i + 1];
    if (marker === 0xff) {
      i++; // fill byte
      continue;
    }
    if (marker === 0xda || marker === 0xd9) {
      yield { marker, at: i, end: i + 2 };
      return;
    }
    const len = buf.readUInt16BE(i + 2);
    if (len < 2 || i + 2 + len > buf.length) return;
    yield { marker, at: i, end: i + 2 + len };
    i += 2 + len;
  }
}

/** JPEG: every segment except APPn and COM (where EXIF, XMP, IPTC and ICC live), then the scan data to the end. */
export function jpegImageParts(buf: Buffer): [number, number][] | null {
  const parts: [number, number][] = [];
  for (const { marker, at, end } of jpegSegments(buf)) {
    if (marker === 0xda) {
      parts.push([at, buf.length]); // SOS: the entropy-coded data runs to EOI
      return parts;
    }
    if (marker === 0xd9) return parts.length ? parts : null;
    const isApp = marker >= 0xe0 && marker <= 0xef;
    const isComment = marker === 0xfe;
    if (!isApp && !isComment) parts.push([at, end]);
  }
  return null;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const PNG_METADATA_CHUNKS = new Set(['tEXt', 'iTXt', 'zTXt', 'eXIf', 'tIME']);

/** PNG: every chunk but the textual/EXIF/time ones metadata writers add or change. */
export function pngImageParts(buf: Buffer): [number, number][] | null {
  if (buf.length < 8 || !buf.subarray(0, 8).equals(PNG_SIGNATURE)) return null;
  const parts: [number, number][] = [];
  let i = 8;
  while (i + 12 <= buf.length) {
    const len = buf.readUInt32BE(i);
    const type = buf.toString('latin1', i + 4, i + 8);
    const end = i + 12 + len;
    if (end > buf.length) return null;
    if (!PNG_METADATA_CHUNKS.has(type)) parts.push([i, end]);
    if (type === 'IEND') return parts;
    i = end;
  }
  return null;
}

/** WebP: the RIFF chunks except EXIF, XMP and the VP8X header whose flags announce them. */
export function webpImageParts(buf: Buffer): [number, number][] | null {
  if (buf.length < 12 || buf.toString('latin1', 0, 4) !== 'RIFF' || buf.toString('latin1', 8, 12) !== 'WEBP') return null;
  const parts: [number, number][] = [];
  let i = 12;
  while (i + 8 <= buf.length) {
    const type = buf.toString('latin1', i, i + 4);
    const len = buf.readUInt32LE(i + 4);
    const end = i + 8 + len + (len % 2);
    if (i + 8 + len > buf.length) return null;
    if (type !== 'EXIF' && type !== 'XMP ' && type !== 'VP8X') parts.push([i, Math.min(end, buf.length)]);
    i = end;
  }
  return parts.length ? parts : null;
}

/** TIFF tags that point at image data (strips, tiles, an old-style JPEG thumbnail) and at sub-images. */
const STRIP_OFFSETS = 0x0111;
const STRIP_COUNTS = 0x0117;
const TILE_OFFSETS = 0x0144;
const TILE_COUNTS = 0x0145;
const SUB_IFDS = 0x014a;
const JPEG_OFFSET = 0x0201;
const JPEG_LENGTH = 0x0202;
const POINTER_TAGS = new Set([STRIP_OFFSETS, STRIP_COUNTS, TILE_OFFSETS, TILE_COUNTS, SUB_IFDS, JPEG_OFFSET, JPEG_LENGTH]);
const TYPE_SIZE: Record<number, number> = { 3: 2, 4: 4, 13: 4, 16: 8 };

/**
 * TIFF and DNG: the image data of every image in the file (the IFD chain and its SubIFDs, where
 * a DNG keeps its raw data), found through the strip and tile offsets, in the order the IFDs
 * are linked. Metadata writers move these bytes about and rewrite every IFD, but never change
 * them. BigTIFF is not parsed (null: exiftool's ImageDataHash is asked instead).
 */
export function tiffImageParts(buf: Buffer): [number, number][] | null {
  if (buf.length < 8) return null;
  const order = buf.toString('latin1', 0, 2);
  const le = order === 'II';
  if (!le && order !== 'MM') return null;
  const u16 = (o: number): number => (le ? buf.readUInt16LE(o) : buf.readUInt16BE(o));
  const u32 = (o: number): number => (le ? buf.readUInt32LE(o) : buf.readUInt32BE(o));
  const value = (o: number, size: number): number => (size === 2 ? u16(o) : size === 4 ? u32(o) : Number(le ? buf.readBigUInt64LE(o) : buf.readBigUInt64BE(o)));
  if (u16(2) !== 42) return null;
  const parts: [number, number][] = [];
  const seen = new Set<number>();
  const queue = [u32(4)];
  while (queue.length > 0) {
    const ifd = queue.shift()!;
    if (ifd === 0 || seen.has(ifd)) continue;
    if (seen.size >= 64 || ifd + 2 > buf.length) return null;
    seen.add(ifd);
    const n = u16(ifd);
    if (ifd + 2 + n * 12 + 4 > buf.length) return null;
    const tags = new Map<number, number[]>();
    for (let i = 0; i < n; i++) {
      const e = ifd + 2 + i * 12;
      const tag = u16(e);
      if (!POINTER_TAGS.has(tag)) continue;
      const size = TYPE_SIZE[u16(e + 2)];
      const count = u32(e + 4);
      if (!size || count > 1_000_000) return null;
      const at = size * count <= 4 ? e + 8 : u32(e + 8);
      if (at + size * count > buf.length) return null;
      tags.set(tag, Array.from({ length: count }, (_, k) => value(at + k * size, size)));
    }
    const offsets = tags.get(STRIP_OFFSETS) ?? tags.get(TILE_OFFSETS);
    const counts = tags.get(STRIP_OFFSETS) ? tags.get(STRIP_COUNTS) : tags.get(TILE_COUNTS);
    if (offsets && counts) {
      if (offsets.length !== counts.length) return null;
      for (let k = 0; k < offsets.length; k++) {
        if (offsets[k] + counts[k] > buf.length) return null;
        parts.push([offsets[k], offsets[k] + counts[k]]);
      }
    }
    const jpeg = tags.get(JPEG_OFFSET)?.[0];
    const jpegLength = tags.get(JPEG_LENGTH)?.[0];
    if (jpeg !== undefined && jpegLength !== undefined && jpeg + jpegLength <= buf.length) parts.push([jpeg, jpeg + jpegLength]);
    queue.push(...(tags.get(SUB_IFDS) ?? []), u32(ifd + 2 + n * 12));
  }
  return parts.length ? parts : null;
}
