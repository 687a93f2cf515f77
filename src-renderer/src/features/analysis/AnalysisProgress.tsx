import { useEffect } from 'react';
import { useQueue } from '../activity/queueStore';
import { useQueueControl } from '../activity/useQueueControl';
import { IconClose } from '../../ui/icons';
import { Button, IconButton, Spinner, formatCount } from '../../ui/primitives';
import { KIND_NAMES } from './format';
import type { AnalysisStarted } from './AnalyseDialog';

/**
 * Measurement runs started from this window, in the top bar next to the keyword runs: the
 * queue batch's progress (the same batch Activity lists), Cancel while it runs.
 */
export function AnalysisProgress({ runs, onDismiss }: { runs: AnalysisStarted[]; onDismiss(batchId: string): void }) {
  const { store, snap } = useQueue();
  const control = useQueueControl();
  const missing = runs.some((r) => !snap.batches.some((b) => b.id === r.run.batchId));
  useEffect(() => {
    if (missing) void store.refresh();
  }, [missing, store]);
  if (!runs.length) return null;
  return (
    <div className="run-progress-list">
      {runs.map(({ kind, run }) => {
        const b = snap.batches.find((x) => x.id === run.batchId);
        const c = b?.counts ?? {};
        const total = b?.total ?? run.jobs;
        const finished = (c.done ?? 0) + (c.failed ?? 0) + (c.cancelled ?? 0);
        const running = !b || (finished < total && !b.cancelled);
        return (
          <div key={run.batchId} className={`run-progress run-${running ? 'running' : 'done'}`} data-testid="analysis-progress" data-kind={kind} data-status={running ? 'running' : 'done'} data-done={c.done ?? 0}>
            {running ? <Spinner label="Measuring" /> : null}
            <span className="run-progress-label">
              {KIND_NAMES[kind]} {running ? `${formatCount(finished)} / ${formatCount(total)}` : `done · ${formatCount(c.done ?? 0)}`}
              {(c.failed ?? 0) > 0 && <span className="warn-text"> · {formatCount(c.failed!)} failed</span>}
              {(c.paused ?? 0) > 0 && <span className="muted"> · paused</span>}
            </span>
            {running && (
              <span className="progress-bar">
                <span style={{ width: `${total ? (finished / total) * 100 : 0}%` }} />
              </span>
            )}
            {running ? (
              <Button small onClick={() => void control('cancel', { type: 'batch', id: run.batchId })} data-testid="analysis-progress-cancel">
                Cancel
              </Button>
            ) : (
              <IconButton label="Dismiss" onClick={() => onDismiss(run.batchId)} data-testid="analysis-progress-dismiss">
                <IconClose />
              </IconButton>
            )}
          </div>
        );
      })}
    </div>
  );
}
