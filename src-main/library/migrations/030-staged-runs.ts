import type { Migration } from './migration';

export const migration: Migration = {
  version: 30,
  name: 'runs recorded while their batch is staged',
  // A keyword, caption or measurement run is recorded a chunk of photos at a time while its
  // batch is still staged (none of its jobs can end before the run knows them). A staged
  // batch is deleted only when it never ran (a crash, or another process's start, cut its
  // queueing short): the run recorded for it goes with it, so no run is left waiting for
  // jobs that no longer exist. A batch that ran is never staged, so no finished run is touched.
  sql: /* sql */ `
      CREATE TRIGGER job_batches_staged_runs AFTER DELETE ON job_batches WHEN OLD.staged = 1
      BEGIN
        DELETE FROM ai_runs WHERE batch_id = OLD.id;
        DELETE FROM analysis_runs WHERE batch_id = OLD.id;
      END;
    `,
};
