import type { AgencyId, UploadProtocol } from '../../../src-preload/contract';

// What an agency profile holds. Every rule is optional: a profile states only what the
// agency's published contributor documentation says, and lists in `notFound` what it could
// not find, so the check never enforces a rule Tagsmith made up.

export type { AgencyId, UploadProtocol };

/** The values of one photo that a CSV row carries. */
export interface AgencyRow {
  filename: string;
  title: string;
  description: string;
  /** Leaves, deduplicated, in their order; without commas. */
  keywords: string[];
  categories: string[];
  releases: string[];
  editorial: boolean;
  mature: boolean;
  illustration: boolean;
}

export interface TextRule {
  required?: boolean;
  minChars?: number;
  maxChars?: number;
  /** Characters the agency forbids in this field, with how to name them to a person. */
  forbidden?: { pattern: RegExp; what: string };
}

export interface AgencyProfile {
  id: AgencyId;
  name: string;
  /** Where each rule comes from, and when it was read. */
  sources: { url: string; what: string; checked: string }[];
  /** The agency's metadata CSV, when it documents one with its header. */
  csv: { header: readonly string[]; cells(row: AgencyRow): string[]; maxRows?: number } | null;
  /** What the agency calls the title it shows (Adobe: the CSV Title; Shutterstock: Description). */
  title?: TextRule & { from: 'title' | 'caption' };
  description?: TextRule & { from: 'caption' | 'title' };
  keywords?: { min?: number; max?: number };
  categories?: { list: readonly { value: string; label: string }[]; min: number; max: number };
  /** The agency's editorial caption format in words, and a pattern it can be checked with. */
  editorial?: { format: string; pattern?: RegExp };
  releases?: string;
  fileName?: { maxChars?: number; forbidden?: { pattern: RegExp; what: string } };
  /** Accepted photo formats (lower-case extensions). */
  photoFormats?: readonly string[];
  videoFormats?: readonly string[];
  minPixels?: number;
  maxPixels?: number;
  minSide?: number;
  maxSide?: number;
  /** width × height × 3 bytes (Alamy states its minimum as an uncompressed size). */
  minUncompressedBytes?: number;
  minFileBytes?: number;
  maxFileBytes?: number;
  upload: { protocols: UploadProtocol[]; host: string | null; port?: number; note: string };
  notFound: string[];
}

export const MB = 1024 * 1024;
