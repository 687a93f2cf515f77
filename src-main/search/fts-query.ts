// What a person typed in the search box, as FTS5 reads it.

/** The words of a search text that FTS5 can match: NFC, split on spaces, each with a letter or digit. */
export function ftsWords(text: string): string[] {
  return (
    text
      .normalize('NFC')
      .split(/\s+/)
      // Words with no letter or digit would be empty phrases to FTS5 (and match nothing useful).
      .filter((w) => /[\p{L}\p{N}]/u.test(w))
  );
}

/** One word as an FTS5 prefix phrase: quoted (FTS5 syntax in it is plain text), then *. */
export const ftsWord = (w: string): string => `"${w.replace(/"/g, '""')}"*`;

/** Turn what a person typed into an FTS5 query: each word a quoted prefix term, all ANDed. */
export function ftsQuery(text: string): string | null {
  const terms = ftsWords(text).map(ftsWord);
  return terms.length ? terms.join(' AND ') : null;
}
