import type { LibraryCtx } from '../library/context';
import { normalizeKeyword } from '../library/keywords';
import { prepared } from '../library/db';
import type { Agency, KeywordCheck, KeywordLimit, KeywordSettings, LimitPreset, TextCheck } from '../../src-preload/contract';

export type { Agency, KeywordCheck, KeywordLimit, KeywordSettings, LimitPreset, TextCheck };

// Keyword hygiene for AI suggestions and stock checks: one spelling per word (NFC, the
// library's casing wins, else lower case), the user's exclude list and required keywords,
// and the agencies' count and length limits.

/** Adobe Stock: at most 49 (the figure; Adobe's CSV allows 50). Shutterstock: 7 to 50. */
export const LIMIT_PRESETS: Readonly<Record<Exclude<LimitPreset, 'custom'>, KeywordLimit>> = {
  default: { preset: 'default', min: 0, max: 50 },
  adobe: { preset: 'adobe', min: 0, max: 49 },
  shutterstock: { preset: 'shutterstock', min: 7, max: 50 },
};

export const DEFAULT_SETTINGS: KeywordSettings = { exclude: [], required: [], limit: LIMIT_PRESETS.default, casing: 'lower' };

/** Title and description limits in characters (Adobe Stock's CSV help; Shutterstock's submission help). */
export const TEXT_LIMITS: Readonly<Record<Agency, { title?: number; description?: number }>> = {
  adobe: { title: 70 },
  shutterstock: { description: 200 },
};

/** IPTC Keywords holds at most 64 bytes per keyword (longer ones stay whole in XMP only). */
const IPTC_KEYWORD_BYTES = 64;

const lower = (s: string): string => s.toLocaleLowerCase();

/** A keyword (or each level of a hierarchy 'Animals|Cat') normalised: NFC, whitespace collapsed. */
export function cleanKeyword(raw: string): string {
  return raw.includes('|') ? raw.split('|').map(normalizeKeyword).filter(Boolean).join('|') : normalizeKeyword(raw);
}

export function getKeywordSettings(ctx: LibraryCtx): KeywordSettings {
  const rows = prepared(ctx.db, 'SELECT key, value FROM keyword_settings').all() as { key: string; value: string }[];
  const out: KeywordSettings = { ...DEFAULT_SETTINGS };
  for (const r of rows) {
    if (r.key in out) (out as unknown as Record<string, unknown>)[r.key] = JSON.parse(r.value);
  }
  return out;
}

export class SettingsError extends Error {
  constructor(message: string, readonly field: string) {
    super(message);
    this.name = 'SettingsError';
  }
}

/** Change some settings; lists are cleaned (NFC, de-duplicated), a preset fills min/max. Returns the settings now in force. */
export function setKeywordSettings(ctx: LibraryCtx, patch: Partial<Omit<KeywordSettings, 'limit'>> & { limit?: Partial<KeywordLimit> }): KeywordSettings {
  const next = getKeywordSettings(ctx);
  const list = (l: string[]): string[] => {
    const seen = new Set<string>();
    return l.map(cleanKeyword).filter((k) => k && !seen.has(lower(k)) && seen.add(lower(k)));
  };
  if (patch.exclude) next.exclude = list(patch.exclude);
  if (patch.required) next.required = list(patch.required);
  if (patch.casing) {
    if (patch.casing !== 'lower' && patch.casing !== 'asSent') throw new SettingsError('Casing is “lower” or “asSent”.', 'casing');
    next.casing = patch.casing;
  }
  if (patch.limit) {
    const preset = patch.limit.preset ?? 'custom';
    if (preset !== 'custom') {
      if (!(preset in LIMIT_PRESETS)) throw new SettingsError('The keyword limit preset is default, adobe, shutterstock or custom.', 'limit.preset');
      next.limit = { ...LIMIT_PRESETS[preset] };
    } else {
      const min = patch.limit.min ?? 0;
      const max = patch.limit.max ?? next.limit.max;
      if (!Number.isInteger(min) || !Number.isInteger(max) || min < 0 || max < 1 || max > 1000 || min > max) {
        throw new SettingsError('The keyword limit is a whole number from 1 to 1000, and the minimum is at most the maximum.', 'limit');
      }
      next.limit = { preset: 'custom', min, max };
    }
  }
  const put = prepared(ctx.db, 'INSERT INTO keyword_settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
  ctx.db.transaction(() => {
    for (const [k, v] of Object.entries(next)) put.run(k, JSON.stringify(v));
  })();
  return next;
}

/**
 * The library's spelling of each word, looked up case-insensitively in JS (SQLite's NOCASE
 * folds ASCII only, and Cyrillic or accented words must match too). Build once per operation.
 */
export class Vocabulary {
  private readonly byLower = new Map<string, string>();

  constructor(ctx: LibraryCtx) {
    const names = prepared(ctx.db, 'SELECT name FROM keywords ORDER BY id').pluck().all() as string[];
    for (const n of names) if (!this.byLower.has(lower(n))) this.byLower.set(lower(n), n);
  }

  /** The spelling to store: the library's when it has the word, else per the casing setting. */
  spell(raw: string, casing: KeywordSettings['casing']): string {
    const k = cleanKeyword(raw);
    const known = this.byLower.get(lower(k));
    if (known) return known;
    const spelled = casing === 'lower' ? lower(k) : k;
    this.byLower.set(lower(k), spelled);
    return spelled;
  }
}

/** Count, limit and IPTC-size checks of one keyword list, with warnings a person understands. */
export function checkKeywords(keywords: readonly string[], limit: KeywordLimit = DEFAULT_SETTINGS.limit): KeywordCheck {
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
