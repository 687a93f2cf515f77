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
  // One pill for everything measured from this window (four kinds would crowd the top bar).
  let total = 0;
  let finished = 0;
  let done = 0;
  let failed = 0;
  let running = false;
  for (const { run } of runs) {
    const b = snap.batches.find((x) => x.id === run.batchId);
    const c = b?.counts ?? {};
    const t = b?.total ?? run.jobs;
    const f = (c.done ?? 0) + (c.failed ?? 0) + (c.cancelled ?? 0);
    total += t;
    finished += f;
    done += c.done ?? 0;
    failed += c.failed ?? 0;
    if (!b || (f < t && !b.cancelled)) running = true;
  }
  const kinds = runs.map((r) => KIND_NAMES[r.kind]).join(', ');
  return (
    <div className="run-progress-list">
      <div className={`run-progress run-${running ? 'running' : 'done'}`} title={kinds} data-testid="analysis-progress" data-status={running ? 'running' : 'done'} data-done={done} data-total={total}>
        {running ? <Spinner label="Measuring" /> : null}
        <span className="run-progress-label">
          {running ? `Measuring ${formatCount(finished)} / ${formatCount(total)}` : `Measured · ${formatCount(done)}`}
          {failed > 0 && <span className="warn-text"> · {formatCount(failed)} failed</span>}
        </span>
        {running && (
          <span className="progress-bar">
            <span style={{ width: `${total ? (finished / total) * 100 : 0}%` }} />
          </span>
        )}
        {running ? (
          <Button small onClick={() => void Promise.all(runs.map((r) => control('cancel', { type: 'batch', id: r.run.batchId })))} data-testid="analysis-progress-cancel">
            Cancel
          </Button>
        ) : (
          <IconButton label="Dismiss" onClick={() => runs.forEach((r) => onDismiss(r.run.batchId))} data-testid="analysis-progress-dismiss">
            <IconClose />
          </IconButton>
        )}
      </div>
    </div>
  );
}
