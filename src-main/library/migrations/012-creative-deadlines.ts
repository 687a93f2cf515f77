import type { Migration } from './migration';

export const migration: Migration = {
  version: 12,
  name: 'creative deadlines',
  // Issue 15: each creative task gets a time budget from the interface's typical times (TTS
  // about 1 minute per minute of audio, lipsync about 10 minutes per minute of video, a fixed
  // budget where the interface states none). Past deadline_at the task shows "taking unusually
  // long" with cancel / keep waiting; keep waiting moves deadline_at on by another budget.
  sql: /* sql */ `
      ALTER TABLE creative_tasks ADD COLUMN budget_ms INTEGER;
      ALTER TABLE creative_tasks ADD COLUMN deadline_at INTEGER;
    `,
};
