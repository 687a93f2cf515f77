import { useState } from 'react';
import { ConfirmDialog } from '../../ui/Dialog';
import { Button, Spinner, formatCount } from '../../ui/primitives';
import { useRecentRuns } from '../keywording/RunProgress';
import { batchNumbers } from './labels';
import { useQueue } from './queueStore';
import { useQueueControl } from './useQueueControl';

/** Runs shown side by side in the top bar; the rest are counted (Activity lists them all). */
const SHOWN = 2;

/**
 * Every run still under way — writes to files, uploads to an agency, keywording or measuring
 * started anywhere (another window, the command line) — in the top bar beside the scan: its
 * name, how far it is, what failed, and Cancel (asked first, as it stops work already paid for
 * in part). Runs this window already shows with their own controls (`exceptRuns`, `exceptBatches`)
 * are left to those.
 */
export function QueueRuns({ exceptRuns = [], exceptBatches = [] }: { exceptRuns?: number[]; exceptBatches?: string[] }) {
  const { snap } = useQueue();
  const runs = useRecentRuns();
  const control = useQueueControl();
  const [confirm, setConfirm] = useState<{ id: string; label: string; open: number } | null>(null);
  const skip = new Set(exceptBatches);
  for (const r of runs.data ?? []) if (exceptRuns.includes(r.id) && r.batchId) skip.add(r.batchId);
  const open = snap.batches.filter((b) => !skip.has(b.id) && !b.cancelled && batchNumbers(b).open > 0);
  if (!open.length) return null;
  const more = open.length - SHOWN;
  return (
    <div className="run-progress-list queue-runs" data-testid="queue-runs">
      {open.slice(0, SHOWN).map((b) => {
        const n = batchNumbers(b);
        const total = Math.max(1, b.total);
        return (
          <div
            key={b.id}
            className="run-progress run-running"
            data-testid="queue-run"
            data-batch-id={b.id}
            data-done={n.done}
            data-failed={n.failed}
            data-total={b.total}
            title={`${b.label}: ${formatCount(n.done)} done${n.failed ? `, ${formatCount(n.failed)} failed` : ''}, ${formatCount(n.open)} to go${b.paused ? ' (paused)' : ''}`}
          >
            {b.paused ? null : <Spinner label="Running" />}
            <span className="run-progress-label" data-testid="queue-run-label">
              {b.label}
              {b.paused ? ' · paused' : ''}
            </span>
            <span className="run-progress-count" data-testid="queue-run-count">
              {formatCount(n.finished)} / {formatCount(b.total)}
              {n.failed > 0 && <span className="error-text" data-testid="queue-run-failed"> · {formatCount(n.failed)} failed</span>}
            </span>
            <span className="progress-bar progress-split" aria-hidden="true">
              <span className="seg-done" style={{ width: `${(n.done / total) * 100}%` }} />
              <span className="seg-failed" style={{ width: `${((n.failed + n.unknown) / total) * 100}%` }} />
            </span>
            <Button small onClick={() => setConfirm({ id: b.id, label: b.label, open: n.open })} data-testid="queue-run-cancel">
              Cancel
            </Button>
          </div>
        );
      })}
      {more > 0 && (
        <span className="muted small" data-testid="queue-runs-more" title="Activity lists every run">
          +{formatCount(more)} more in Activity
        </span>
      )}
      {confirm && (
        <ConfirmDialog
          title={`Cancel “${confirm.label}”?`}
          confirmLabel="Cancel the rest"
          danger
          testId="confirm-queue-run-cancel"
          onCancel={() => setConfirm(null)}
          onConfirm={() => {
            const id = confirm.id;
            setConfirm(null);
            void control('cancel', { type: 'batch', id });
          }}
        >
          <p>The {formatCount(confirm.open)} not yet done stop. What is already done is kept.</p>
        </ConfirmDialog>
      )}
    </div>
  );
}
