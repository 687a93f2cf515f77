import type { Migration } from './migration';

export const migration: Migration = {
  version: 2,
  name: 'service jobs',
  sql: /* sql */ `
      -- A group of jobs the user started together (e.g. "keyword 300 photos").
      CREATE TABLE job_batches (
        id TEXT PRIMARY KEY,
        label TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        paused INTEGER NOT NULL DEFAULT 0,
        cancelled INTEGER NOT NULL DEFAULT 0
      ) STRICT;

      -- The durable queue of calls to the cloud service. 'unknown': a request whose answer was
      -- lost (it may have been billed); it is never re-sent without the user's say.
      CREATE TABLE jobs (
        id INTEGER PRIMARY KEY,
        batch_id TEXT REFERENCES job_batches(id) ON DELETE CASCADE,
        kind TEXT NOT NULL,
        endpoint TEXT NOT NULL,
        lane TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed', 'cancelled', 'unknown', 'paused')),
        -- JSON input of the job's handler (paths, hashes, parameters; never secrets).
        payload TEXT NOT NULL,
        cache_key TEXT,
        billing_key TEXT,
        -- Async tasks: the service's task id once the create was answered.
        task_id TEXT,
        -- Where a running job got to: null (preparing), 'sent' (a billed request left), 'poll', 'download'.
        phase TEXT,
        result TEXT,
        from_cache INTEGER NOT NULL DEFAULT 0,
        attempts INTEGER NOT NULL DEFAULT 0,
        retry_after INTEGER,
        error_kind TEXT,
        error_message TEXT,
        created_at INTEGER NOT NULL,
        started_at INTEGER,
        finished_at INTEGER,
        updated_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX jobs_runnable ON jobs (state, lane, id);
      CREATE INDEX jobs_batch ON jobs (batch_id, state);
      CREATE INDEX jobs_cache_key ON jobs (cache_key);

      -- Parsed answers by content hash + endpoint + parameters: the same picture is paid for once.
      CREATE TABLE result_cache (
        cache_key TEXT PRIMARY KEY,
        endpoint TEXT NOT NULL,
        content_hash TEXT NOT NULL,
        params TEXT NOT NULL,
        result TEXT NOT NULL,
        created_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX result_cache_hash ON result_cache (content_hash);

      -- Billed calls per model key and local day ('YYYY-MM-DD'); months are sums of days.
      CREATE TABLE service_usage (
        billing_key TEXT NOT NULL,
        day TEXT NOT NULL,
        calls INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (billing_key, day)
      ) STRICT, WITHOUT ROWID;

      -- Queue settings: caps, prices, paused lanes (JSON values; never credentials).
      CREATE TABLE service_settings (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
      ) STRICT;
    `,
};
