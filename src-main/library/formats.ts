import type { AssetKind } from '../../src-preload/contract';

// Which files are assets, decided by extension alone so that a walk of 100k files never
// opens a file it is going to ignore. Anything not listed is skipped silently (documents,
// sidecars, the OS's own clutter); `.xmp` files are read as sidecars of the asset they
// sit next to, never as assets.

export interface FormatInfo {
  kind: AssetKind;
  /** Short lower-case format name stored in assets.format ('jpeg', 'cr2', 'mp4', ...). */
  format: string;
  isRaw: boolean;
  /** True when a browser can show the original directly (no preview needs to be made). */
  browserViewable: boolean;
}

const image = (format: string, browserViewable: boolean): FormatInfo => ({ kind: 'image', format, isRaw: false, browserViewable });
const raw = (format: string): FormatInfo => ({ kind: 'image', format, isRaw: true, browserViewable: false });
const video = (format: string): FormatInfo => ({ kind: 'video', format, isRaw: false, browserViewable: false });
const audio = (format: string): FormatInfo => ({ kind: 'audio', format, isRaw: false, browserViewable: false });

const FORMATS: Readonly<Record<string, FormatInfo>> = {
  jpg: image('jpeg', true),
  jpeg: image('jpeg', true),
  jpe: image('jpeg', true),
  png: image('png', true),
  webp: image('webp', true),
  gif: image('gif', true),
  // Vector results of the image generation models land in the library too.
  svg: image('svg', true),
  tif: image('tiff', false),
  tiff: image('tiff', false),
  heic: image('heic', false),
  heif: image('heif', false),
  // Chromium shows AVIF itself; libvips decodes it for thumbnails and derivatives.
  avif: image('avif', true),
  hif: image('heif', false),
  cr2: raw('cr2'),
  cr3: raw('cr3'),
  nef: raw('nef'),
  arw: raw('arw'),
  dng: raw('dng'),
  raf: raw('raf'),
  orf: raw('orf'),
  rw2: raw('rw2'),
  mp4: video('mp4'),
  m4v: video('mp4'),
  mov: video('mov'),
  avi: video('avi'),
  mpg: video('mpeg'),
  mpeg: video('mpeg'),
  mkv: video('mkv'),
  webm: video('webm'),
  mp3: audio('mp3'),
  wav: audio('wav'),
  m4a: audio('m4a'),
  ogg: audio('ogg'),
  oga: audio('ogg'),
  flac: audio('flac'),
};

/** Lower-case extension without the dot ('' when the name has none). */
export function extOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
}

export function formatForExt(ext: string): FormatInfo | null {
  return Object.hasOwn(FORMATS, ext) ? FORMATS[ext] : null;
}

export function formatForName(name: string): FormatInfo | null {
  return formatForExt(extOf(name));
}

export function isSidecarName(name: string): boolean {
  return extOf(name) === 'xmp';
}

/** Lower-cased folder-relative path without extension: a RAW and its JPEG share it. */
export function stackKeyOf(relPath: string): string {
  const slash = relPath.lastIndexOf('/');
  const dot = relPath.lastIndexOf('.');
  const base = dot > slash + 1 ? relPath.slice(0, dot) : relPath;
  return base.toLowerCase();
}
