import { normalizeKeyword } from '../library/keywords';

// The fields Tagsmith manages inside files, how each maps onto IPTC IIM / XMP / EXIF tags,
// and how a file's tags are turned back into field values. The reading side follows
// library/metadata.ts (same tag precedence, same keyword folding) so that what the writer
// puts into a file is what the indexer reads back.

export interface ManagedFields {
  /** Accepted keywords in order; 'A|B' is a hierarchy (Lightroom's separator). */
  keywords: string[];
  caption: string | null;
  title: string | null;
  /** 0..5 stars. */
  rating: number;
  // The fields below are optional: `undefined` means "not managed for this asset, leave the
  // file's value alone"; `null` means "clear it".
  /** Lightroom encodes a reject as XMP Rating -1. */
  rejected?: boolean;
  headline?: string | null;
  creator?: string | null;
  copyright?: string | null;
  credit?: string | null;
  city?: string | null;
  country?: string | null;
  /** The colour label as XMP xmp:Label holds it (Lightroom's names: 'Red' ... 'Purple'). */
  label?: string | null;
}

export type FieldName = keyof ManagedFields;
export type TextFieldName = 'caption' | 'title' | 'headline' | 'creator' | 'copyright' | 'credit' | 'city' | 'country' | 'label';

export const FIELD_NAMES: readonly FieldName[] = [
  'keywords', 'caption', 'title', 'rating', 'rejected', 'headline', 'creator', 'copyright', 'credit', 'city', 'country', 'label',
];
export const OPTIONAL_FIELDS: readonly FieldName[] = ['rejected', 'headline', 'creator', 'copyright', 'credit', 'city', 'country', 'label'];

/** A file's current values: every field known (null/empty/false when absent). */
export type FileFields = Required<ManagedFields>;

/** Where each text field goes. IPTC limits are bytes (IIM record 2 maximum lengths). */
interface TextMapping {
  xmp: string;
  iptc?: { tag: string; maxBytes: number; label: string };
  exif?: string;
}

export const TEXT_MAPPINGS: Readonly<Record<TextFieldName, TextMapping>> = {
  caption: { xmp: 'XMP-dc:Description', iptc: { tag: 'IPTC:Caption-Abstract', maxBytes: 2000, label: 'Caption-Abstract' }, exif: 'IFD0:ImageDescription' },
  title: { xmp: 'XMP-dc:Title', iptc: { tag: 'IPTC:ObjectName', maxBytes: 64, label: 'ObjectName (title)' } },
  headline: { xmp: 'XMP-photoshop:Headline', iptc: { tag: 'IPTC:Headline', maxBytes: 256, label: 'Headline' } },
  creator: { xmp: 'XMP-dc:Creator', iptc: { tag: 'IPTC:By-line', maxBytes: 32, label: 'By-line (creator)' } },
  copyright: { xmp: 'XMP-dc:Rights', iptc: { tag: 'IPTC:CopyrightNotice', maxBytes: 128, label: 'CopyrightNotice' } },
  credit: { xmp: 'XMP-photoshop:Credit', iptc: { tag: 'IPTC:Credit', maxBytes: 32, label: 'Credit' } },
  city: { xmp: 'XMP-photoshop:City', iptc: { tag: 'IPTC:City', maxBytes: 32, label: 'City' } },
  country: { xmp: 'XMP-photoshop:Country', iptc: { tag: 'IPTC:Country-PrimaryLocationName', maxBytes: 64, label: 'Country' } },
  // XMP only: IPTC IIM has no colour label.
  label: { xmp: 'XMP-xmp:Label' },
};

export const TAG = {
  iptcKeywords: 'IPTC:Keywords',
  xmpSubject: 'XMP-dc:Subject',
  hierarchical: 'XMP-lr:HierarchicalSubject',
  tagsList: 'XMP-digiKam:TagsList',
  rating: 'XMP-xmp:Rating',
  codedCharset: 'IPTC:CodedCharacterSet',
} as const;
export const IPTC_KEYWORD_MAX_BYTES = 64;

/** Every tag the writer may change: the verifier expects exactly these (and no others) to differ. */
export const MANAGED_TAGS: ReadonlySet<string> = new Set([
  TAG.iptcKeywords, TAG.xmpSubject, TAG.hierarchical, TAG.rating, TAG.codedCharset,
  ...Object.values(TEXT_MAPPINGS).flatMap((m) => [m.xmp, ...(m.iptc ? [m.iptc.tag] : []), ...(m.exif ? [m.exif] : [])]),
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

const firstText = (v: unknown): string | null => texts(v).map((s) => s.trim()).find((s) => s.length > 0) ?? null;

/** Text as compared: NFC, trimmed, '' is absent. */
export function normText(s: string | null | undefined): string | null {
  const t = (s ?? '').normalize('NFC').trim();
  return t.length > 0 ? t : null;
}

const kwKey = (k: string): string => normalizeKeyword(k).toLocaleLowerCase();

/** 'A | B|' -> 'A|B'. */
export const normHierarchy = (k: string): string => k.split('|').map((p) => normalizeKeyword(p)).filter(Boolean).join('|');

/**
 * Lightroom's flattening: every component of a hierarchy (ancestors and leaf) is also a flat
 * keyword in dc:subject / IPTC Keywords, so tools that know no hierarchies still find 'Cat'.
 * Order follows the library's order; duplicates are dropped case-insensitively.
 */
export function flattenKeywords(keywords: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const k of keywords) {
    for (const part of normHierarchy(k).split('|')) {
      if (!part || seen.has(kwKey(part))) continue;
      seen.add(kwKey(part));
      out.push(part);
    }
  }
  return out;
}

export const hierarchiesOf = (keywords: readonly string[]): string[] => keywords.map(normHierarchy).filter((k) => k.includes('|'));

/**
 * The keyword list a file's tags stand for: the same set library/metadata.ts's unionKeywords
 * reads (all keyword tags, a flat keyword that is a component of a hierarchy folded into it),
 * but ordered by the flat list, so a list written in the library's order reads back in it.
 */
export function fileKeywordList(flat: readonly string[], hierarchical: readonly string[]): string[] {
  const hier: string[] = [];
  const hierSeen = new Set<string>();
  for (const h of hierarchical.map(normHierarchy)) {
    if (!h || hierSeen.has(kwKey(h))) continue;
    hierSeen.add(kwKey(h));
    hier.push(h);
  }
  const byComponent = new Map<string, string[]>();
  for (const h of hier) {
    for (const part of h.split('|')) {
      const list = byComponent.get(kwKey(part)) ?? [];
      list.push(h);
      byComponent.set(kwKey(part), list);
    }
  }
  const out: string[] = [];
  const seen = new Set<string>();
  const push = (k: string): void => {
    if (!k || seen.has(kwKey(k))) return;
    seen.add(kwKey(k));
    out.push(k);
  };
  for (const f of flat.map(normHierarchy)) {
    const owners = byComponent.get(kwKey(f));
    if (owners) owners.forEach(push);
    else push(f);
  }
  hier.forEach(push);
  return out;
}

/** The library's list in the form it takes in a file: flat keywords that only repeat a hierarchy component fold into it. */
export function canonicalKeywords(keywords: readonly string[]): string[] {
  return fileKeywordList(flattenKeywords(keywords), hierarchiesOf(keywords));
}

/** Field values as one target (a file or a sidecar) holds them. */
export function fieldsFromTags(tags: Dict): FileFields {
  const rawRating = Number(texts(tags[TAG.rating])[0]);
  const rating = Number.isFinite(rawRating) ? rawRating : 0;
  const text = (f: TextFieldName): string | null => {
    const m = TEXT_MAPPINGS[f];
    return firstText(tags[m.xmp]) ?? (m.iptc ? firstText(tags[m.iptc.tag]) : null) ?? (m.exif ? firstText(tags[m.exif]) : null);
  };
  const flat = [...texts(tags[TAG.iptcKeywords]), ...texts(tags[TAG.xmpSubject])];
  const hier = [...texts(tags[TAG.hierarchical]), ...texts(tags[TAG.tagsList]).map((s) => s.split('/').join('|'))];
  return {
    keywords: fileKeywordList(flat, hier),
    caption: text('caption'),
    title: text('title'),
    rating: Math.min(5, Math.max(0, Math.round(rating))),
    rejected: rating === -1,
    headline: text('headline'),
    creator: text('creator'),
    copyright: text('copyright'),
    credit: text('credit'),
    city: text('city'),
    country: text('country'),
    label: labelFromTags(tags),
  };
}

/** The colour label a target holds (xmp:Label; IIM has none). */
export const labelFromTags = (tags: Dict): string | null => firstText(tags[TEXT_MAPPINGS.label.xmp]);

/**
 * Whether two values of a field mean the same. Keywords compare as the catalogue dedupes
 * them (NFC, case-insensitive) and in order; text compares exactly after NFC + trim.
 */
export function sameField(field: FieldName, a: unknown, b: unknown): boolean {
  if (field === 'keywords') {
    const x = canonicalKeywords((a as string[] | undefined) ?? []).map(kwKey);
    const y = canonicalKeywords((b as string[] | undefined) ?? []).map(kwKey);
    return x.length === y.length && x.every((k, i) => k === y[i]);
  }
  if (field === 'rating') return Number(a ?? 0) === Number(b ?? 0);
  if (field === 'rejected') return Boolean(a) === Boolean(b);
  return normText(a as string | null) === normText(b as string | null);
}

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
