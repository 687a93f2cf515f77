import { readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { extOf, formatForExt } from '../library/formats';
import { ownsStemSidecar } from './reader';

// Where an asset's metadata goes. Formats exiftool rewrites reliably get it in place; camera
// RAW (whose maker-specific layouts Lightroom and Capture One also refuse to touch) and
// anything else get an XMP sidecar named the way Lightroom names it: 'IMG_0001.xmp'.

/** What a target can hold. IPTC IIM only where it is standard (not PNG/WebP/HEIC/video). */
export interface Caps {
  iptc: boolean;
  /** EXIF ImageDescription: 'always' creates IFD0 if needed; 'if-present' only updates an existing EXIF block. */
  exif: 'always' | 'if-present' | 'never';
}

const IN_PLACE: Readonly<Record<string, Caps>> = {
  jpeg: { iptc: true, exif: 'always' },
  tiff: { iptc: true, exif: 'always' },
  dng: { iptc: true, exif: 'always' },
  png: { iptc: false, exif: 'if-present' },
  webp: { iptc: false, exif: 'if-present' },
  heic: { iptc: false, exif: 'if-present' },
  heif: { iptc: false, exif: 'if-present' },
  // exiftool rewrites QuickTime containers whole (XMP in a uuid box), never in place.
  mp4: { iptc: false, exif: 'never' },
  mov: { iptc: false, exif: 'never' },
};

export const SIDECAR_CAPS: Caps = { iptc: false, exif: 'never' };

/** Capabilities of a file written in place, by its extension; null when it must get a sidecar. */
export function inPlaceCaps(path: string): Caps | null {
  const ext = extOf(basename(path));
  if (ext === 'xmp') return SIDECAR_CAPS;
  const format = formatForExt(ext);
  return format && Object.hasOwn(IN_PLACE, format.format) ? IN_PLACE[format.format] : null;
}

export const capsForPath = (path: string): Caps => inPlaceCaps(path) ?? SIDECAR_CAPS;

export interface Target {
  path: string;
  role: 'file' | 'sidecar';
  caps: Caps;
}

const stemOf = (name: string): string => {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(0, dot) : name;
};

/**
 * The files to write for one asset: the file itself when it can be written in place, and the
 * sidecar the indexer reads beside it (library/scan.ts sidecarFor: 'IMG_1.CR2.xmp' first,
 * then 'IMG_1.xmp' for files a browser cannot show). 'IMG_1.xmp' belongs to the RAW of a
 * RAW+JPEG (or RAW+HEIC, RAW+MOV) pair; another file of that name that needs a sidecar gets
 * 'IMG_1.MOV.xmp' so the two never overwrite each other.
 */
/**
 * Whether `name` may start with `lower` (lower-case) ignoring case, without allocating: exact
 * for ASCII; true (left to the full comparison) where either holds another character, whose
 * lower case may differ in length or by context.
 */
export function mayStartWith(name: string, lower: string): boolean {
  const n = Math.min(name.length, lower.length);
  for (let i = 0; i < lower.length; i++) if (lower.charCodeAt(i) > 127) return true;
  for (let i = 0; i < n; i++) {
    let c = name.charCodeAt(i);
    if (c > 127) return true;
    if (c >= 65 && c <= 90) c += 32;
    if (c !== lower.charCodeAt(i)) return false;
  }
  // Every character compared was ASCII: a shorter name cannot hold the whole stem.
  return name.length >= lower.length;
}

export async function targetsFor(absPath: string): Promise<Target[]> {
  const dir = dirname(absPath);
  const name = basename(absPath);
  const stem = stemOf(name).toLowerCase();
  // Only the folder's names that may share the stem are looked at (a write of a thousand
  // photos in one folder lowered every name of it three times per photo: a million strings
  // of garbage the main thread collected).
  const entries = (await readdir(dir).catch(() => [] as string[])).filter((e) => mayStartWith(e, stem));
  const find = (wanted: string): string | undefined => entries.find((e) => e.toLowerCase() === wanted.toLowerCase());
  const exact = find(`${name}.xmp`);
  const byBase = find(`${stemOf(name)}.xmp`);
  const format = formatForExt(extOf(name));
  const isRaw = format?.isRaw === true && format.format !== 'dng';
  // The other files of the same stem: whether 'stem.xmp' is this file's (metadata/reader.ts ownsStemSidecar, as the indexer reads it).
  const siblings = entries.flatMap((e) => {
    if (e === name || stemOf(e).toLowerCase() !== stem) return [];
    const f = formatForExt(extOf(e));
    return f ? [f] : [];
  });
  const owns = ownsStemSidecar({ isRaw: format?.isRaw === true, browserViewable: format?.browserViewable === true }, siblings);

  const caps = isRaw ? null : inPlaceCaps(absPath);
  if (caps) {
    const targets: Target[] = [{ path: absPath, role: 'file', caps }];
    // Keep an existing sidecar the indexer merges in step, or the rescan would read the old values back.
    const sidecar = exact ?? (owns ? byBase : undefined);
    if (sidecar) targets.push({ path: join(dir, sidecar), role: 'sidecar', caps: SIDECAR_CAPS });
    return targets;
  }
  const sidecar = exact ?? (owns ? (byBase ?? `${stemOf(name)}.xmp`) : `${name}.xmp`);
  return [{ path: join(dir, sidecar), role: 'sidecar', caps: SIDECAR_CAPS }];
}
