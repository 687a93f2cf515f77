import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import exifr from 'exifr';
import { DefaultExiftoolArgs, ExifTool } from 'exiftool-vendored';
import { cleanKeywordList } from './keywords';

// Reads what a file already says about itself: capture date, camera, lens, GPS,
// orientation, rating, label, keywords, caption and title. exifr parses from the Buffer the
// scan already holds (~1 ms, no extra I/O) for JPEG/TIFF/PNG/HEIC and TIFF-based RAWs; one
// kept-open exiftool serves what exifr cannot (CR3, RAF, ORF, RW2, videos, XMP sidecars).
// Both are reduced to RawTags so the merging rules (keyword union, caption precedence,
// dates exactly as written) live in one place.

export interface FileMetadata {
  /** 'YYYY-MM-DDTHH:MM:SS', plus '+HH:MM' only when the file records an offset. */
  takenAt: string | null;
  cameraMake: string | null;
  cameraModel: string | null;
  lens: string | null;
  /** Pixel size as stored (before orientation); the scan swaps for display. */
  width: number | null;
  height: number | null;
  orientation: number | null;
  gpsLat: number | null;
  gpsLon: number | null;
  rating: number | null;
  colorLabel: string | null;
  caption: string | null;
  title: string | null;
  keywords: string[];
  /** Stock and rights fields (IPTC Core / XMP); null where the file has none. */
  rights: Record<RightsField, string | null>;
  /** How the picture was exposed; each member null where the file does not record it. */
  exposure: Exposure;
}

/** Exposure as exiftool prints it: the units photographers read, not the EXIF rationals. */
export interface Exposure {
  /** F-number, e.g. 2.8. */
  aperture: number | null;
  /** Exposure time: '1/250' below a quarter second, else seconds ('2.5', '30'). */
  shutter: string | null;
  iso: number | null;
  /** Focal length in mm. */
  focalLength: number | null;
  /** The 35 mm equivalent focal length the camera recorded, in mm. */
  focalLength35: number | null;
  /** Exposure compensation in EV. */
  exposureBias: number | null;
  /** Whether the flash fired. */
  flash: boolean | null;
}

export const emptyExposure = (): Exposure => ({
  aperture: null, shutter: null, iso: null, focalLength: null, focalLength35: null, exposureBias: null, flash: null,
});

/** The EXIF values behind Exposure, as numbers (rationals already divided). */
interface RawExposure {
  fNumber?: number;
  /** APEX aperture value, used only when FNumber is missing (as exiftool's Composite:Aperture). */
  apertureValue?: number;
  exposureTime?: number;
  iso?: number;
  focalLength?: number;
  focalLength35?: number;
  exposureBias?: number;
  /** The EXIF Flash bit field; bit 0 says whether it fired. */
  flash?: number;
}

export type RightsField = 'headline' | 'creator' | 'copyright' | 'credit' | 'city' | 'country';
const RIGHTS: readonly RightsField[] = ['headline', 'creator', 'copyright', 'credit', 'city', 'country'];

/** The fields we use, as found in one source (the file or its sidecar). */
interface RawTags {
  dateOriginal?: string;
  offsetOriginal?: string;
  createDate?: string;
  make?: string;
  model?: string;
  lens?: string;
  orientation?: number;
  lat?: number;
  lon?: number;
  width?: number;
  height?: number;
  rating?: number;
  label?: string;
  iptcKeywords: string[];
  xmpSubject: string[];
  hierarchical: string[];
  tagsList: string[];
  captions: string[];
  titles: string[];
  rights: Record<RightsField, string[]>;
  exposure: RawExposure;
}

const emptyRaw = (): RawTags => ({
  iptcKeywords: [], xmpSubject: [], hierarchical: [], tagsList: [], captions: [], titles: [],
  rights: { headline: [], creator: [], copyright: [], credit: [], city: [], country: [] },
  exposure: {},
});

// ---------------------------------------------------------------------------- exiftool

let exiftool: ExifTool | null = null;
let watchDir: string | null = null;

/** One shared exiftool process pool; two processes keep a 2-core machine responsive. */
export function sharedExifTool(): ExifTool {
  exiftool ??= new ExifTool({ maxProcs: 2, taskTimeoutMillis: 30_000, exiftoolArgs: [...parentWatchArgs(), ...DefaultExiftoolArgs] });
  return exiftool;
}

/** End the shared exiftool processes (app shutdown, end of CLI run, test teardown). */
export async function closeMetadataReader(): Promise<void> {
  const et = exiftool;
  exiftool = null;
  if (et) await et.end();
  if (watchDir) rmSync(watchDir, { recursive: true, force: true });
  watchDir = null;
}

/**
 * exiftool in -stay_open mode never notices that its parent died (it keeps waiting on the
 * closed pipe), so a crashed app would leave its exiftool processes running for good, and
 * one could still finish a write after the restarted app swept its temp files. A config file
 * (Perl, loaded first) forks a small watcher per exiftool that ends it once the app is gone.
 * A watcher process, not a timer signal in exiftool itself: a signal interrupts exiftool's
 * read of its argument pipe, which it takes for an error and quits. The config is written to
 * a private directory: it is code, so never at a path another user could have planted.
 * Windows has no orphaning of this kind (and runs exiftool.exe), so it goes without.
 */
function parentWatchArgs(): string[] {
  if (process.platform === 'win32') return [];
  watchDir ??= mkdtempSync(join(tmpdir(), 'tagsmith-exiftool-'));
  const config = join(watchDir, 'parent-watch.config');
  writeFileSync(config, PARENT_WATCH_CONFIG, { mode: 0o600 });
  return ['-config', config];
}

const PARENT_WATCH_CONFIG = `# Tagsmith: end this exiftool once the app that started it is gone.
{
  my $app = getppid();
  my $exiftool = $$;
  my $watcher = fork();
  if (defined $watcher && $watcher == 0) {
    # The watcher must not hold exiftool's pipes open, or the app would miss their end.
    open(STDIN, '<', '/dev/null');
    open(STDOUT, '>', '/dev/null');
    open(STDERR, '>', '/dev/null');
    require POSIX;
    for (;;) {
      sleep 1;
      POSIX::_exit(0) if getppid() != $exiftool;
      unless (kill(0, $app)) {
        kill('TERM', $exiftool);
        POSIX::_exit(0);
      }
    }
  }
}
1;
`;

// ---------------------------------------------------------------------------- helpers

type Dict = Record<string, unknown>;

const isDict = (v: unknown): v is Dict => typeof v === 'object' && v !== null && !Array.isArray(v) && !Buffer.isBuffer(v);

/** XMP values arrive as strings, numbers, arrays, or {lang, value} alternatives. */
function texts(v: unknown): string[] {
  if (v === undefined || v === null) return [];
  if (Array.isArray(v)) return v.flatMap(texts);
  if (typeof v === 'string') return [v];
  if (typeof v === 'number') return [String(v)];
  if (isDict(v) && 'value' in v) return texts(v.value);
  return [];
}

const firstText = (v: unknown): string | undefined => texts(v).map((s) => s.trim()).find((s) => s.length > 0);

function num(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : undefined;
}

const utf8Strict = new TextDecoder('utf-8', { fatal: true });

/**
 * exifr hands IPTC strings over as Latin-1. Re-decode as UTF-8 when the file declares UTF-8
 * (CodedCharacterSet ESC % G) or when the bytes are valid multi-byte UTF-8 (common from
 * software that forgets to declare it); otherwise Latin-1 is right.
 */
function decodeIptc(s: string, utf8Declared: boolean): string {
  const bytes = Buffer.from(s, 'latin1');
  if (!bytes.some((b) => b >= 0x80)) return s;
  try {
    const u = utf8Strict.decode(bytes);
    return u;
  } catch {
    return utf8Declared ? bytes.toString('utf8') : s;
  }
}

const IPTC_UTF8_MARK = Buffer.from([0x1c, 0x01, 0x5a, 0x00, 0x03, 0x1b, 0x25, 0x47]);

const DATE_RE = /^(\d{4})[:-](\d{2})[:-](\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?(?:\.\d+)?\s*(Z|[+-]\d{2}:?\d{2})?/;

function normOffset(o: string | undefined): string | null {
  if (!o) return null;
  const t = o.trim();
  if (t === 'Z') return '+00:00';
  const m = /^([+-])(\d{2}):?(\d{2})$/.exec(t);
  return m ? `${m[1]}${m[2]}:${m[3]}` : null;
}

/** The wall-clock time exactly as written; never converted to UTC or to this machine's zone. */
export function formatTakenAt(raw: string | undefined, offset?: string): string | null {
  if (!raw) return null;
  const m = DATE_RE.exec(raw.trim());
  if (!m || m[1] === '0000' || m[2] === '00') return null;
  const base = `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6] ?? '00'}`;
  const off = normOffset(offset) ?? normOffset(m[7]);
  return off ? base + off : base;
}

const round = (n: number, places: number): number => {
  const f = 10 ** places;
  return Math.round(n * f) / f;
};

/** exiftool's PrintExposureTime: '1/N' up to a quarter second, else seconds with one decimal at most. */
export function formatShutter(seconds: number | undefined): string | null {
  if (seconds === undefined || !(seconds > 0)) return null;
  if (seconds < 0.25001) return `1/${Math.floor(0.5 + 1 / seconds)}`;
  return String(round(seconds, 1));
}

/** Exposure in the units exiftool prints (FNumber to 0.1, or 0.01 below 1; focal length to 0.1 mm). */
export function exposureOf(raw: RawExposure): Exposure {
  const pos = (n: number | undefined): number | undefined => (n !== undefined && n > 0 ? n : undefined);
  const f = pos(raw.fNumber) ?? (raw.apertureValue !== undefined ? 2 ** (raw.apertureValue / 2) : undefined);
  const focal = pos(raw.focalLength);
  const focal35 = pos(raw.focalLength35);
  const iso = pos(raw.iso);
  return {
    aperture: f === undefined ? null : round(f, f < 1 ? 2 : 1),
    shutter: formatShutter(raw.exposureTime),
    iso: iso === undefined ? null : Math.round(iso),
    focalLength: focal === undefined ? null : round(focal, 1),
    focalLength35: focal35 === undefined ? null : round(focal35, 1),
    exposureBias: raw.exposureBias === undefined ? null : round(raw.exposureBias, 2),
    flash: raw.flash === undefined ? null : (Math.round(raw.flash) & 1) === 1,
  };
}

/** lr:hierarchicalSubject is 'A|B'; digiKam's TagsList is 'A/B'. Both become 'A|B'. */
const fromDigikam = (s: string): string => s.split('/').map((p) => p.trim()).filter(Boolean).join('|');

/**
 * Union of every keyword field of every source, nothing silently dropped. A flat keyword
 * that only repeats a component of a hierarchy in the same set (Lightroom writes both
 * 'Berlin' and 'Places|Europe|Berlin') is folded into that hierarchy.
 */
export function unionKeywords(sources: readonly RawTags[]): string[] {
  const all: string[] = [];
  for (const s of sources) {
    all.push(...s.iptcKeywords, ...s.xmpSubject, ...s.hierarchical, ...s.tagsList.map(fromDigikam));
  }
  const list = cleanKeywordList(all.map((k) => k.split('|').map((p) => p.trim()).filter(Boolean).join('|')));
  const components = new Set<string>();
  for (const k of list) if (k.includes('|')) for (const part of k.split('|')) components.add(part.toLocaleLowerCase());
  return list.filter((k) => k.includes('|') || !components.has(k.toLocaleLowerCase()));
}

// ---------------------------------------------------------------------------- exifr

const EXIFR_OPTIONS = {
  tiff: true,
  exif: true,
  gps: true,
  ifd1: false,
  interop: false,
  makerNote: false,
  userComment: false,
  iptc: true,
  xmp: true,
  icc: false,
  jfif: false,
  ihdr: true,
  translateKeys: true,
  translateValues: false,
  // Keep dates as the strings in the file: revived Date objects would be shifted into this
  // machine's time zone.
  reviveValues: false,
  sanitize: true,
  mergeOutput: false,
  multiSegment: true,
  silentErrors: true,
} as const;

/** Formats exifr reads reliably (TIFF-based RAWs included). */
const EXIFR_FORMATS = new Set(['jpeg', 'png', 'tiff', 'heic', 'heif', 'webp', 'dng', 'cr2', 'nef', 'arw']);

export function exifrCanRead(format: string): boolean {
  return EXIFR_FORMATS.has(format);
}

async function rawFromExifr(buf: Buffer): Promise<RawTags> {
  const out: unknown = await exifr.parse(buf, EXIFR_OPTIONS);
  const r = emptyRaw();
  if (!isDict(out)) return r;
  const sec = (k: string): Dict => (isDict(out[k]) ? out[k] : {});
  const ifd0 = sec('ifd0');
  const exif = sec('exif');
  const gps = sec('gps');
  const iptc = sec('iptc');
  const ihdr = sec('ihdr');
  const dc = sec('dc');
  const lr = sec('lr');
  const xmp = sec('xmp');
  const digiKam = sec('digiKam');
  const photoshop = sec('photoshop');
  const utf8Declared = buf.indexOf(IPTC_UTF8_MARK) >= 0;
  const iptcText = (v: unknown): string[] => texts(v).map((s) => decodeIptc(s, utf8Declared));

  r.dateOriginal = firstText(exif.DateTimeOriginal) ?? firstText(photoshop.DateCreated);
  r.offsetOriginal = firstText(exif.OffsetTimeOriginal);
  r.createDate = firstText(exif.CreateDate) ?? firstText(exif.DateTimeDigitized) ?? firstText(xmp.CreateDate);
  r.make = firstText(ifd0.Make);
  r.model = firstText(ifd0.Model);
  r.lens = firstText(exif.LensModel) ?? firstText(sec('aux').Lens);
  r.orientation = num(ifd0.Orientation);
  r.lat = num(gps.latitude);
  r.lon = num(gps.longitude);
  r.width = num(exif.ExifImageWidth) ?? num(ifd0.ImageWidth) ?? num(ihdr.ImageWidth);
  r.height = num(exif.ExifImageHeight) ?? num(ifd0.ImageHeight) ?? num(ihdr.ImageHeight);
  r.rating = num(xmp.Rating);
  r.label = firstText(xmp.Label);
  r.exposure = {
    fNumber: num(exif.FNumber),
    apertureValue: num(exif.ApertureValue),
    exposureTime: num(exif.ExposureTime),
    iso: num(Array.isArray(exif.ISO) ? exif.ISO[0] : exif.ISO),
    focalLength: num(exif.FocalLength),
    focalLength35: num(exif.FocalLengthIn35mmFormat),
    exposureBias: num(exif.ExposureCompensation),
    flash: num(exif.Flash),
  };
  r.iptcKeywords = iptcText(iptc.Keywords);
  r.xmpSubject = texts(dc.subject);
  r.hierarchical = texts(lr.hierarchicalSubject);
  r.tagsList = texts(digiKam.TagsList);
  r.captions = [...texts(dc.description), ...iptcText(iptc.Caption), ...texts(ifd0.ImageDescription)];
  r.titles = [...texts(dc.title), ...iptcText(iptc.ObjectName)];
  // XMP first, as for captions: it holds the full text where IPTC may be cut to its byte limits.
  r.rights = {
    headline: [...texts(photoshop.Headline), ...iptcText(iptc.Headline)],
    creator: [...texts(dc.creator), ...iptcText(iptc.Byline)],
    copyright: [...texts(dc.rights), ...iptcText(iptc.CopyrightNotice)],
    credit: [...texts(photoshop.Credit), ...iptcText(iptc.Credit)],
    city: [...texts(photoshop.City), ...iptcText(iptc.City)],
    country: [...texts(photoshop.Country), ...iptcText(iptc.Country)],
  };
  return r;
}

// ---------------------------------------------------------------------------- exiftool

const firstValue = (v: unknown): unknown => (Array.isArray(v) ? v[0] : v);

function pick(tags: Dict, names: readonly string[]): unknown {
  for (const name of names) {
    if (name.includes(':')) {
      if (tags[name] !== undefined) return tags[name];
      continue;
    }
    for (const [k, v] of Object.entries(tags)) {
      if (k.slice(k.indexOf(':') + 1) === name && v !== undefined) return v;
    }
  }
  return undefined;
}

async function rawFromExiftool(path: string): Promise<RawTags> {
  // -G1: family-1 group names so IPTC and XMP keywords stay apart; -n: numbers, signed GPS.
  const tags = (await sharedExifTool().readRaw(path, ['-G1', '-n'])) as unknown as Dict;
  const r = emptyRaw();
  const s = (names: string[]): string | undefined => firstText(pick(tags, names));
  r.dateOriginal = s(['DateTimeOriginal', 'XMP-photoshop:DateCreated', 'Keys:CreationDate', 'UserData:DateTimeOriginal']);
  r.offsetOriginal = s(['OffsetTimeOriginal']);
  r.createDate = s(['ExifIFD:CreateDate', 'XMP-xmp:CreateDate', 'QuickTime:CreateDate']);
  r.make = s(['IFD0:Make', 'Make', 'Keys:Make']);
  r.model = s(['IFD0:Model', 'Model', 'Keys:Model']);
  r.lens = s(['LensModel', 'Lens', 'LensType']);
  r.orientation = num(pick(tags, ['IFD0:Orientation', 'Orientation']));
  r.lat = num(pick(tags, ['Composite:GPSLatitude']));
  r.lon = num(pick(tags, ['Composite:GPSLongitude']));
  r.width = num(pick(tags, ['ExifIFD:ExifImageWidth', 'ImageWidth']));
  r.height = num(pick(tags, ['ExifIFD:ExifImageHeight', 'ImageHeight']));
  r.rating = num(pick(tags, ['XMP-xmp:Rating']));
  r.label = s(['XMP-xmp:Label']);
  r.iptcKeywords = texts(pick(tags, ['IPTC:Keywords']));
  r.xmpSubject = texts(pick(tags, ['XMP-dc:Subject']));
  r.hierarchical = texts(pick(tags, ['XMP-lr:HierarchicalSubject']));
  r.tagsList = texts(pick(tags, ['XMP-digiKam:TagsList']));
  r.captions = [...texts(pick(tags, ['XMP-dc:Description'])), ...texts(pick(tags, ['IPTC:Caption-Abstract'])), ...texts(pick(tags, ['IFD0:ImageDescription']))];
  r.titles = [...texts(pick(tags, ['XMP-dc:Title'])), ...texts(pick(tags, ['IPTC:ObjectName']))];
  const both = (xmp: string, iptc: string): string[] => [...texts(pick(tags, [xmp])), ...texts(pick(tags, [iptc]))];
  // EXIF first, then XMP-exif (sidecars, tools that write XMP only), then any group
  // (maker notes, QuickTime) as exiftool's own reading would show the tag.
  const exposureNum = (name: string): number | undefined => num(firstValue(pick(tags, [`ExifIFD:${name}`, `XMP-exif:${name}`, name])));
  const flashFired = firstValue(pick(tags, ['XMP-exif:FlashFired']));
  r.exposure = {
    fNumber: exposureNum('FNumber'),
    apertureValue: exposureNum('ApertureValue'),
    exposureTime: exposureNum('ExposureTime'),
    iso: exposureNum('ISO'),
    focalLength: exposureNum('FocalLength'),
    focalLength35: exposureNum('FocalLengthIn35mmFormat'),
    exposureBias: exposureNum('ExposureCompensation'),
    flash: num(pick(tags, ['ExifIFD:Flash', 'Flash'])) ?? (flashFired === undefined ? undefined : /^true$/i.test(String(flashFired)) ? 1 : 0),
  };
  r.rights = {
    headline: both('XMP-photoshop:Headline', 'IPTC:Headline'),
    creator: both('XMP-dc:Creator', 'IPTC:By-line'),
    copyright: both('XMP-dc:Rights', 'IPTC:CopyrightNotice'),
    credit: both('XMP-photoshop:Credit', 'IPTC:Credit'),
    city: both('XMP-photoshop:City', 'IPTC:City'),
    country: both('XMP-photoshop:Country', 'IPTC:Country-PrimaryLocationName'),
  };
  return r;
}

// ---------------------------------------------------------------------------- merge

const EXPOSURE_KEYS: readonly (keyof RawExposure)[] = ['fNumber', 'apertureValue', 'exposureTime', 'iso', 'focalLength', 'focalLength35', 'exposureBias', 'flash'];

function merge(file: RawTags, sidecar: RawTags | null): FileMetadata {
  // Sidecar first where one value must be chosen: it is where RAW workflows keep edits.
  const srcs = sidecar ? [sidecar, file] : [file];
  const first = <T>(get: (r: RawTags) => T | undefined): T | undefined => {
    for (const r of srcs) {
      const v = get(r);
      if (v !== undefined) return v;
    }
    return undefined;
  };
  const firstOf = (get: (r: RawTags) => string[]): string | null =>
    srcs.flatMap(get).map((t) => t.trim()).find((t) => t.length > 0) ?? null;

  const dated = first((r) => (r.dateOriginal ? r : undefined)) ?? first((r) => (r.createDate ? r : undefined));
  const takenAt = dated ? formatTakenAt(dated.dateOriginal ?? dated.createDate, dated.offsetOriginal) : null;
  const rating = first((r) => r.rating);
  const lat = file.lat ?? sidecar?.lat;
  const lon = file.lon ?? sidecar?.lon;
  const hasGps = lat !== undefined && lon !== undefined && !(lat === 0 && lon === 0);
  const orientation = file.orientation ?? sidecar?.orientation;
  return {
    takenAt,
    cameraMake: first((r) => r.make) ?? null,
    cameraModel: first((r) => r.model) ?? null,
    lens: first((r) => r.lens) ?? null,
    width: file.width ?? null,
    height: file.height ?? null,
    orientation: orientation !== undefined && orientation >= 1 && orientation <= 8 ? orientation : null,
    gpsLat: hasGps ? lat : null,
    gpsLon: hasGps ? lon : null,
    // XMP allows -1 for "rejected"; the catalogue keeps 0..5.
    rating: rating === undefined ? null : Math.min(5, Math.max(0, Math.round(rating))),
    colorLabel: first((r) => r.label) ?? null,
    caption: firstOf((r) => r.captions),
    title: firstOf((r) => r.titles),
    keywords: unionKeywords([file, ...(sidecar ? [sidecar] : [])]),
    rights: Object.fromEntries(RIGHTS.map((f) => [f, firstOf((r) => r.rights[f])])) as Record<RightsField, string | null>,
    // The file's own EXIF is what the camera recorded; a sidecar only fills what it lacks.
    exposure: exposureOf(Object.fromEntries(EXPOSURE_KEYS.map((k) => [k, file.exposure[k] ?? sidecar?.exposure[k]])) as RawExposure),
  };
}

export interface ReadOptions {
  format: string;
  /** The file's content when already in memory (exifr path); null for big files. */
  buf: Buffer | null;
  /** Absolute path of an XMP sidecar, when one sits next to the file. */
  sidecarPath: string | null;
}

/** Read one file's metadata (and its sidecar's). Throws only when nothing could be read. */
export async function readMetadata(path: string, opts: ReadOptions): Promise<FileMetadata> {
  let file: RawTags;
  if (opts.buf && exifrCanRead(opts.format)) {
    try {
      file = await rawFromExifr(opts.buf);
    } catch {
      file = await rawFromExiftool(path);
    }
  } else {
    file = await rawFromExiftool(path);
  }
  const sidecar = opts.sidecarPath ? await rawFromExiftool(opts.sidecarPath).catch(() => null) : null;
  return merge(file, sidecar);
}

export const emptyMetadata = (): FileMetadata => ({
  takenAt: null, cameraMake: null, cameraModel: null, lens: null, width: null, height: null, orientation: null,
  gpsLat: null, gpsLon: null, rating: null, colorLabel: null, caption: null, title: null, keywords: [],
  rights: { headline: null, creator: null, copyright: null, credit: null, city: null, country: null },
  exposure: emptyExposure(),
});
