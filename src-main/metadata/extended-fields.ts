import { setExtendedJson } from '../catalogue/asset-fields';
import type { ExtendedRightsFields } from '../../src-preload/contract';
import { prepared, type Db } from '../library/db';

// The IPTC Core / Extension fields beyond the six rights columns that a metadata template
// sets (creator contact info, usage terms, rights URL, instructions, source, location created
// and shown). Stored together as one JSON object per asset (assets.iptc_extended), edited and
// undone as one field, written into files by metadata/ (fields.ts EXTENDED_MAPPINGS).

export const EXTENDED_FIELDS = [
  'creatorJobTitle', 'creatorAddress', 'creatorCity', 'creatorRegion', 'creatorPostalCode', 'creatorCountry', 'creatorPhone', 'creatorEmail', 'creatorUrl',
  'usageTerms', 'rightsUrl', 'instructions', 'source',
  'createdSublocation', 'createdCity', 'createdState', 'createdCountry', 'createdCountryCode',
  'shownSublocation', 'shownCity', 'shownState', 'shownCountry', 'shownCountryCode',
] as const satisfies readonly (keyof ExtendedRightsFields)[];
export type ExtendedField = (typeof EXTENDED_FIELDS)[number];
/** The fields an asset has, each a non-empty string (absent: none). */
export type ExtendedValues = Partial<Record<ExtendedField, string>>;

export const isExtendedField = (f: string): f is ExtendedField => (EXTENDED_FIELDS as readonly string[]).includes(f);

/** Only known fields with text; NFC, trimmed. */
export function cleanExtended(raw: unknown): ExtendedValues {
  const out: ExtendedValues = {};
  if (!raw || typeof raw !== 'object') return out;
  for (const f of EXTENDED_FIELDS) {
    const v = (raw as Record<string, unknown>)[f];
    if (typeof v !== 'string') continue;
    const t = v.normalize('NFC').trim();
    if (t) out[f] = t;
  }
  return out;
}

export function parseExtended(json: string | null): ExtendedValues {
  return json ? cleanExtended(JSON.parse(json)) : {};
}

export const extendedJson = (v: ExtendedValues): string | null => (Object.keys(v).length ? JSON.stringify(cleanExtended(v)) : null);

export function readExtended(db: Db, assetId: number): ExtendedValues {
  const row = prepared(db, 'SELECT iptc_extended FROM assets WHERE id = ?').get(assetId) as { iptc_extended: string | null } | undefined;
  return parseExtended(row?.iptc_extended ?? null);
}

export function writeExtended(db: Db, assetId: number, v: ExtendedValues): void {
  setExtendedJson(db, assetId, extendedJson(v));
}

/** Every field, null where the asset has none (the inspector's view). */
export function allExtended(v: ExtendedValues): Required<Record<ExtendedField, string | null>> {
  return Object.fromEntries(EXTENDED_FIELDS.map((f) => [f, v[f] ?? null])) as Required<Record<ExtendedField, string | null>>;
}
