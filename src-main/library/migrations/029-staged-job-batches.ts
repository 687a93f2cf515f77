import type { Migration } from './migration';

export const migration: Migration = {
  version: 29,
  name: 'staged job batches',
  // A large batch is queued a chunk of jobs at a time (JobQueue.enqueueBatchInSteps), so the
  // main thread never stops for the whole of it. Until its last chunk is in, the batch is
  // staged: none of its jobs runs and it is not listed; one transaction then un-stages it. A
  // batch still staged when the queue starts was cut short by a crash: it is deleted with its
  // jobs (none of which ran), so nothing of a half batch is ever sent, billed or written.
  sql: /* sql */ `
      ALTER TABLE job_batches ADD COLUMN staged INTEGER NOT NULL DEFAULT 0;
    `,
};
