import { blocksFromTags } from './reader';
import { EXTENDED_FIELDS, type ExtendedField } from './extended-fields';
import { reconcileBlocks, authorityOf, type BlockDisagreement } from './blocks';
import { fileKeywordList, type FileFields, type TextFieldName } from './managed-fields';

// The fields Tagsmith manages inside files, how each maps onto IPTC IIM / XMP / EXIF tags,
// and how a file's tags are turned back into field values. The reading side follows
// metadata/reader.ts (same tag precedence, same keyword folding) so that what the writer
// puts into a file is what the indexer reads back.

/** Where each text field goes. IPTC limits are bytes (IIM record 2 maximum lengths). */
interface TextMapping {
  xmp: string;
  iptc?: { tag: string; maxBytes: number; label: string };
  exif?: string;
  /** The EXIF tag is only updated where the file has it, never added. */
  exifIfPresent?: boolean;
}

export const TEXT_MAPPINGS: Readonly<Record<TextFieldName, TextMapping>> = {
  caption: { xmp: 'XMP-dc:Description', iptc: { tag: 'IPTC:Caption-Abstract', maxBytes: 2000, label: 'Caption-Abstract' }, exif: 'IFD0:ImageDescription' },
  title: { xmp: 'XMP-dc:Title', iptc: { tag: 'IPTC:ObjectName', maxBytes: 64, label: 'ObjectName (title)' } },
  headline: { xmp: 'XMP-photoshop:Headline', iptc: { tag: 'IPTC:Headline', maxBytes: 256, label: 'Headline' } },
  creator: { xmp: 'XMP-dc:Creator', iptc: { tag: 'IPTC:By-line', maxBytes: 32, label: 'By-line (creator)' }, exif: 'IFD0:Artist', exifIfPresent: true },
  copyright: { xmp: 'XMP-dc:Rights', iptc: { tag: 'IPTC:CopyrightNotice', maxBytes: 128, label: 'CopyrightNotice' }, exif: 'IFD0:Copyright', exifIfPresent: true },
  credit: { xmp: 'XMP-photoshop:Credit', iptc: { tag: 'IPTC:Credit', maxBytes: 32, label: 'Credit' } },
  city: { xmp: 'XMP-photoshop:City', iptc: { tag: 'IPTC:City', maxBytes: 32, label: 'City' } },
  country: { xmp: 'XMP-photoshop:Country', iptc: { tag: 'IPTC:Country-PrimaryLocationName', maxBytes: 64, label: 'Country' } },
  // XMP only: IPTC IIM has no colour label.
  label: { xmp: 'XMP-xmp:Label' },
};

/**
 * Where each metadata-template field goes: IPTC Core (Iptc4xmpCore, photoshop, xmpRights) and
 * IPTC Extension (Iptc4xmpExt LocationCreated / LocationShown) in XMP, by exiftool's flattened
 * tag names; the IIM dataset too where IIM has one.
 */
export const EXTENDED_MAPPINGS: Readonly<Record<ExtendedField, TextMapping>> = {
  creatorJobTitle: { xmp: 'XMP-photoshop:AuthorsPosition', iptc: { tag: 'IPTC:By-lineTitle', maxBytes: 32, label: 'By-lineTitle (creator’s job title)' } },
  creatorAddress: { xmp: 'XMP-iptcCore:CreatorAddress' },
  creatorCity: { xmp: 'XMP-iptcCore:CreatorCity' },
  creatorRegion: { xmp: 'XMP-iptcCore:CreatorRegion' },
  creatorPostalCode: { xmp: 'XMP-iptcCore:CreatorPostalCode' },
  creatorCountry: { xmp: 'XMP-iptcCore:CreatorCountry' },
  creatorPhone: { xmp: 'XMP-iptcCore:CreatorWorkTelephone' },
  creatorEmail: { xmp: 'XMP-iptcCore:CreatorWorkEmail' },
  creatorUrl: { xmp: 'XMP-iptcCore:CreatorWorkURL' },
  usageTerms: { xmp: 'XMP-xmpRights:UsageTerms' },
  rightsUrl: { xmp: 'XMP-xmpRights:WebStatement' },
  instructions: { xmp: 'XMP-photoshop:Instructions', iptc: { tag: 'IPTC:SpecialInstructions', maxBytes: 256, label: 'SpecialInstructions' } },
  source: { xmp: 'XMP-photoshop:Source', iptc: { tag: 'IPTC:Source', maxBytes: 32, label: 'Source' } },
  createdSublocation: { xmp: 'XMP-iptcExt:LocationCreatedSublocation' },
  createdCity: { xmp: 'XMP-iptcExt:LocationCreatedCity' },
  createdState: { xmp: 'XMP-iptcExt:LocationCreatedProvinceState' },
  createdCountry: { xmp: 'XMP-iptcExt:LocationCreatedCountryName' },
  createdCountryCode: { xmp: 'XMP-iptcExt:LocationCreatedCountryCode' },
  shownSublocation: { xmp: 'XMP-iptcExt:LocationShownSublocation' },
  shownCity: { xmp: 'XMP-iptcExt:LocationShownCity' },
  shownState: { xmp: 'XMP-iptcExt:LocationShownProvinceState' },
  shownCountry: { xmp: 'XMP-iptcExt:LocationShownCountryName' },
  shownCountryCode: { xmp: 'XMP-iptcExt:LocationShownCountryCode' },
};

/** A template field as a target holds it: the XMP value, else the IIM one. */
export function extendedFromTags(tags: Dict): Record<ExtendedField, string | null> {
  const first = (tag: string | undefined): string | null => (tag ? (texts(tags[tag]).map((s) => s.trim()).find((s) => s.length > 0) ?? null) : null);
  return Object.fromEntries(EXTENDED_FIELDS.map((f) => [f, first(EXTENDED_MAPPINGS[f].xmp) ?? first(EXTENDED_MAPPINGS[f].iptc?.tag)])) as Record<ExtendedField, string | null>;
}

export const TAG = {
  iptcKeywords: 'IPTC:Keywords',
  xmpSubject: 'XMP-dc:Subject',
  hierarchical: 'XMP-lr:HierarchicalSubject',
  tagsList: 'XMP-digiKam:TagsList',
  /** Windows Photo Gallery's keyword paths, which digiKam also writes ('Places/Berlin'). */
  msKeywords: 'XMP-microsoft:LastKeywordXMP',
  rating: 'XMP-xmp:Rating',
  codedCharset: 'IPTC:CodedCharacterSet',
  xpKeywords: 'IFD0:XPKeywords',
  iptcDigest: 'Photoshop:IPTCDigest',
} as const;
export const IPTC_KEYWORD_MAX_BYTES = 64;

/** Every tag the writer may change: the verifier expects exactly these (and no others) to differ. */
export const MANAGED_TAGS: ReadonlySet<string> = new Set([
  TAG.iptcKeywords, TAG.xmpSubject, TAG.hierarchical, TAG.tagsList, TAG.msKeywords, TAG.rating, TAG.codedCharset, TAG.xpKeywords,
  ...[...Object.values(TEXT_MAPPINGS), ...Object.values(EXTENDED_MAPPINGS)].flatMap((m) => [m.xmp, ...(m.iptc ? [m.iptc.tag] : []), ...(m.exif ? [m.exif] : [])]),
]);

// ---------------------------------------------------------------------------- values

export type Dict = Record<string, unknown>;
const isDict = (v: unknown): v is Dict => typeof v === 'object' && v !== null && !Array.isArray(v);

/** exiftool JSON values as strings: a single list item arrives as a scalar, numbers as numbers. */
export function texts(v: unknown): string[] {
  if (v === undefined || v === null) return [];
  if (Array.isArray(v)) return v.flatMap(texts);
  if (typeof v === 'string') return [v];
  if (typeof v === 'number' || typeof v === 'boolean') return [String(v)];
  if (isDict(v) && 'value' in v) return texts(v.value);
  return [];
}

/**
 * Field values as one target (a file or a sidecar) holds them, read as the indexer reads
 * them: EXIF ImageDescription / Artist / Copyright first, then IPTC and XMP reconciled by the
 * MWG rule (metadata/blocks.ts), keywords the union of
 * every keyword tag in the authoritative block's order.
 */
export function fieldsFromTags(tags: Dict): FileFields {
  return readFileFields(tags).fields;
}

/** A file's fields, and where its IPTC and XMP blocks disagreed, which was taken (the MWG rule). */
export interface FileReading {
  fields: FileFields;
  disagreement: BlockDisagreement | null;
}

/** The file's fields from its tags, the blocks reconciled once for both answers. */
export function readFileFields(tags: Dict): FileReading {
  const rawRating = Number(texts(tags[TAG.rating])[0]);
  const rating = Number.isFinite(rawRating) ? rawRating : 0;
  const blocks = blocksFromTags(tags);
  const { text, disagreement } = reconcileBlocks(blocks);
  const xmpFirst = authorityOf(blocks).took === 'xmp';
  const flat = xmpFirst ? [...blocks.xmp.subject, ...blocks.iptc.keywords] : [...blocks.iptc.keywords, ...blocks.xmp.subject];
  const hier = [...blocks.xmp.hierarchical, ...blocks.xmp.tagsList.map((s) => s.split('/').join('|'))];
  const fields: FileFields = {
    keywords: fileKeywordList([...flat, ...blocks.exif.xpKeywords], hier),
    caption: text.caption,
    title: text.title,
    rating: Math.min(5, Math.max(0, Math.round(rating))),
    rejected: rating === -1,
    headline: text.headline,
    creator: text.creator,
    copyright: text.copyright,
    credit: text.credit,
    city: text.city,
    country: text.country,
    label: labelFromTags(tags),
    extended: extendedFromTags(tags),
  };
  return { fields, disagreement };
}

/** The colour label a target holds (xmp:Label; IIM has none). */
export const labelFromTags = (tags: Dict): string | null => texts(tags[TEXT_MAPPINGS.label.xmp]).map((s) => s.trim()).find((s) => s.length > 0) ?? null;

// ---------------------------------------------------------------------------- IPTC bytes

/** Cut `s` to at most `maxBytes` of UTF-8 without splitting a character. */
export function truncateUtf8(s: string, maxBytes: number): string {
  if (Buffer.byteLength(s, 'utf8') <= maxBytes) return s;
  let bytes = 0;
  let out = '';
  for (const ch of s) {
    const n = Buffer.byteLength(ch, 'utf8');
    if (bytes + n > maxBytes) break;
    bytes += n;
    out += ch;
  }
  return out;
}

/** Where the user-facing warning text for a shortened IPTC value is made (one wording everywhere). */
export const shortenedWarning = (label: string, value: string, maxBytes: number): string =>
  `IPTC ${label}: “${value}” shortened to ${maxBytes} bytes (it is kept whole in XMP).`;
