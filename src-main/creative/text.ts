// Splitting a script for a per-request text limit: at sentence ends first, then at commas or
// spaces for a sentence longer than the limit, and only as a last resort inside a word.

const SENTENCE_END = /(?<=[.!?…。！？;])\s+/u;

function splitLong(s: string, limit: number): string[] {
  const out: string[] = [];
  let rest = s.trim();
  while (rest.length > limit) {
    const window = rest.slice(0, limit + 1);
    let cut = Math.max(window.lastIndexOf(', '), window.lastIndexOf('; '));
    cut = cut > limit * 0.4 ? cut + 1 : window.lastIndexOf(' ');
    if (cut <= 0) cut = limit;
    out.push(rest.slice(0, cut).trim());
    rest = rest.slice(cut).trim();
  }
  if (rest) out.push(rest);
  return out;
}

/** The text in parts of at most `limit` characters (one part when limit is null or the text fits). */
export function splitText(text: string, limit: number | null): string[] {
  const t = text.trim();
  if (limit === null || t.length <= limit) return [t];
  const sentences = t.split(SENTENCE_END).flatMap((s) => (s.length > limit ? splitLong(s, limit) : [s.trim()])).filter(Boolean);
  const parts: string[] = [];
  let cur = '';
  for (const s of sentences) {
    if (!cur) cur = s;
    else if (cur.length + 1 + s.length <= limit) cur += ' ' + s;
    else {
      parts.push(cur);
      cur = s;
    }
  }
  if (cur) parts.push(cur);
  return parts;
}
