import { useState } from 'react';
import type { BatchView, JobView } from '../../../../src-preload/contract';
import { useClient } from '../../api/ClientContext';
import { ConfirmDialog } from '../../ui/Dialog';
import { IconChevronDown, IconChevronRight, IconPause, IconPlay, IconRetry, IconStop } from '../../ui/icons';
import { Button, IconButton, Spinner, formatCount } from '../../ui/primitives';
import { BATCH_PHASE_LABEL, JOB_PHASE_LABEL, JOB_STATE_LABEL, batchNumbers, batchPhase, requestLabel } from './labels';
import { JOBS_SHOWN, useBatchJobs, type QueueSnapshot, type QueueStore } from './queueStore';
import { useQueueControl } from './useQueueControl';
import { revealAsset } from '../create/reveal';
import { formatDateTime } from '../../ui/format';

export function Batches({ store, snap, held }: { store: QueueStore; snap: QueueSnapshot; held: boolean }) {
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const toggle = (id: string) =>
    setOpen((s) => {
      const next = new Set(s);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  return (
    <section className="card" data-testid="batches">
      <header className="card-head">
        <h2>Batches</h2>
        <span className="muted small">Newest first. Jobs survive a restart and go on where they stopped.</span>
      </header>
      {snap.batches.length === 0 ? (
        <p className="muted card-empty" data-testid="batches-empty">
          No batches yet. Keywording, captions and quality checks you start from the library show up here.
        </p>
      ) : (
        <ul className="batch-list">
          {snap.batches.map((b) => (
            <BatchRow key={b.id} batch={b} held={held} expanded={open.has(b.id)} onToggle={() => toggle(b.id)} store={store} snap={snap} />
          ))}
        </ul>
      )}
    </section>
  );
}

function BatchRow({ batch, held, expanded, onToggle, store, snap }: {
  batch: BatchView;
  held: boolean;
  expanded: boolean;
  onToggle(): void;
  store: QueueStore;
  snap: QueueSnapshot;
}) {
  const control = useQueueControl();
  const [confirmCancel, setConfirmCancel] = useState(false);
  const n = batchNumbers(batch);
  const phase = batchPhase(batch, held);
  const total = Math.max(1, batch.total);
  const target = { type: 'batch' as const, id: batch.id };
  const detailsId = `batch-jobs-${batch.id}`;
  return (
    <li className={`batch phase-${phase}`} data-testid="batch-row" data-batch-id={batch.id} data-phase={phase} data-done={n.done} data-total={batch.total}>
      <div className="batch-line">
        <button type="button" className="batch-toggle" aria-expanded={expanded} aria-controls={detailsId} onClick={onToggle} data-testid="batch-toggle">
          {expanded ? <IconChevronDown /> : <IconChevronRight />}
          <span className="batch-label">{batch.label}</span>
        </button>
        <span className={`state state-${phase}`} data-testid="batch-phase">
          {BATCH_PHASE_LABEL[phase]}
        </span>
        <div className="batch-progress" data-testid="batch-progress" role="progressbar" aria-valuemin={0} aria-valuemax={batch.total} aria-valuenow={n.finished} aria-label={`${batch.label} progress`}>
          <span className="seg seg-done" style={{ width: `${(n.done / total) * 100}%` }} />
          <span className="seg seg-failed" data-testid="batch-bar-failed" style={{ width: `${(n.failed / total) * 100}%` }} />
          <span className="seg seg-bad" style={{ width: `${(n.unknown / total) * 100}%` }} />
          <span className="seg seg-cancelled" style={{ width: `${(n.cancelled / total) * 100}%` }} />
        </div>
        <span className="batch-count" data-testid="batch-count">
          {formatCount(n.done)} / {formatCount(batch.total)}
        </span>
        <span className="batch-actions">
          {n.open === 0 || batch.cancelled ? null : batch.paused ? (
            <Button small onClick={() => void control('resume', target)} data-testid="batch-resume">
              <IconPlay /> Resume
            </Button>
          ) : (
            <Button small onClick={() => void control('pause', target)} data-testid="batch-pause">
              <IconPause /> Pause
            </Button>
          )}
          {n.open > 0 && !batch.cancelled && (
            <IconButton label="Cancel the rest of this batch" onClick={() => setConfirmCancel(true)} data-testid="batch-cancel">
              <IconStop />
            </IconButton>
          )}
        </span>
      </div>
      <div className="batch-sub muted small" data-testid="batch-sub">
        <span>{formatTime(batch.createdAt)}</span>
        {batch.cached > 0 && <span data-testid="batch-cached">{formatCount(batch.cached)} from cache (not billed)</span>}
        {n.running > 0 && <span>{formatCount(n.running)} running</span>}
        {n.open - n.running > 0 && <span>{formatCount(n.open - n.running)} waiting</span>}
        {n.failed > 0 && <span className="error-text" data-testid="batch-failed">{formatCount(n.failed)} failed</span>}
        {n.unknown > 0 && <span className="warn-text" data-testid="batch-unknown">{formatCount(n.unknown)} outcome unknown</span>}
        {n.cancelled > 0 && <span>{formatCount(n.cancelled)} cancelled</span>}
      </div>
      {expanded && <BatchJobs id={detailsId} batch={batch} store={store} snap={snap} />}
      {confirmCancel && (
        <ConfirmDialog
          title="Cancel this batch?"
          confirmLabel="Cancel batch"
          danger
          testId="confirm-batch-cancel"
          onCancel={() => setConfirmCancel(false)}
          onConfirm={() => {
            setConfirmCancel(false);
            void control('cancel', target);
          }}
        >
          <p>
            The {formatCount(n.open)} jobs of <strong>{batch.label}</strong> that have not finished stop. The {formatCount(n.done)} results already received are kept.
          </p>
        </ConfirmDialog>
      )}
    </li>
  );
}

function BatchJobs({ id, batch, store, snap }: { id: string; batch: BatchView; store: QueueStore; snap: QueueSnapshot }) {
  const { mediaUrl } = useClient();
  const jobs = useBatchJobs(store, batch.id, snap);
  const control = useQueueControl();
  const [retry, setRetry] = useState<JobView | null>(null);
  if (!jobs) {
    return (
      <div className="batch-jobs" id={id}>
        <Spinner label="Loading jobs" />
      </div>
    );
  }
  return (
    <div className="batch-jobs" id={id} data-testid="batch-jobs">
      <table className="table table-compact">
        <thead>
          <tr>
            <th className="num">Job</th>
            <th>Photo</th>
            <th>Request</th>
            <th>State</th>
            <th className="num">Tries</th>
            <th>Message</th>
            <th className="actions" aria-label="Actions" />
          </tr>
        </thead>
        <tbody>
          {jobs.map((j) => (
            <tr key={j.id} data-testid="job-row" data-job-id={j.id} data-state={j.state}>
              <td className="num muted">{j.id}</td>
              <td className="job-asset" data-testid="job-asset">
                {j.asset ? (
                  <span className="job-asset-inner" title={j.asset.name}>
                    {j.asset.thumb ? <img src={mediaUrl(j.asset.thumb)} alt="" className="job-thumb" data-testid="job-thumb" /> : <span className="job-thumb" />}
                    <span className="job-asset-name" data-testid="job-asset-name">{j.asset.name}</span>
                  </span>
                ) : (
                  <span className="muted" data-testid="job-no-asset" title="This job works on no photo of the library (a created picture or sound, or library-wide work)">
                    No library photo
                  </span>
                )}
              </td>
              <td>
                {requestLabel(j)}
                {j.fromCache && <span className="pill pill-cache">cached</span>}
              </td>
              <td>
                <span className={`state state-${j.state}`}>{JOB_STATE_LABEL[j.state]}</span>
              </td>
              <JobTries job={j} />
              <td className="job-message" data-testid="job-message">
                {j.error ? (
                  <span className={j.state === 'failed' ? 'error-text' : j.state === 'unknown' ? 'warn-text' : 'muted'}>{j.error.message}</span>
                ) : j.state === 'running' && j.phase && j.phase !== 'sent' ? (
                  <span className="muted" data-testid="job-phase">{JOB_PHASE_LABEL[j.phase] ?? j.phase}</span>
                ) : null}
              </td>
              <td className="actions">
                {j.asset && (
                  <Button small onClick={() => revealAsset(j.asset!.id)} data-testid="job-show" title={`Show ${j.asset.name} in the library`}>
                    Show in library
                  </Button>
                )}
                {(j.state === 'failed' || j.state === 'unknown') && (
                  <Button small onClick={() => setRetry(j)} data-testid="job-retry" title="Send again">
                    <IconRetry /> Retry
                  </Button>
                )}
                {(j.state === 'queued' || j.state === 'running' || j.state === 'paused') && (
                  <IconButton label="Cancel this job" onClick={() => void control('cancel', { type: 'job', id: j.id })} data-testid="job-cancel">
                    <IconStop />
                  </IconButton>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {batch.total > JOBS_SHOWN && <p className="muted small">Showing the first {formatCount(JOBS_SHOWN)} of {formatCount(batch.total)} jobs.</p>}
      {retry && (
        <ConfirmDialog
          title="Send this request again?"
          confirmLabel="Send again"
          testId="confirm-retry"
          onCancel={() => setRetry(null)}
          onConfirm={() => {
            const job = retry;
            setRetry(null);
            void control('retry', { type: 'job', id: job.id });
          }}
        >
          {retry.state === 'unknown' ? (
            <p>
              Tagsmith stopped while this request was on its way, so the service may already have carried it out <strong>and billed it</strong>. Sending it again may be billed
              again.
            </p>
          ) : (
            <p>
              It failed with: “{retry.error?.message ?? 'an unknown problem'}”. Sending it again is a new request and <strong>may be billed again</strong>.
            </p>
          )}
        </ConfirmDialog>
      )}
    </div>
  );
}

/**
 * How many times the request went to the service: `attempts` counts the failed tries, so a
 * finished job (or one whose answer never came) had one more; a cached result, or a job that
 * failed before it could be sent, had none.
 */
function JobTries({ job: j }: { job: JobView }) {
  const tries = j.fromCache ? 0 : j.state === 'done' || j.state === 'unknown' ? j.attempts + 1 : j.attempts;
  const shown = (j.state === 'queued' || j.state === 'running' || j.state === 'paused') && tries === 0 ? '' : String(tries);
  return (
    <td className="num" data-testid="job-tries" title={shown === '0' ? 'Not sent to the service' : shown ? `Sent ${tries} time${tries === 1 ? '' : 's'}` : undefined}>
      {shown}
    </td>
  );
}

const formatTime = (ms: number): string => `Started ${formatDateTime(ms)}`;
