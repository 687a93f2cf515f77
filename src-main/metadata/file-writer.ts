import { randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import { chmod, link, lstat, open, readdir, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { WriteTags } from 'exiftool-vendored';
import { readExiftoolTags, sharedExifTool } from './reader';
import type { BlockDisagreement } from './blocks';
import {
  FIELD_NAMES, flattenKeywords, hierarchiesOf, normHierarchy, sameField,
  type FieldName, type FileFields, type ManagedFields, type TextFieldName,
} from './managed-fields';
import {
  EXTENDED_MAPPINGS, MANAGED_TAGS, TAG, TEXT_MAPPINGS, IPTC_KEYWORD_MAX_BYTES, readFileFields, shortenedWarning, texts, truncateUtf8,
  type Dict, type FileReading,
} from './fields';
import { desiredForWrite } from './field-merge';
import type { ExtendedField } from './extended-fields';
import { capsForPath, type Caps } from './targets';

// Writes the managed fields into ONE file (an image/video in place, or an XMP sidecar):
// minimal (only fields whose value differs, and within them only tags that differ, keeping
// the file's spelling of unchanged keywords), and safe (exiftool writes a new file beside the
// original with -o, which is flushed, read back and checked — managed tags equal what was
// asked, every other tag unchanged — and only then renamed over the original; on any failure
// the original is untouched and the temp file is removed).

export class MetadataWriteError extends Error {
  constructor(message: string, readonly path: string) {
    super(message);
    this.name = 'MetadataWriteError';
  }
}

export interface WriteFileOptions {
  /** What the file can hold; by default from its extension. */
  caps?: Caps;
  /**
   * What the file held when Tagsmith last read or wrote it (file_state). Given (even null),
   * `desired` is the library's values and only what the user changed since is applied to the
   * file as it is now (metadata/field-merge.ts desiredForWrite); left out, `desired` is written as it is.
   */
  base?: Partial<ManagedFields> | null;
  /**
   * Test seam: runs after the temp file is written, flushed and verified, just before it
   * replaces the original. Throwing here (or changing the original) aborts the write.
   */
  beforeCommit?: (tempPath: string) => void | Promise<void>;
  /** Test seam: change what the verifier reads back, to prove a failed check aborts. */
  tamperReadBack?: (tags: Dict) => void;
}

export interface FileWriteResult {
  path: string;
  /** True when the file (a new sidecar) did not exist before. */
  created: boolean;
  /** Fields whose value in the file changed (empty: already in sync, nothing written). */
  changedFields: FieldName[];
  /** The tags written, e.g. 'IPTC:Keywords' (null values were removed). */
  tags: string[];
  /** What the user should know: IPTC values shortened to fit. */
  warnings: string[];
  /** Field values in the file before and after. */
  before: FileFields;
  after: FileFields;
  /** Where the file's IPTC and XMP still disagree after the write (null: they agree). */
  blockDisagreement: BlockDisagreement | null;
}

/**
 * Read the tags we compare, grouped (family 1) so IPTC, XMP and EXIF stay apart: the same
 * reading the indexer uses (undeclared UTF-8 IPTC decoded as UTF-8, the IPTC digest), so the
 * comparison sees what the catalogue saw.
 */
export async function readTags(path: string): Promise<Dict> {
  return readExiftoolTags(path);
}

const hasCharAbove = (s: string, max: number): boolean => {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > max) return true;
  return false;
};

const UTF8_MARKS = new Set(['\u001b%G', 'UTF8']);
const isIptcKey = (k: string): boolean => k.startsWith('IPTC:');
const iptcDeclaredUtf8 = (tags: Dict): boolean => UTF8_MARKS.has(String(tags[TAG.codedCharset] ?? ''));

/** Undeclared IPTC holding real Latin-1 text: converted to UTF-8 before UTF-8 values are added. */
function needsIptcConversion(tags: Dict): boolean {
  if (iptcDeclaredUtf8(tags)) return false;
  return Object.entries(tags).some(([k, v]) => isIptcKey(k) && texts(v).some((s) => hasCharAbove(s, 0x7f)));
}

// ---------------------------------------------------------------------------- plan

type TagValue = string | string[] | number | null;

export interface WritePlan {
  tags: Record<string, TagValue>;
  changedFields: FieldName[];
  warnings: string[];
}

const sameList = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);
const lowerNfc = (s: string): string => s.normalize('NFC').toLocaleLowerCase();

/** Keep the file's spelling of a value that only differs in case or normalisation. */
function keepFileSpelling(wanted: readonly string[], inFile: readonly string[]): string[] {
  const spelled = new Map(inFile.map((s) => [lowerNfc(s.trim()), s.trim()]));
  return wanted.map((w) => spelled.get(lowerNfc(w)) ?? w);
}

/** Decide which tags to write so the file ends up holding `desired`; nothing for fields already equal. */
export function planWrite(tags: Dict, desired: ManagedFields, caps: Caps, reading: FileReading = readFileFields(tags)): WritePlan {
  const current = reading.fields;
  const plan: WritePlan = { tags: {}, changedFields: [], warnings: [] };
  const hasExif = Object.keys(tags).some((k) => k.startsWith('IFD0:'));
  const exifOk = caps.exif === 'always' || (caps.exif === 'if-present' && hasExif);

  const setList = (tag: string, values: string[]): void => {
    const now = texts(tags[tag]);
    if (values.length === 0) {
      if (now.length > 0) plan.tags[tag] = null;
    } else if (!sameList(now, values)) {
      plan.tags[tag] = values;
    }
  };
  const setText = (tag: string, value: string | null): void => {
    const now = texts(tags[tag]);
    if (value === null) {
      if (now.length > 0) plan.tags[tag] = null;
    } else if (now.length !== 1 || now[0] !== value) {
      plan.tags[tag] = value;
    }
  };
  const iptcFit = (label: string, value: string, max: number): string => {
    const cut = truncateUtf8(value, max);
    if (cut !== value) plan.warnings.push(shortenedWarning(label, value, max));
    return cut;
  };

  /** Keywords into every keyword tag the file uses, keeping the file's spelling of each. */
  const putKeywords = (want: readonly string[]): void => {
    const list = want.map(normHierarchy).filter(Boolean);
    const flat = flattenKeywords(list);
    setList(TAG.xmpSubject, keepFileSpelling(flat, texts(tags[TAG.xmpSubject])));
    if (caps.iptc) {
      const iptc = keepFileSpelling(flat, texts(tags[TAG.iptcKeywords])).map((k) => iptcFit('Keywords', k, IPTC_KEYWORD_MAX_BYTES));
      setList(TAG.iptcKeywords, iptc);
    }
    // Lightroom's hierarchies. Where the file's list also holds one-level keywords (Lightroom
    // writes every keyword there), that list and the tag paths of digiKam and Windows Photo
    // Gallery ('Places/Berlin', digiKam writes both) get
    // exactly the keywords the user added or removed, every other entry kept as it is.
    const had = new Set(current.keywords.map(lowerNfc));
    const wanted = new Set(list.map(lowerNfc));
    const added = list.filter((k) => !had.has(lowerNfc(k)));
    const removed = new Set(current.keywords.filter((k) => !wanted.has(lowerNfc(k))).map(lowerNfc));
    const edit = (now: string[], sep: string): string[] => [
      ...now.filter((h) => !removed.has(lowerNfc(h.split(sep).map((p) => p.trim()).join('|')))),
      ...added.filter((k) => k.includes('|') || now.some((h) => !h.includes(sep))).map((k) => k.split('|').join(sep)),
    ];
    const hierNow = texts(tags[TAG.hierarchical]);
    setList(TAG.hierarchical, hierNow.some((h) => !h.includes('|')) ? edit(hierNow, '|') : keepFileSpelling(hierarchiesOf(list), hierNow));
    for (const tag of [TAG.tagsList, TAG.msKeywords]) if (tags[tag] !== undefined) setList(tag, edit(texts(tags[tag]), '/'));
    // Windows Explorer's keywords, where a file has them, follow too (else they would go stale).
    if (tags[TAG.xpKeywords] !== undefined) {
      const xp = keepFileSpelling(flat, texts(tags[TAG.xpKeywords]).join(';').split(';').map((k) => k.trim()).filter(Boolean)).join(';');
      if (texts(tags[TAG.xpKeywords]).join(';') !== xp) plan.tags[TAG.xpKeywords] = xp.length > 0 ? xp : null;
    }
  };
  /**
   * A text field into XMP, IPTC and EXIF: ImageDescription where the file can hold EXIF,
   * Artist and Copyright where the file already has them (readers take EXIF first, MWG).
   */
  const putText = (f: TextFieldName, value: string | null): void => {
    const m = TEXT_MAPPINGS[f];
    setText(m.xmp, value);
    if (m.iptc && caps.iptc) setText(m.iptc.tag, value === null ? null : iptcFit(m.iptc.label, value, m.iptc.maxBytes));
    if (m.exif && caps.exif !== 'never' && (m.exifIfPresent ? tags[m.exif] !== undefined : exifOk)) setText(m.exif, value);
  };

  for (const field of FIELD_NAMES) {
    const want = desired[field];
    if (want === undefined || field === 'rejected') continue;
    if (field === 'rating') continue; // with 'rejected' below: they share one tag
    if (sameField(field, current[field], want)) continue;
    plan.changedFields.push(field);
    if (field === 'keywords') {
      putKeywords(want as string[]);
      continue;
    }
    if (field === 'extended') {
      // Each template field the library manages, into its XMP tag and its IIM dataset.
      const now = current.extended;
      for (const [k, v] of Object.entries(want as NonNullable<ManagedFields['extended']>) as [ExtendedField, string | null | undefined][]) {
        if (v === undefined || sameField('extended', now, { [k]: v })) continue;
        const m = EXTENDED_MAPPINGS[k];
        const value = v === null || v.trim() === '' ? null : v.normalize('NFC');
        setText(m.xmp, value);
        if (m.iptc && caps.iptc) setText(m.iptc.tag, value === null ? null : iptcFit(m.iptc.label, value, m.iptc.maxBytes));
      }
      continue;
    }
    const value = (want as string | null) === null || (want as string).trim() === '' ? null : (want as string).normalize('NFC');
    putText(field as TextFieldName, value);
  }

  // Rating and reject share XMP Rating (-1 = rejected, as Lightroom writes it).
  const ratingChanged = !sameField('rating', current.rating, desired.rating);
  const rejectChanged = desired.rejected !== undefined && !sameField('rejected', current.rejected, desired.rejected);
  if (ratingChanged || rejectChanged) {
    if (ratingChanged) plan.changedFields.push('rating');
    if (rejectChanged) plan.changedFields.push('rejected');
    const raw = desired.rejected ? -1 : Math.min(5, Math.max(0, Math.round(desired.rating)));
    const now = texts(tags[TAG.rating]);
    if (!(now.length === 0 && raw === 0) && !(now.length === 1 && Number(now[0]) === raw)) plan.tags[TAG.rating] = raw;
  }

  // Fields the user did not change keep the file's values in every block, even where IPTC and
  // XMP disagree (readers then go on reading what they read before). A digest that matched the
  // IPTC block is updated so readers keep believing the XMP; a stale one stays stale, so they
  // keep believing the IPTC; none is added (exiftool's MWG module does the same).
  const iptcWritten = Object.keys(plan.tags).some(isIptcKey);
  const digest = texts(tags[TAG.iptcDigest])[0];
  const digestNow = texts(tags['File:CurrentIPTCDigest'])[0];
  if (iptcWritten && digest !== undefined && (digestNow === undefined || digest.toLowerCase() === digestNow.toLowerCase())) plan.tags[TAG.iptcDigest] = 'new';
  // IPTC declares UTF-8 only when a value written needs it (plain ASCII reads the same either way).
  if (Object.entries(plan.tags).some(([k, v]) => isIptcKey(k) && v !== null && texts(v).some((x) => hasCharAbove(x, 0x7f))) && !iptcDeclaredUtf8(tags)) {
    plan.tags[TAG.codedCharset] = 'UTF8';
  }
  return plan;
}

// ---------------------------------------------------------------------------- verify

/** Tags that legitimately change on any rewrite: file-system facts, offsets, exiftool's own marks. */
const VOLATILE_GROUPS = ['File:', 'System:', 'ExifTool:', 'Composite:', 'MWG:'];
const VOLATILE_TAGS = new Set(['SourceFile', 'errors', 'warnings', 'XMP-x:XMPToolkit', 'IPTC:ApplicationRecordVersion', 'IPTC:EnvelopeRecordVersion', 'Photoshop:IPTCDigest',
  // The time of the last metadata change, which exiftool (and every XMP tool) keeps current.
  'XMP-xmp:MetadataDate',
  // WebP's extended-format flags gain the 'has XMP' bit.
  'RIFF:WebP_Flags',
  // HEIC keeps the new XMP item in the media data box.
  'QuickTime:MediaDataSize']);
const OFFSET_TAG = /(Offsets?|Start|Position)$/;
/**
 * When a file has no EXIF block yet, writing EXIF:ImageDescription makes exiftool create one
 * with the tags the EXIF standard makes mandatory. They may appear; they may never change.
 */
const MANDATORY_EXIF = new Set([
  'IFD0:XResolution', 'IFD0:YResolution', 'IFD0:ResolutionUnit', 'IFD0:YCbCrPositioning',
  'ExifIFD:ExifVersion', 'ExifIFD:ComponentsConfiguration', 'ExifIFD:FlashpixVersion', 'ExifIFD:ColorSpace',
  'ExifIFD:ExifImageWidth', 'ExifIFD:ExifImageHeight',
]);

function isVolatile(key: string): boolean {
  if (VOLATILE_TAGS.has(key) || VOLATILE_GROUPS.some((g) => key.startsWith(g))) return true;
  return OFFSET_TAG.test(key.slice(key.indexOf(':') + 1));
}

/** A managed tag's language alternatives ('XMP-dc:Title-de') belong to it. */
function isManagedKey(key: string): boolean {
  if (MANAGED_TAGS.has(key)) return true;
  const dash = key.lastIndexOf('-');
  return dash > 0 && MANAGED_TAGS.has(key.slice(0, dash)) && /^-[a-z]{2}(-[A-Za-z]{2})?$/.test(key.slice(dash));
}

const valueMatches = (read: unknown, expected: string): boolean =>
  typeof read === 'number' ? Number(expected) === read : String(read) === expected;

/**
 * A tag's value as a fact, not as bytes of the dump: numbers and numeric text alike, text in
 * NFC, a one-item list as its item, structures with their members in one order, and an empty
 * list, structure or text as no value at all (darktable writes `<rdf:Seq/>` for an edit
 * without masks; exiftool drops such an empty container when it rewrites the packet).
 */
export function factOf(v: unknown): unknown {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (typeof v === 'string') return v === '' ? undefined : v.normalize('NFC');
  if (Array.isArray(v)) {
    const items = v.map(factOf).filter((x) => x !== undefined);
    return items.length === 0 ? undefined : items.length === 1 ? items[0] : items;
  }
  if (typeof v === 'object') {
    const entries = Object.entries(v as Dict).map(([k, x]) => [k, factOf(x)] as const).filter(([, x]) => x !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return entries.length === 0 ? undefined : Object.fromEntries(entries);
  }
  return String(v);
}

const sameFact = (a: unknown, b: unknown): boolean => JSON.stringify(factOf(a)) === JSON.stringify(factOf(b));

/** Null when the read-back matches; otherwise what is wrong, for the user. */
export function verifyReadBack(before: Dict, after: Dict, written: Record<string, TagValue>): string | null {
  for (const [tag, value] of Object.entries(written)) {
    const got = after[tag];
    if (value === null) {
      if (texts(got).length > 0) return `${tag} was still present after removing it.`;
      continue;
    }
    if (tag === TAG.codedCharset) {
      if (!iptcDeclaredUtf8(after)) return 'The IPTC character set was not recorded as UTF-8.';
      continue;
    }
    if (tag === TAG.iptcDigest) {
      const now = after['File:CurrentIPTCDigest'];
      if (now !== undefined && String(got ?? '').toLowerCase() !== String(now).toLowerCase()) return 'The IPTC digest was not updated to match the new IPTC block.';
      continue;
    }
    const want = Array.isArray(value) ? value : [String(value)];
    const gotList = got === undefined ? [] : Array.isArray(got) ? got : [got];
    if (gotList.length !== want.length || !gotList.every((g, i) => valueMatches(g, want[i]))) {
      return `${tag} read back as ${JSON.stringify(got ?? null)} instead of ${JSON.stringify(value)}.`;
    }
  }
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (isVolatile(key) || isManagedKey(key) || key in written) continue;
    if (before[key] === undefined && MANDATORY_EXIF.has(key)) continue;
    if (!sameFact(before[key], after[key])) {
      return `${key} changed (${JSON.stringify(before[key] ?? null)} -> ${JSON.stringify(after[key] ?? null)}), though Tagsmith does not manage it.`;
    }
  }
  return null;
}

// ---------------------------------------------------------------------------- write

const tempNameFor = (path: string): string => {
  const name = basename(path);
  const dot = name.lastIndexOf('.');
  const ext = dot > 0 ? name.slice(dot) : '';
  return join(dirname(path), `.${name}.tagsmith-${process.pid}-${randomBytes(4).toString('hex')}${ext}`);
};

async function fsyncPath(path: string): Promise<void> {
  const fh = await open(path, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

const exists = (path: string): Promise<Stats | null> => lstat(path).catch((e: NodeJS.ErrnoException) => {
  if (e.code === 'ENOENT') return null;
  throw e;
});

function firstLine(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  return msg.split('\n')[0].replace(/^Error:\s*/, '').trim();
}

const WRITE_OPTS = { useMWG: false, ignoreMinorErrors: false } as const;

/**
 * exiftool-vendored hands values to exiftool with -E (HTML entities decoded) but leaves '&'
 * itself unescaped, so a literal 'A &amp; B' would arrive as 'A & B'. Every '&' goes as its
 * numeric reference, which exiftool decodes back to exactly the '&' the user typed.
 */
function forExiftool(tags: Record<string, TagValue>): WriteTags {
  const enc = (v: string): string => v.replace(/&/g, '&#38;');
  const out: Record<string, TagValue> = {};
  for (const [k, v] of Object.entries(tags)) out[k] = typeof v === 'string' ? enc(v) : Array.isArray(v) ? v.map(enc) : v;
  return out as WriteTags;
}

/**
 * Make the file at `path` hold `desired`. Returns what changed (nothing when already in sync).
 * Throws MetadataWriteError (the original untouched) when anything fails.
 */
export async function writeFileMetadata(path: string, desired: ManagedFields, opts: WriteFileOptions = {}): Promise<FileWriteResult> {
  const caps = opts.caps ?? capsForPath(path);
  const fail = (why: string): MetadataWriteError => new MetadataWriteError(why, path);
  const original = await exists(path).catch((e) => {
    throw fail(`The file could not be checked: ${firstLine(e)}`);
  });
  if (original && !original.isFile()) throw fail('This is not a regular file, so Tagsmith did not write to it.');
  const before = original ? await readTags(path).catch((e) => {
    throw fail(`The file's metadata could not be read, so nothing was written: ${firstLine(e)}`);
  }) : {};
  const beforeReading = readFileFields(before);
  const beforeFields = beforeReading.fields;
  const wanted = opts.base !== undefined ? desiredForWrite(opts.base, beforeFields, desired) : desired;
  const plan = planWrite(before, wanted, caps, beforeReading);
  if (Object.keys(plan.tags).length === 0) {
    return {
      path, created: false, changedFields: plan.changedFields, tags: [], warnings: plan.warnings, before: beforeFields, after: beforeFields,
      blockDisagreement: beforeReading.disagreement,
    };
  }

  const et = sharedExifTool();
  const temp = tempNameFor(path);
  try {
    try {
      if (!original) {
        // A new sidecar: exiftool creates an XMP file when the target does not exist.
        await et.write(temp, forExiftool(plan.tags), { ...WRITE_OPTS, writeArgs: [] });
      } else if (needsIptcConversion(before) && Object.keys(plan.tags).some(isIptcKey)) {
        // Existing Latin-1 IPTC is re-encoded first (exiftool FAQ 10), so declaring UTF-8
        // does not garble the values Tagsmith does not manage.
        await et.write(path, { [TAG.codedCharset]: 'UTF8' } as WriteTags, {
          ...WRITE_OPTS,
          writeArgs: ['-charset', 'iptc=Latin', '-tagsFromFile', '@', '-IPTC:all', '-o', temp],
        });
        await et.write(temp, forExiftool(plan.tags), { ...WRITE_OPTS, writeArgs: ['-overwrite_original'] });
      } else {
        await et.write(path, forExiftool(plan.tags), { ...WRITE_OPTS, writeArgs: ['-o', temp] });
      }
    } catch (e) {
      throw fail(`exiftool could not write the metadata: ${firstLine(e)}`);
    }
    if (original) await chmod(temp, original.mode & 0o7777);
    await fsyncPath(temp);

    const after = await readTags(temp).catch((e) => {
      throw fail(`The written file could not be read back: ${firstLine(e)}`);
    });
    opts.tamperReadBack?.(after);
    const problem = verifyReadBack(before, after, plan.tags);
    if (problem) throw fail(`The written file did not read back correctly, so the original was kept: ${problem}`);

    await opts.beforeCommit?.(temp);
    const now = await exists(path);
    if (original) {
      if (!now || now.ino !== original.ino || now.size !== original.size || now.mtimeMs !== original.mtimeMs) {
        throw fail('The file changed while Tagsmith was writing to it (another program?), so it was left as it is. Try again.');
      }
      await rename(temp, path);
    } else {
      // link() fails if another program created the sidecar meanwhile: never overwrite it.
      await link(temp, path).catch((e: NodeJS.ErrnoException) => {
        throw fail(e.code === 'EEXIST' ? 'A sidecar file appeared while Tagsmith was writing it, so it was left as it is. Try again.' : `The sidecar could not be created: ${firstLine(e)}`);
      });
      await unlink(temp).catch(() => undefined);
    }
    await fsyncPath(dirname(path)).catch(() => undefined); // directories cannot be fsynced everywhere (Windows)
    const afterReading = readFileFields(after);
    return {
      path, created: !original, changedFields: plan.changedFields, tags: Object.keys(plan.tags), warnings: plan.warnings,
      before: beforeFields, after: afterReading.fields, blockDisagreement: afterReading.disagreement,
    };
  } catch (e) {
    await unlink(temp).catch(() => undefined);
    if (e instanceof MetadataWriteError) throw e;
    throw fail(`Writing failed, the original was kept: ${firstLine(e)}`);
  }
}

const TEMP_RE = /^\..+\.tagsmith-(\d+)-[0-9a-f]{8}(\.[^.]*)?$/;

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Remove temp files left in `dir` by a write that was killed (power loss, kill -9): the
 * original was never touched, the temp is garbage. Temps of live processes are kept. Hidden
 * names, so the scanner never indexes them meanwhile. Call once per folder before a batch.
 */
export async function removeStaleTemps(dir: string): Promise<string[]> {
  const removed: string[] = [];
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const m = TEMP_RE.exec(name);
    if (!m || Number(m[1]) === process.pid || processAlive(Number(m[1]))) continue;
    await unlink(join(dir, name)).then(() => removed.push(name), () => undefined);
  }
  return removed;
}
