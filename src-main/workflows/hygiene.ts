import type { LibraryCtx } from '../library/context';
import { normalizeKeyword } from '../library/keywords';
import { prepared } from '../library/db';
import type { KeywordSettings, KeywordSettingsPatch } from '../../src-preload/contract';
import { LIMIT_PRESETS } from '../metadata/stock-limits';


// Keyword hygiene for AI suggestions: one spelling per word (NFC, the library's casing wins,
// else lower case), the user's exclude list and required keywords, and the keyword limit in
// force (the agencies' presets and checks are in metadata/stock-limits.ts).

export const DEFAULT_SETTINGS: KeywordSettings = { exclude: [], required: [], limit: LIMIT_PRESETS.default, casing: 'byLanguage', exportSynonyms: false, casingChangedFrom: null };

const lower = (s: string): string => s.toLocaleLowerCase();

/** Keyword languages (interface 4.2) whose nouns are written with a capital: German. */
export const NOUN_CAPITALISING_LANGS: readonly string[] = ['de'];

/** A word in ALL CAPS (two letters or more that have a case) becomes Capitalised; other words stay as they are. */
export function unshout(text: string): string {
  return text.replace(/\p{L}[\p{L}\p{M}'’-]*/gu, (w) => (w.length > 1 && w === w.toLocaleUpperCase() && w !== w.toLocaleLowerCase() ? w[0] + w.slice(1).toLocaleLowerCase() : w));
}

/** The spelling of a word new to the library under a casing setting, for the language it came in. */
export function caseKeyword(k: string, casing: KeywordSettings['casing'], lang = 'en'): string {
  if (casing === 'asSent') return k;
  if (casing === 'lower') return lower(k);
  return NOUN_CAPITALISING_LANGS.includes(lang) ? unshout(k) : lower(k);
}

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
  if (out.casingChangedFrom !== 'lower') out.casingChangedFrom = null;
  return out;
}

export class SettingsError extends Error {
  constructor(message: string, readonly field: string) {
    super(message);
    this.name = 'SettingsError';
  }
}

/** Change some settings; lists are cleaned (NFC, de-duplicated), a preset fills min/max. Returns the settings now in force. */
export function setKeywordSettings(ctx: LibraryCtx, patch: KeywordSettingsPatch): KeywordSettings {
  const next = getKeywordSettings(ctx);
  const list = (l: string[]): string[] => {
    const seen = new Set<string>();
    return l.map(cleanKeyword).filter((k) => k && !seen.has(lower(k)) && seen.add(lower(k)));
  };
  if (patch.exclude) next.exclude = list(patch.exclude);
  if (patch.required) next.required = list(patch.required);
  if (patch.casing) {
    if (patch.casing !== 'lower' && patch.casing !== 'asSent' && patch.casing !== 'byLanguage') throw new SettingsError('Casing is “byLanguage”, “lower” or “asSent”.', 'casing');
    next.casing = patch.casing;
  }
  if (patch.exportSynonyms !== undefined) next.exportSynonyms = patch.exportSynonyms === true;
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
  // Only what the patch names is stored: a default nobody chose stays a default (storing
  // every key froze 'lower' into libraries when the default became 'byLanguage').
  const put = prepared(ctx.db, 'INSERT INTO keyword_settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
  const touched = (['exclude', 'required', 'casing', 'exportSynonyms', 'limit'] as const).filter((k) => patch[k] !== undefined);
  if (patch.casing) next.casingChangedFrom = null;
  ctx.db.transaction(() => {
    for (const k of touched) put.run(k, JSON.stringify(next[k]));
    // Choosing a casing answers the notice of the update that changed it.
    if (patch.casing) prepared(ctx.db, "DELETE FROM keyword_settings WHERE key = 'casingChangedFrom'").run();
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

  /** The spelling to store: the library's when it has the word, else per the casing setting and the word's language. */
  spell(raw: string, casing: KeywordSettings['casing'], lang = 'en'): string {
    const k = cleanKeyword(raw);
    const known = this.byLower.get(lower(k));
    if (known) return known;
    const spelled = caseKeyword(k, casing, lang);
    this.byLower.set(lower(k), spelled);
    return spelled;
  }
}

