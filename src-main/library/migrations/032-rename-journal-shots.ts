import type { Migration } from './migration';

export const migration: Migration = {
  version: 32,
  name: 'rename journal found by shot',
  // A rename drops a shot's journal rows once its files are settled (closeShot): without an
  // index each drop read the whole journal, so renaming 5,000 files read it 5,000 times.
  sql: /* sql */ `
      CREATE INDEX rename_journal_shot ON rename_journal (batch, shot);
    `,
};
