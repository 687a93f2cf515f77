// CSV files for stock agencies' bulk metadata upload (images and video alike).
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

export type Agency = 'adobe' | 'shutterstock';

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

export const CSV_HEADERS: Readonly<Record<Agency, readonly string[]>> = {
  adobe: ['Filename', 'Title', 'Keywords', 'Category', 'Releases'],
  shutterstock: ['Filename', 'Description', 'Keywords', 'Categories', 'Editorial', 'Mature content', 'illustration'],
};

/** One RFC 4180 field. */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

const leaf = (k: string): string => {
  const parts = k.split('|').map((p) => p.trim()).filter(Boolean);
  return parts[parts.length - 1] ?? '';
};

/** Keywords as the agencies want them: comma-separated, in order; a keyword's own commas would split it, so they become spaces. */
function keywordList(keywords: readonly string[]): string {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const k of keywords) {
    const word = leaf(k).replace(/,/g, ' ').replace(/\s+/g, ' ').trim();
    if (!word || seen.has(word.toLocaleLowerCase())) continue;
    seen.add(word.toLocaleLowerCase());
    out.push(word);
  }
  return out.join(',');
}

const yesNo = (b: boolean | undefined): string => (b ? 'Yes' : 'No');
const text = (s: string | null | undefined): string => (s ?? '').normalize('NFC').trim();

function cells(row: CsvRow, agency: Agency): string[] {
  const categories = (row.categories ?? []).map(String);
  if (agency === 'adobe') {
    return [row.filename, text(row.title) || text(row.description), keywordList(row.keywords), categories[0] ?? '', (row.releases ?? []).join(',')];
  }
  return [
    row.filename, text(row.description) || text(row.title), keywordList(row.keywords), categories.slice(0, 2).join(','),
    yesNo(row.editorial), yesNo(row.mature), yesNo(row.illustration),
  ];
}

/** The whole CSV (header + one record per row), as a string to be saved as UTF-8. */
export function exportCsv(rows: readonly CsvRow[], agency: Agency): string {
  const lines = [CSV_HEADERS[agency], ...rows.map((r) => cells(r, agency))];
  return lines.map((l) => l.map(csvField).join(',')).join('\r\n') + '\r\n';
}
