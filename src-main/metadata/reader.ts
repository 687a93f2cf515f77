import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import exifr from 'exifr';
import { DefaultExiftoolArgs, ExifTool } from 'exiftool-vendored';
import { exiftoolUsable, ToolMissingError } from '../core/tools';
import { jpegSegments } from '../library/media-hash-parts';
import { emptyBlocks, keywordUnion, reconcileBlocks, type BlockDisagreement, type BlockTextField, type MetadataBlocks } from './blocks';

// Reads what a file already says about itself: capture date, camera, lens, exposure, GPS,
// orientation, rating, label, keywords, caption, title and rights, the values exiftool reads.
// exifr parses from the Buffer the scan already holds (~1 ms, no extra I/O) for JPEG/TIFF/
// PNG/HEIC/WebP and TIFF-based RAWs. Where it finds no date, neither keywords nor caption,
// leaves a block unparsed (UTF-16 XMP, IPTC inside a TIFF) or sees IPTC and XMP disagree,
// the file goes to the one kept-open exiftool (a -stay_open batch, never a process per
// file), which also serves what exifr cannot read at all (CR3, RAF, ORF, RW2, videos, XMP
// sidecars). Both are reduced to RawTags so the rules (MWG reconciliation of IPTC and XMP in
// metadata-blocks.ts, date precedence, dates exactly as written) live in one place.

export interface FileMetadata {
  /** 'YYYY-MM-DDTHH:MM:SS[.fff]', plus '+HH:MM' only when the file records an offset. */
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
  /** When the file's IPTC and XMP blocks disagreed: which fields, and which block was taken. */
  blockDisagreement: BlockDisagreement | null;
  /** XMP Rating -1: rejected (Lightroom's X), as Tagsmith also writes a reject. */
  rejected: boolean;
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

/** One date a file records, with the sub-seconds and offset that belong to it. */
interface DateCandidate {
  value: string;
  subSec?: string;
  offset?: string;
}

/** The fields we use, as found in one source (the file or its sidecar). */
interface RawTags {
  /** Capture-date candidates in precedence order (EXIF original, EXIF digitized, then the rest). */
  dates: DateCandidate[];
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
  blocks: MetadataBlocks;
  exposure: RawExposure;
}

const emptyRaw = (): RawTags => ({ dates: [], blocks: emptyBlocks(), exposure: {} });

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

const DATE_RE = /^(\d{4})[:-](\d{2})[:-](\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?(?:\.(\d+))?\s*(Z|[+-]\d{2}:?\d{2})?/;

/** 'YYYY:MM:DD' alone (a date without a time) as that day's midnight, or null. */
function dayOnly(raw: string): string | null {
  const m = /^(\d{4})[:-](\d{2})[:-](\d{2})$/.exec(raw.trim());
  return m && m[1] !== '0000' && m[2] !== '00' && m[3] !== '00' ? `${m[1]}-${m[2]}-${m[3]}T00:00:00` : null;
}

function normOffset(o: string | undefined): string | null {
  if (!o) return null;
  const t = o.trim();
  if (t === 'Z') return '+00:00';
  const m = /^([+-])(\d{2}):?(\d{2})$/.exec(t);
  return m ? `${m[1]}${m[2]}:${m[3]}` : null;
}

/**
 * The wall-clock time exactly as written ('YYYY-MM-DDTHH:MM:SS[.fff][+HH:MM]'); never
 * converted to UTC or to this machine's zone. Sub-seconds and the offset come from the value
 * itself or from the EXIF tags that go with it (SubSecTimeOriginal, OffsetTimeOriginal).
 */
export function formatTakenAt(raw: string | undefined, offset?: string, subSec?: string): string | null {
  if (!raw) return null;
  const m = DATE_RE.exec(raw.trim());
  if (!m || m[1] === '0000' || m[2] === '00' || m[3] === '00') return null;
  const frac = m[7] ?? (subSec !== undefined && /^\d+$/.test(subSec.trim()) ? subSec.trim() : undefined);
  const base = `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6] ?? '00'}${frac ? `.${frac}` : ''}`;
  const off = normOffset(m[8]) ?? normOffset(offset);
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

/** IPTC DateCreated ('2024:05:06') and TimeCreated ('07:08:09+02:00') as one date. */
function iptcDate(date: string | undefined, time: string | undefined): DateCandidate | undefined {
  if (!date || !/^\d{4}[:-]?\d{2}[:-]?\d{2}$/.test(date.trim())) return undefined;
  const d = date.trim().replace(/^(\d{4})[:-]?(\d{2})[:-]?(\d{2})$/, '$1:$2:$3');
  const t = /^(\d{2}):?(\d{2}):?(\d{2})(.*)$/.exec((time ?? '').trim());
  return t ? { value: `${d} ${t[1]}:${t[2]}:${t[3]}${t[4]}` } : { value: `${d} 00:00:00` };
}

/**
 * The first name of EXIF Artist, which MWG reads as a list ('Anna Berg; Jon Berg', a name
 * holding ';' in double quotes), as the first dc:creator is the creator.
 */
export function firstArtist(v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  const quoted = /^\s*"((?:[^"]|"")*)"/.exec(v);
  const first = quoted ? quoted[1].replace(/""/g, '"') : v.split(/;\s*/)[0];
  return first.trim() || undefined;
}

/** Windows Explorer's XPKeywords: 'a;b;c', stored as UTF-16LE bytes (exifr) or text (exiftool). */
function xpList(v: unknown): string[] {
  let s: string | undefined;
  if (typeof v === 'string') s = v;
  else if (v instanceof Uint8Array || (Array.isArray(v) && v.every((x) => typeof x === 'number'))) {
    s = Buffer.from(v as ArrayLike<number>).toString('utf16le');
  }
  return (s ?? '').replace(/\0+$/, '').split(';').map((k) => k.trim()).filter(Boolean);
}

// ---------------------------------------------------------------------------- exifr

const EXIFR_OPTIONS = {
  tiff: true,
  exif: true,
  gps: true,
  ifd1: false,
  interop: false,
  // Only to know that a maker note is there (a date may hide in it); its bytes are not parsed.
  makerNote: true,
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
const TIFF_BASED = new Set(['tiff', 'dng', 'cr2', 'nef', 'arw']);

export function exifrCanRead(format: string): boolean {
  return EXIFR_FORMATS.has(format);
}

/** What exifr read, and whether the file holds blocks exifr left unread. */
interface ExifrResult {
  raw: RawTags;
  /** Something is in the file that exifr did not parse (UTF-16 XMP, IPTC inside a TIFF, ...). */
  unreadBlocks: boolean;
  /** Blocks only exiftool reads that may hold a capture date (maker notes, vendor APP segments). */
  opaqueBlocks: boolean;
}

/** The JPEG APP segments exifr reads, or that hold no capture date (by their identifier). */
const KNOWN_APP: readonly [number, string][] = [
  [0xe0, 'JFIF'], [0xe0, 'JFXX'], [0xe1, 'Exif'], [0xe1, 'http://ns.adobe.com/'], [0xe2, 'ICC_PROFILE'], [0xe2, 'MPF'],
  [0xed, 'Photoshop 3.0'], [0xee, 'Adobe'],
];

/** Whether a JPEG carries APP segments exifr does not read (Olympus/Agfa picture info, FlashPix, vendor data). */
function jpegHasOpaqueSegments(buf: Buffer): boolean {
  if (buf.length < 4 || buf[0] !== 0xff || buf[1] !== 0xd8) return false;
  let i = 2;
  while (i + 4 <= buf.length && buf[i] === 0xff) {
    const marker = buf[i + 1];
    if (marker === 0xda || marker === 0xd9) break; // image data: no more metadata segments
    const len = buf.readUInt16BE(i + 2);
    if (marker >= 0xe0 && marker <= 0xef) {
      const id = buf.toString('latin1', i + 4, Math.min(i + 4 + 32, i + 2 + len));
      if (!KNOWN_APP.some(([m, prefix]) => m === marker && id.startsWith(prefix))) return true;
    }
    i += 2 + len;
  }
  return false;
}

/**
 * The parts of a file where its metadata blocks can be: a JPEG's segments before its image
 * data (SOS), a PNG's chunks other than IDAT; every byte of other formats. Looking for a
 * block's marker there, not in megabytes of compressed pixels, keeps a scan's metadata
 * read from stalling the main thread (and a marker that happens to appear in pixel data is
 * no block).
 */
function metadataRegions(buf: Buffer, format: string): Buffer[] {
  if (format === 'jpeg') {
    for (const { marker, at } of jpegSegments(buf)) if (marker === 0xda || marker === 0xd9) return [buf.subarray(0, at)];
    return [buf];
  }
  if (format === 'png' && buf.length >= 8 && buf.readUInt32BE(0) === 0x89504e47) {
    const regions: Buffer[] = [];
    let i = 8;
    while (i + 12 <= buf.length) {
      const end = i + 12 + buf.readUInt32BE(i);
      if (end > buf.length) return [buf];
      if (buf.toString('latin1', i + 4, i + 8) !== 'IDAT') regions.push(buf.subarray(i, end));
      i = end;
    }
    return regions;
  }
  return [buf];
}

const NOT_XMP_SECTIONS = new Set(['ifd0', 'ifd1', 'exif', 'gps', 'interop', 'makerNote', 'iptc', 'ihdr', 'errors']);
const UTF16_XMP = Buffer.from('xmpmeta', 'utf16le');
const XMP_MARK = Buffer.from('<x:xmpmeta');
const XMP_RDF_MARK = Buffer.from('<rdf:RDF');
// A JPEG's XMP segment header: ASCII whatever the packet's encoding (UTF-8, -16 or -32).
const XMP_JPEG_HEADER = Buffer.from('http://ns.adobe.com/xap/1.0/\0');
/**
 * Whether a TIFF-based file's first IFD has an IPTC-NAA (33723) or Photoshop (34377) entry,
 * whatever its type: scanners and Photoshop store IPTC as LONGs, others as UNDEFINED or BYTEs.
 * exifr reads none of them there; exiftool reads them all.
 */
export function tiffHasIptc(buf: Buffer): boolean {
  if (buf.length < 8) return false;
  const order = buf.toString('latin1', 0, 2);
  if (order !== 'II' && order !== 'MM') return false;
  const le = order === 'II';
  const u16 = (at: number): number => (le ? buf.readUInt16LE(at) : buf.readUInt16BE(at));
  const u32 = (at: number): number => (le ? buf.readUInt32LE(at) : buf.readUInt32BE(at));
  const ifd = u32(4);
  if (ifd + 2 > buf.length) return false;
  const n = u16(ifd);
  for (let i = 0; i < n; i++) {
    const at = ifd + 2 + i * 12;
    if (at + 2 > buf.length) return false;
    const tag = u16(at);
    if (tag === 0x83bb || tag === 0x8649) return true;
  }
  return false;
}

/** An XMP packet with the exif namespace (exposure written by Lightroom, Photoshop, XMP-only tools). */
const XMP_EXIF_NS = Buffer.from('http://ns.adobe.com/exif/1.0/');

/** A number, or an XMP rational as exifr hands it over ('14/5'). */
function numOrRatio(v: unknown): number | undefined {
  if (typeof v === 'string') {
    const m = /^\s*(-?\d+(?:\.\d+)?)\s*\/\s*(\d+(?:\.\d+)?)\s*$/.exec(v);
    if (m) return Number(m[2]) === 0 ? undefined : Number(m[1]) / Number(m[2]);
  }
  return num(Array.isArray(v) ? v[0] : v);
}

/** XMP's exif:Flash is a structure; its Fired member says whether the flash fired. */
function xmpFlash(v: unknown): number | undefined {
  if (!isDict(v)) return numOrRatio(v);
  const fired = v.Fired;
  if (fired === true || /^true$/i.test(String(fired))) return 1;
  if (fired === false || /^false$/i.test(String(fired))) return 0;
  return undefined;
}

const XML_ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** XML character and entity references ('d&#39;Azur', '&amp;'), decoded once, as an XML parser does. */
export function decodeXmlRefs(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|amp|lt|gt|quot|apos);/g, (m, ref: string) => {
    if (ref[0] !== '#') return XML_ENTITIES[ref];
    const cp = ref[1] === 'x' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
    return cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff) ? String.fromCodePoint(cp) : m;
  });
}

/** exifr leaves XMP text as it stands in the packet, references undecoded: every string decoded. */
function decodeXmpValues(v: unknown): unknown {
  if (typeof v === 'string') return decodeXmlRefs(v);
  if (Array.isArray(v)) return v.map(decodeXmpValues);
  if (isDict(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, decodeXmpValues(x)]));
  return v;
}

async function rawFromExifr(buf: Buffer, format: string): Promise<ExifrResult> {
  const parsed: unknown = await exifr.parse(buf, EXIFR_OPTIONS);
  const out: unknown = isDict(parsed)
    ? Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, NOT_XMP_SECTIONS.has(k) ? v : decodeXmpValues(v)]))
    : parsed;
  const regions = metadataRegions(buf, format);
  const has = (marker: Buffer): boolean => regions.some((b) => b.includes(marker));
  const r = emptyRaw();
  const o: Dict = isDict(out) ? out : {};
  const sec = (k: string): Dict => (isDict(o[k]) ? o[k] : {});
  const ifd0 = sec('ifd0');
  // exifr merges XMP's exif namespace into the EXIF section, whichever parser ends last
  // winning. When the XMP has that namespace, the EXIF block is read once more on its own:
  // EXIF stays first (as exiftool reads it), XMP's values only fill what EXIF lacks.
  let exif = sec('exif');
  let xmpExif: Dict = {};
  if (has(XMP_EXIF_NS)) {
    const alone: unknown = await exifr.parse(buf, { ...EXIFR_OPTIONS, xmp: false, iptc: false });
    const exifOnly = isDict(alone) && isDict(alone.exif) ? alone.exif : {};
    xmpExif = Object.fromEntries(Object.entries(exif).filter(([k]) => exifOnly[k] === undefined));
    exif = exifOnly;
  }
  const gps = sec('gps');
  const iptc = sec('iptc');
  const ihdr = sec('ihdr');
  const dc = sec('dc');
  const lr = sec('lr');
  // Photoshop CS3 and earlier (and exiv2 keeping their packets) spell the xmp namespace 'xap'.
  const xmp = { ...sec('xap'), ...sec('xmp') };
  const digiKam = sec('digiKam');
  const photoshop = sec('photoshop');
  const utf8Declared = has(IPTC_UTF8_MARK);
  const iptcText = (v: unknown): string[] => texts(v).map((s) => decodeIptc(s, utf8Declared));
  const iptcFirst = (v: unknown): string | undefined => iptcText(v).map((s) => s.trim()).find(Boolean);

  const push = (value: string | undefined, extra: Omit<DateCandidate, 'value'> = {}): void => {
    if (value) r.dates.push({ value, ...extra });
  };
  push(firstText(exif.DateTimeOriginal), { subSec: firstText(exif.SubSecTimeOriginal), offset: firstText(exif.OffsetTimeOriginal) });
  push(firstText(exif.CreateDate) ?? firstText(exif.DateTimeDigitized), { subSec: firstText(exif.SubSecTimeDigitized), offset: firstText(exif.OffsetTimeDigitized) });
  push(firstText(xmpExif.DateTimeOriginal));
  push(firstText(photoshop.DateCreated));
  push(firstText(xmp.CreateDate));
  const fromIptc = iptcDate(firstText(iptc.DateCreated), firstText(iptc.TimeCreated));
  if (fromIptc) r.dates.push(fromIptc);
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
  // XMP names three of them as EXIF 2.2 did (ISOSpeedRatings, ExposureBiasValue, FocalLengthIn35mmFilm).
  const x = xmpExif;
  r.exposure = {
    fNumber: num(exif.FNumber) ?? numOrRatio(x.FNumber),
    apertureValue: num(exif.ApertureValue) ?? numOrRatio(x.ApertureValue),
    exposureTime: num(exif.ExposureTime) ?? numOrRatio(x.ExposureTime),
    iso: num(Array.isArray(exif.ISO) ? exif.ISO[0] : exif.ISO) ?? numOrRatio(x.ISOSpeedRatings) ?? numOrRatio(x.ISO),
    focalLength: num(exif.FocalLength) ?? numOrRatio(x.FocalLength),
    focalLength35: num(exif.FocalLengthIn35mmFormat) ?? numOrRatio(x.FocalLengthIn35mmFilm) ?? numOrRatio(x.FocalLengthIn35mmFormat),
    exposureBias: num(exif.ExposureCompensation) ?? numOrRatio(x.ExposureBiasValue) ?? numOrRatio(x.ExposureCompensation),
    flash: num(exif.Flash) ?? xmpFlash(x.Flash),
  };
  const b = r.blocks;
  b.iptc.keywords = iptcText(iptc.Keywords);
  b.iptc.text = {
    caption: iptcFirst(iptc.Caption), title: iptcFirst(iptc.ObjectName), headline: iptcFirst(iptc.Headline),
    creator: iptcFirst(iptc.Byline), copyright: iptcFirst(iptc.CopyrightNotice), credit: iptcFirst(iptc.Credit),
    city: iptcFirst(iptc.City), country: iptcFirst(iptc.Country),
  };
  b.xmp.subject = texts(dc.subject);
  b.xmp.hierarchical = texts(lr.hierarchicalSubject);
  b.xmp.tagsList = texts(digiKam.TagsList);
  b.xmp.text = {
    caption: firstText(dc.description), title: firstText(dc.title), headline: firstText(photoshop.Headline),
    creator: firstText(dc.creator), copyright: firstText(dc.rights), credit: firstText(photoshop.Credit),
    city: firstText(photoshop.City), country: firstText(photoshop.Country),
  };
  b.exif.text = { caption: firstText(ifd0.ImageDescription), creator: firstArtist(firstText(ifd0.Artist)), copyright: firstText(ifd0.Copyright) };
  b.exif.xpKeywords = xpList(ifd0.XPKeywords);

  // exifr puts each XMP namespace under its prefix; anything beyond the TIFF/IPTC/PNG sections is XMP.
  const xmpParsed = Object.keys(o).some((k) => !NOT_XMP_SECTIONS.has(k)) || Object.keys(xmpExif).length > 0;
  const unreadBlocks = has(UTF16_XMP)
    || ((has(XMP_MARK) || has(XMP_RDF_MARK) || has(XMP_JPEG_HEADER)) && !xmpParsed)
    || (TIFF_BASED.has(format) && Object.keys(iptc).length === 0 && tiffHasIptc(buf));
  // exifr keeps a maker note in the EXIF section or in a section of its own, by file.
  const opaqueBlocks = exif.MakerNote !== undefined || o.makerNote !== undefined || (format === 'jpeg' && jpegHasOpaqueSegments(buf));
  return { raw: r, unreadBlocks, opaqueBlocks };
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

const hasCharAbove = (s: string, max: number): boolean => {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > max) return true;
  return false;
};

const IPTC_UTF8_VALUES = new Set(['\u001b%G', 'UTF8']);

/**
 * exiftool reads undeclared IPTC as Latin-1. Software that wrote UTF-8 without declaring it
 * is common: bytes that are valid multi-byte UTF-8 are read as UTF-8 (as exifr's path does),
 * real Latin-1 stays Latin-1.
 */
function fixUndeclaredIptc(tags: Dict): Dict {
  if (IPTC_UTF8_VALUES.has(String(tags['IPTC:CodedCharacterSet'] ?? ''))) return tags;
  const fix = (s: string): string => {
    const bytes = Buffer.from(s, 'latin1');
    if (!bytes.some((x) => x >= 0x80) || hasCharAbove(s, 0xff)) return s;
    try {
      return utf8Strict.decode(bytes);
    } catch {
      return s;
    }
  };
  for (const [k, v] of Object.entries(tags)) {
    if (!k.startsWith('IPTC:')) continue;
    if (typeof v === 'string') tags[k] = fix(v);
    else if (Array.isArray(v)) tags[k] = v.map((x) => (typeof x === 'string' ? fix(x) : x));
  }
  return tags;
}

/**
 * Every tag exiftool reads from one file: family-1 groups (-G1) so IPTC, XMP and EXIF stay
 * apart, duplicates (-a) so a maker-note date is not hidden behind another, numbers (-n),
 * and the digest of the IPTC block as it is now (for the MWG rule). MWG mode stays off: it
 * would hide metadata stored in non-standard places, which the user still expects to see.
 */
export async function readExiftoolTags(path: string): Promise<Dict> {
  const tags = (await sharedExifTool().readRaw(path, { readArgs: ['-G1', '-a', '-n', '-all', '-CurrentIPTCDigest'], useMWG: false })) as unknown as Dict;
  return fixUndeclaredIptc(tags);
}

/** The IPTC / XMP / EXIF blocks as exiftool reports them (also the writer's view of a file). */
export function blocksFromTags(tags: Dict): MetadataBlocks {
  const t = (name: string): string | undefined => firstText(tags[name]);
  const b = emptyBlocks();
  b.iptc.keywords = texts(tags['IPTC:Keywords']);
  b.iptc.text = {
    caption: t('IPTC:Caption-Abstract'), title: t('IPTC:ObjectName'), headline: t('IPTC:Headline'), creator: t('IPTC:By-line'),
    copyright: t('IPTC:CopyrightNotice'), credit: t('IPTC:Credit'), city: t('IPTC:City'), country: t('IPTC:Country-PrimaryLocationName'),
  };
  b.xmp.subject = texts(tags['XMP-dc:Subject']);
  b.xmp.hierarchical = texts(tags['XMP-lr:HierarchicalSubject']);
  b.xmp.tagsList = texts(tags['XMP-digiKam:TagsList']);
  b.xmp.text = {
    caption: t('XMP-dc:Description'), title: t('XMP-dc:Title'), headline: t('XMP-photoshop:Headline'), creator: t('XMP-dc:Creator'),
    copyright: t('XMP-dc:Rights'), credit: t('XMP-photoshop:Credit'), city: t('XMP-photoshop:City'), country: t('XMP-photoshop:Country'),
  };
  b.exif.text = { caption: t('IFD0:ImageDescription'), creator: firstArtist(t('IFD0:Artist')), copyright: t('IFD0:Copyright') };
  b.exif.xpKeywords = xpList(tags['IFD0:XPKeywords']);
  b.storedDigest = t('Photoshop:IPTCDigest');
  b.currentDigest = t('File:CurrentIPTCDigest');
  return b;
}

/** Groups that describe the file, not the picture (file dates are not capture dates). */
const NOT_CAPTURE = /^(System|File|ExifTool|Composite|ICC_Profile|ICC-header|XMP-xmpMM|XMP-photoshop:History|XMP-stEvt)/;
const DATE_NAMES = ['DateTimeOriginal', 'CreateDate', 'DateCreated', 'CreationDate', 'DateTimeCreated', 'ContentCreateDate', 'MediaCreateDate', 'TrackCreateDate'];

/**
 * Capture dates in precedence order: EXIF DateTimeOriginal, EXIF CreateDate, then every other
 * group that records one: XMP (exif, photoshop, xmp), IPTC DateCreated+TimeCreated, QuickTime
 * (Keys/ItemList/UserData with their zone first, then the movie header's), maker notes.
 */
function datesFromTags(tags: Dict): DateCandidate[] {
  const t = (name: string): string | undefined => firstText(tags[name]);
  const out: DateCandidate[] = [];
  const seen = new Set<string>();
  const push = (key: string, extra: Omit<DateCandidate, 'value'> = {}): void => {
    const value = t(key);
    seen.add(key);
    if (value && (formatTakenAt(value) || dayOnly(value))) out.push({ value, ...extra });
  };
  push('ExifIFD:DateTimeOriginal', { subSec: t('ExifIFD:SubSecTimeOriginal'), offset: t('ExifIFD:OffsetTimeOriginal') });
  push('ExifIFD:CreateDate', { subSec: t('ExifIFD:SubSecTimeDigitized'), offset: t('ExifIFD:OffsetTimeDigitized') });
  for (const k of ['XMP-exif:DateTimeOriginal', 'XMP-photoshop:DateCreated', 'XMP-xmp:CreateDate']) push(k);
  const fromIptc = iptcDate(t('IPTC:DateCreated'), t('IPTC:TimeCreated'));
  if (fromIptc) out.push(fromIptc);
  for (const k of ['Keys:CreationDate', 'ItemList:ContentCreateDate', 'UserData:DateTimeOriginal', 'QuickTime:CreateDate', 'QuickTime:MediaCreateDate', 'QuickTime:TrackCreateDate']) push(k);
  for (const name of DATE_NAMES) {
    for (const k of Object.keys(tags)) {
      if (seen.has(k) || NOT_CAPTURE.test(k) || k.slice(k.indexOf(':') + 1) !== name) continue;
      push(k);
    }
  }
  return out;
}

function rawFromTags(tags: Dict): RawTags {
  const r = emptyRaw();
  const s = (names: string[]): string | undefined => firstText(pick(tags, names));
  r.dates = datesFromTags(tags);
  r.make = s(['IFD0:Make', 'Make', 'Keys:Make']);
  r.model = s(['IFD0:Model', 'Model', 'Keys:Model']);
  // A lens name, not a maker note's number (Canon's Lens is the short focal length, 7.09375).
  const lensName = (v: unknown): string | undefined => (typeof v === 'string' && !/^[\d.\s]+$/.test(v) ? firstText(v) : undefined);
  r.lens = ['ExifIFD:LensModel', 'LensModel', 'Lens', 'LensType'].map((name) => lensName(firstValue(pick(tags, [name])))).find((v) => v !== undefined);
  r.orientation = num(pick(tags, ['IFD0:Orientation', 'Orientation']));
  r.lat = num(pick(tags, ['Composite:GPSLatitude']));
  r.lon = num(pick(tags, ['Composite:GPSLongitude']));
  r.width = num(pick(tags, ['ExifIFD:ExifImageWidth', 'ImageWidth']));
  r.height = num(pick(tags, ['ExifIFD:ExifImageHeight', 'ImageHeight']));
  r.rating = num(pick(tags, ['XMP-xmp:Rating']));
  r.label = s(['XMP-xmp:Label']);
  r.blocks = blocksFromTags(tags);
  // EXIF first, then XMP-exif (sidecars, tools that write XMP only), then any group
  // (maker notes, QuickTime) as exiftool's own reading would show the tag.
  const exposureNum = (name: string): number | undefined => num(firstValue(pick(tags, [`ExifIFD:${name}`, `XMP-exif:${name}`, name])));
  const flashFired = firstValue(pick(tags, ['XMP-exif:FlashFired']));
  // exiftool's numeric ApertureValue is already an F-number (its ValueConv undoes the APEX
  // value the file stores); RawExposure keeps APEX, as exifr reads it.
  const apertureF = exposureNum('ApertureValue');
  r.exposure = {
    fNumber: exposureNum('FNumber'),
    apertureValue: apertureF !== undefined && apertureF > 0 ? 2 * Math.log2(apertureF) : undefined,
    exposureTime: exposureNum('ExposureTime'),
    // exiftool's Composite:ISO: EXIF's ISO, else the maker notes' (Canon CameraISO/BaseISO, ...).
    iso: num(firstValue(pick(tags, ['ExifIFD:ISO', 'XMP-exif:ISO', 'XMP-exif:ISOSpeedRatings', 'Composite:ISO']))) ?? exposureNum('ISO'),
    focalLength: exposureNum('FocalLength'),
    focalLength35: exposureNum('FocalLengthIn35mmFormat'),
    exposureBias: exposureNum('ExposureCompensation'),
    flash: num(pick(tags, ['ExifIFD:Flash', 'Flash'])) ?? (flashFired === undefined ? undefined : /^true$/i.test(String(flashFired)) ? 1 : 0),
  };
  return r;
}

async function rawFromExiftool(path: string): Promise<RawTags> {
  return rawFromTags(await readExiftoolTags(path));
}

// ---------------------------------------------------------------------------- merge

const EXPOSURE_KEYS: readonly (keyof RawExposure)[] = ['fNumber', 'apertureValue', 'exposureTime', 'iso', 'focalLength', 'focalLength35', 'exposureBias', 'flash'];

const RIGHTS_FROM_BLOCKS: Readonly<Record<RightsField, BlockTextField>> = {
  headline: 'headline', creator: 'creator', copyright: 'copyright', credit: 'credit', city: 'city', country: 'country',
};

/**
 * Whether 'IMG.xmp' (Lightroom's, Capture One's, Apple Photos' and Photoshop's naming) belongs
 * to this file, given the other files of the folder with the same name before the extension:
 * a RAW's, always (Lightroom's rule: in a RAW+JPEG pair the JPEG keeps its own metadata);
 * without a RAW, a file that shows no picture of its own in a browser (HEIC, video), or a lone
 * file of any kind (a JPEG, TIFF, PNG exported alone). 'IMG.JPG.xmp' always belongs to IMG.JPG.
 */
export function ownsStemSidecar(file: { isRaw: boolean; browserViewable: boolean }, siblings: readonly { isRaw: boolean }[]): boolean {
  if (file.isRaw) return true;
  if (siblings.some((s) => s.isRaw)) return false;
  return !file.browserViewable || siblings.length === 0;
}

/** Where the fields come from when a file has an XMP sidecar too (README: "Sidecars"). */
export type SidecarRule = 'sidecar-wins' | 'file-wins';

/**
 * Sidecar wins for camera RAW (the file is never written; the sidecar is where Lightroom,
 * darktable, digiKam and Capture One keep edits); the file's own XMP wins for formats that
 * hold XMP themselves (DNG, JPEG, TIFF, HEIC, PNG, WebP, video), the sidecar filling only
 * what the file lacks. Keywords are the union of both either way.
 */
export function sidecarRuleFor(format: string, isRaw: boolean): SidecarRule {
  return isRaw && format !== 'dng' ? 'sidecar-wins' : 'file-wins';
}

function merge(file: RawTags, sidecar: RawTags | null, rule: SidecarRule): FileMetadata {
  const srcs = sidecar ? (rule === 'sidecar-wins' ? [sidecar, file] : [file, sidecar]) : [file];
  const first = <T>(get: (r: RawTags) => T | undefined): T | undefined => {
    for (const r of srcs) {
      const v = get(r);
      if (v !== undefined) return v;
    }
    return undefined;
  };
  const reconciled = srcs.map((r) => reconcileBlocks(r.blocks));
  const firstText = (f: BlockTextField): string | null => reconciled.map((x) => x.text[f]).find((v) => v !== null) ?? null;

  let takenAt: string | null = null;
  for (const r of srcs) {
    for (const d of r.dates) {
      takenAt = formatTakenAt(d.value, d.offset, d.subSec);
      if (takenAt) break;
    }
    if (takenAt) break;
  }
  // A day without a time (XMP photoshop:DateCreated as Photo Mechanic writes it) is that day's
  // midnight, as exiftool's MWG:DateTimeOriginal gives it, when no source has a time.
  takenAt ??= srcs.flatMap((r) => r.dates).map((d) => dayOnly(d.value)).find((d) => d !== null) ?? null;
  const rating = first((r) => r.rating);
  const lat = file.lat ?? sidecar?.lat;
  const lon = file.lon ?? sidecar?.lon;
  const hasGps = lat !== undefined && lon !== undefined && !(lat === 0 && lon === 0);
  const orientation = file.orientation ?? sidecar?.orientation;
  return {
    takenAt,
    // The camera and lens are what the file itself recorded, like the exposure: a sidecar's
    // copy (tiff:Model, aux:Lens) only fills what the file lacks, even where the sidecar wins.
    cameraMake: file.make ?? sidecar?.make ?? null,
    cameraModel: file.model ?? sidecar?.model ?? null,
    lens: file.lens ?? sidecar?.lens ?? null,
    width: file.width ?? null,
    height: file.height ?? null,
    orientation: orientation !== undefined && orientation >= 1 && orientation <= 8 ? orientation : null,
    gpsLat: hasGps ? lat : null,
    gpsLon: hasGps ? lon : null,
    // XMP allows -1 for "rejected"; the catalogue keeps 0..5.
    rating: rating === undefined ? null : Math.min(5, Math.max(0, Math.round(rating))),
    colorLabel: first((r) => r.label) ?? null,
    caption: firstText('caption'),
    title: firstText('title'),
    keywords: keywordUnion(reconciled.map((x) => x.keywords)),
    rights: Object.fromEntries(RIGHTS.map((f) => [f, firstText(RIGHTS_FROM_BLOCKS[f])])) as Record<RightsField, string | null>,
    // The file's own EXIF is what the camera recorded; a sidecar only fills what it lacks.
    exposure: exposureOf(Object.fromEntries(EXPOSURE_KEYS.map((k) => [k, file.exposure[k] ?? sidecar?.exposure[k]])) as RawExposure),
    blockDisagreement: reconciled.find((x) => x.disagreement)?.disagreement ?? null,
    rejected: rating !== undefined && Math.round(rating) === -1,
  };
}

export interface ReadOptions {
  format: string;
  /** The file's content when already in memory (exifr path); null for big files. */
  buf: Buffer | null;
  /** Absolute path of an XMP sidecar, when one sits next to the file. */
  sidecarPath: string | null;
  /** Camera RAW (not DNG): its sidecar wins over the file. Default: from the format. */
  isRaw?: boolean;
  /**
   * Told when the sidecar could not be read (the file's own fields are still returned): a
   * ToolMissingError when exiftool or perl is missing, else the reading error. Never silent.
   */
  onSidecarProblem?: (err: unknown) => void;
}

const RAW_FORMATS = new Set(['cr2', 'cr3', 'nef', 'arw', 'raf', 'orf', 'rw2', 'pef', 'srw', 'nrw', 'raw', 'rwl', '3fr', 'iiq', 'x3f', 'erf', 'mrw', 'srf', 'sr2', 'dcr', 'kdc', 'mos']);

/** Formats whose other dates (PNG text chunks, HEIF/WebP containers) only exiftool reads. */
const DATE_ELSEWHERE = new Set(['png', 'webp', 'heic', 'heif']);

/**
 * Whether exifr's fast reading is enough: it parsed every block the file holds that can carry
 * keywords or a caption; when it found no date, there is nowhere else one could be (no maker
 * note, no vendor segment, not a container with dates of its own); and the IPTC and XMP
 * blocks agree (when they do not, only exiftool knows the IPTC digest that decides between
 * them). A camera JPEG without keywords stays on the fast path (~1 ms instead of a round trip
 * to exiftool): exiftool would read nothing more from it.
 */
function exifrIsEnough(r: ExifrResult, format: string): boolean {
  if (r.unreadBlocks) return false;
  if (r.raw.dates.length === 0 && (r.opaqueBlocks || DATE_ELSEWHERE.has(format))) return false;
  // Canon compacts record the ISO in their maker notes only (exiftool's Composite:ISO reads it).
  if (r.raw.exposure.iso === undefined && r.opaqueBlocks && r.raw.exposure.exposureTime !== undefined) return false;
  return reconcileBlocks(r.raw.blocks).disagreement === null;
}

/** Read one file's metadata (and its sidecar's). Throws only when nothing could be read. */
export async function readMetadata(path: string, opts: ReadOptions): Promise<FileMetadata> {
  let file: RawTags | null = null;
  if (opts.buf && exifrCanRead(opts.format)) {
    const fast = await rawFromExifr(opts.buf, opts.format).catch(() => null);
    if (fast && exifrIsEnough(fast, opts.format)) file = fast.raw;
  }
  file ??= await rawFromExiftool(path);
  const sidecar = opts.sidecarPath ? await readSidecar(opts.sidecarPath, opts.onSidecarProblem) : null;
  return merge(file, sidecar, sidecarRuleFor(opts.format, opts.isRaw ?? RAW_FORMATS.has(opts.format)));
}

/** An XMP sidecar is read by exiftool only: without it (or perl) the sidecar is named as unread. */
async function readSidecar(path: string, onProblem: ReadOptions['onSidecarProblem']): Promise<RawTags | null> {
  const tool = exiftoolUsable();
  if (tool) {
    onProblem?.(new ToolMissingError(tool));
    return null;
  }
  try {
    const tags = await readExiftoolTags(path);
    // exiftool answers a file it cannot parse with an Error tag, not a failure.
    const error = firstText(tags['ExifTool:Error']) ?? firstText(tags.Error);
    if (error) throw new Error(error);
    return rawFromTags(tags);
  } catch (err) {
    onProblem?.(err);
    return null;
  }
}

export const emptyMetadata = (): FileMetadata => ({
  takenAt: null, cameraMake: null, cameraModel: null, lens: null, width: null, height: null, orientation: null,
  gpsLat: null, gpsLon: null, rating: null, colorLabel: null, caption: null, title: null, keywords: [],
  rights: { headline: null, creator: null, copyright: null, credit: null, city: null, country: null },
  exposure: emptyExposure(),
  blockDisagreement: null,
  rejected: false,
});
