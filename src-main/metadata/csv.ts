// CSV files for stock agencies' bulk metadata upload (images and video alike). Each agency's
// columns live in its profile (metadata/agencies/); this file writes the rows.
//
// Layouts checked against the agencies' help pages (November 2026):
// - Adobe Stock, "CSV requirements for Adobe Stock" (helpx.adobe.com/stock/contributor/
//   manage-your-portfolio/csv-requirements-content.html, updated Jun 11 2026): headers
//   exactly as the official template, `Filename,Title,Keywords,Category,Releases`;
//   Filename, Title and Keywords required; Filename <= 30 characters with its extension;
//   Title <= 70 characters and "without commas"; Keywords comma-separated, ordered by
//   importance, at most 50 (the issue uses 49 as Adobe's keyword limit); Category is the
//   number of Adobe's category; Releases optional (release names). UTF-8, at most 5,000
//   rows and 1 MB per file.
// - Shutterstock, "How do I include existing metadata with my content submission"
//   (submit.shutterstock.com/help/en/articles/10617486): column names must match exactly;
//   Filename, Description, Keywords (comma-separated), Categories (1 or 2, comma-separated,
//   from Shutterstock's list) required; Illustration, Mature Content, Editorial optional,
//   "Yes" or "No". The template's header is
//   `Filename,Description,Keywords,Categories,Editorial,Mature content,illustration`.
// Quoting follows RFC 4180: a field with a comma, quote, CR or LF is quoted and its quotes
// doubled; records end with CRLF. A UTF-8 byte-order mark is optional and left to the caller
// (Excel wants one to show non-ASCII text; the agencies' parsers accept either).

import { agencyProfile, type AgencyId, type AgencyRow } from './agencies';
import { agencyKeywords } from './agencies/check';

export interface CsvRow {
  /** File name with extension, as uploaded (no folder). */
  filename: string;
  title?: string | null;
  /** Caption; Shutterstock's "Description" (falls back to the title when empty). */
  description?: string | null;
  /** In their order, strongest first. Hierarchies ('A|B') are exported as their leaf. */
  keywords: readonly string[];
  /** Adobe: one category number; Shutterstock: up to two category names. */
  categories?: readonly (string | number)[];
  /** Adobe: release names. */
  releases?: readonly string[];
  editorial?: boolean;
  mature?: boolean;
  illustration?: boolean;
}

/** One RFC 4180 field. */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** Header and records as CSV text (CRLF line ends), to be saved as UTF-8. */
export function csvText(header: readonly string[], records: readonly (readonly string[])[]): string {
  return [header, ...records].map((l) => l.map(csvField).join(',')).join('\r\n') + '\r\n';
}

const text = (s: string | null | undefined): string => (s ?? '').normalize('NFC').trim();

export function toAgencyRow(row: CsvRow): AgencyRow {
  const title = text(row.title);
  const description = text(row.description);
  return {
    filename: row.filename,
    title: title || description,
    description: description || title,
    keywords: agencyKeywords(row.keywords),
    categories: (row.categories ?? []).map(String),
    releases: [...(row.releases ?? [])],
    editorial: row.editorial === true,
    mature: row.mature === true,
    illustration: row.illustration === true,
  };
}

/** The whole CSV (header + one record per row) for an agency that documents one. */
export function exportCsv(rows: readonly CsvRow[], agency: AgencyId): string {
  const csv = agencyProfile(agency).csv;
  if (!csv) throw new Error(`${agencyProfile(agency).name} documents no metadata CSV.`);
  return csvText(csv.header, rows.map((r) => csv.cells(toAgencyRow(r))));
}
