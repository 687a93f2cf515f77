import type { Migration } from './migration';

export const migration: Migration = {
  version: 19,
  name: 'keyword casing by language',
  // Issue 15 item 10: the default casing follows the keyword's language (German nouns keep
  // their capital). Libraries saved before it hold casing 'lower' — the old default, stored
  // with every save of the keyword settings — so they move to 'byLanguage' and remember what
  // they had ('casingChangedFrom'): Settings › Keywords says so once and offers to keep lower
  // case. No keyword is touched; the library's existing spelling keeps winning.
  sql: /* sql */ `
      INSERT OR REPLACE INTO keyword_settings (key, value)
        SELECT 'casingChangedFrom', value FROM keyword_settings WHERE key = 'casing' AND value = '"lower"';
      UPDATE keyword_settings SET value = '"byLanguage"' WHERE key = 'casing' AND value = '"lower"';
    `,
};
