import { normalizeKeyword } from '../library/keywords';
import type { ExtendedField } from './extended-fields';

// The fields Tagsmith manages inside files (keywords, caption, title, rating, the reject flag,
// the stock and rights fields), how a keyword list takes form in a file (Lightroom's
// hierarchies and flattening), and when two values of a field mean the same. The scan reads
// and merges them (field-merge.ts, file-state.ts); metadata/ writes them into files.

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
  /**
   * The IPTC Core / Extension fields of metadata templates (extended-fields.ts): a key left
   * out is not managed (the file's value stays), null clears it.
   */
  extended?: Partial<Record<ExtendedField, string | null>>;
}

export type FieldName = keyof ManagedFields;
export type TextFieldName = 'caption' | 'title' | 'headline' | 'creator' | 'copyright' | 'credit' | 'city' | 'country' | 'label';

export const FIELD_NAMES: readonly FieldName[] = [
  'keywords', 'caption', 'title', 'rating', 'rejected', 'headline', 'creator', 'copyright', 'credit', 'city', 'country', 'label', 'extended',
];
export const OPTIONAL_FIELDS: readonly FieldName[] = ['rejected', 'headline', 'creator', 'copyright', 'credit', 'city', 'country', 'label', 'extended'];

/** A file's current values: every field known (null/empty/false when absent). */
export type FileFields = Required<ManagedFields>;

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
 * The keyword list a file's tags stand for: the same set metadata/reader.ts's unionKeywords
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
  if (field === 'extended') {
    // The keys `b` manages (the library's or the wanted values) compare; others are not managed.
    const x = (a ?? {}) as Record<string, string | null | undefined>;
    return Object.entries((b ?? {}) as Record<string, string | null | undefined>).every(([k, v]) => v === undefined || normText(x[k]) === normText(v));
  }
  if (field === 'rating') return Number(a ?? 0) === Number(b ?? 0);
  if (field === 'rejected') return Boolean(a) === Boolean(b);
  return normText(a as string | null) === normText(b as string | null);
}
