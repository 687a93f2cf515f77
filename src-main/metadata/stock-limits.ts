import type { Agency, KeywordCheck, KeywordLimit, LimitPreset, TextCheck } from '../../src-preload/contract';

// What stock agencies accept: keyword counts (Adobe Stock, Shutterstock, or the user's own
// limit), IPTC's keyword size, and title/description lengths. Pure checks, used by the CSV
// export and by keyword hygiene (workflows/hygiene.ts).

const lower = (s: string): string => s.toLocaleLowerCase();

/** Adobe Stock: at most 49 (the figure; Adobe's CSV allows 50). Shutterstock: 7 to 50. */
export const LIMIT_PRESETS: Readonly<Record<Exclude<LimitPreset, 'custom'>, KeywordLimit>> = {
  default: { preset: 'default', min: 0, max: 50 },
  adobe: { preset: 'adobe', min: 0, max: 49 },
  shutterstock: { preset: 'shutterstock', min: 7, max: 50 },
};

/** Title and description limits in characters (Adobe Stock's CSV help; Shutterstock's submission help). */
export const TEXT_LIMITS: Readonly<Record<Agency, { title?: number; description?: number }>> = {
  adobe: { title: 70 },
  shutterstock: { description: 200 },
};

/** IPTC Keywords holds at most 64 bytes per keyword (longer ones stay whole in XMP only). */
const IPTC_KEYWORD_BYTES = 64;

/** Count, limit and IPTC-size checks of one keyword list, with warnings a person understands. */
export function checkKeywords(keywords: readonly string[], limit: KeywordLimit = LIMIT_PRESETS.default): KeywordCheck {
  const count = keywords.length;
  const who = limit.preset === 'adobe' ? 'Adobe Stock' : limit.preset === 'shutterstock' ? 'Shutterstock' : 'your limit';
  const warnings: string[] = [];
  if (count > limit.max) {
    warnings.push(`${count} keywords, but ${who} allows at most ${limit.max}: remove ${count - limit.max} (the last ones are the first to go).`);
  }
  if (limit.min > 0 && count < limit.min) {
    warnings.push(`${count} keyword${count === 1 ? '' : 's'}, but ${who} needs at least ${limit.min}: add ${limit.min - count} more.`);
  }
  const seen = new Set<string>();
  for (const k of keywords) {
    if (seen.has(lower(k))) warnings.push(`“${k}” appears twice.`);
    seen.add(lower(k));
    if (Buffer.byteLength(k, 'utf8') > IPTC_KEYWORD_BYTES) {
      warnings.push(`“${k}” is longer than IPTC's ${IPTC_KEYWORD_BYTES} bytes: it is written whole in XMP and shortened in IPTC.`);
    }
  }
  return { count, min: limit.min, max: limit.max, preset: limit.preset, ok: warnings.length === 0, warnings };
}

const AGENCY_NAME: Record<Agency, string> = { adobe: 'Adobe Stock', shutterstock: 'Shutterstock' };

/**
 * Title and caption against an agency's limits (or both agencies' when none is named):
 * Adobe Stock titles at most 70 characters, Shutterstock descriptions at most 200. The
 * caption is what the CSV exports as Shutterstock's Description.
 */
export function checkTextLimits(values: { title?: string | null; caption?: string | null }, agency?: Agency): TextCheck[] {
  const out: TextCheck[] = [];
  for (const a of agency ? [agency] : (Object.keys(TEXT_LIMITS) as Agency[])) {
    const lim = TEXT_LIMITS[a];
    const title = values.title ?? '';
    // Adobe exports the caption as the title when there is none: check what will be sent.
    const adobeTitle = a === 'adobe' ? title || (values.caption ?? '') : title;
    if (lim.title !== undefined && [...adobeTitle].length > lim.title) {
      const n = [...adobeTitle].length;
      const field = title ? 'title' : 'caption';
      out.push({ field, length: n, max: lim.title, agency: a, message: `The ${field === 'title' ? 'title' : 'caption (used as the title)'} has ${n} characters; ${AGENCY_NAME[a]} allows ${lim.title} for a title: shorten it by ${n - lim.title}.` });
    }
    const desc = values.caption || (a === 'shutterstock' ? values.title ?? '' : '');
    if (lim.description !== undefined && [...desc].length > lim.description) {
      const n = [...desc].length;
      out.push({ field: values.caption ? 'caption' : 'title', length: n, max: lim.description, agency: a, message: `The description has ${n} characters; ${AGENCY_NAME[a]} allows ${lim.description}: shorten it by ${n - lim.description}.` });
    }
  }
  return out;
}
