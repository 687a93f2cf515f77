import type { RunView } from '../../../../src-preload/contract';
import { useQuery } from '../../api/useQuery';
import { useQueueControl } from '../activity/useQueueControl';
import { IconClose } from '../../ui/icons';
import { Button, IconButton, Spinner, formatCount } from '../../ui/primitives';

/** Recent AI runs (kept fresh by aiRun events through the query cache). */
export function useRecentRuns() {
  return useQuery<RunView[]>('runs:recent', ['runs'], (a) => a.listRuns({ limit: 20 }));
}

export function runTotal(r: RunView): number {
  return r.counts.queued + r.counts.done + r.counts.failed + r.counts.cancelled;
}

/**
 * The runs started from this library window, in its toolbar: progress as the answers land,
 * Cancel while it runs (cancels its queue batch), Review once there is something to review.
 */
export function RunProgress({ runIds, onReview, onDismiss }: { runIds: number[]; onReview(run: RunView): void; onDismiss(id: number): void }) {
  const runs = useRecentRuns();
  const control = useQueueControl();
  const shown = (runs.data ?? []).filter((r) => runIds.includes(r.id));
  if (!shown.length) return null;
  return (
    <div className="run-progress-list">
      {shown.map((r) => {
        const total = runTotal(r);
        const finished = r.counts.done + r.counts.failed + r.counts.cancelled;
        const running = r.status === 'running';
        const what = r.kind === 'keywords' ? 'Keywords' : 'Captions';
        return (
          <div key={r.id} className={`run-progress run-${r.status}`} data-testid="run-progress" data-run-id={r.id} data-status={r.status} data-kind={r.kind} data-done={r.counts.done}>
            {running ? <Spinner label="Running" /> : null}
            <span className="run-progress-label">
              {what} {running ? `${formatCount(finished)} / ${formatCount(total)}` : `done · ${formatCount(r.counts.done)}`}
              {r.counts.failed > 0 && <span className="warn-text"> · {formatCount(r.counts.failed)} failed</span>}
              {r.counts.cancelled > 0 && <span className="muted"> · {formatCount(r.counts.cancelled)} cancelled</span>}
            </span>
            {running && (
              <span className="progress-bar">
                <span style={{ width: `${total ? (finished / total) * 100 : 0}%` }} />
              </span>
            )}
            {running ? (
              <Button small onClick={() => void control('cancel', { type: 'batch', id: r.batchId })} data-testid="run-progress-cancel">
                Cancel
              </Button>
            ) : (
              <>
                {r.status !== 'reverted' && r.counts.done > 0 && (
                  <Button small variant="primary" onClick={() => onReview(r)} data-testid="run-progress-review">
                    Review
                  </Button>
                )}
                <IconButton label="Dismiss" onClick={() => onDismiss(r.id)} data-testid="run-progress-dismiss">
                  <IconClose />
                </IconButton>
              </>
            )}
          </div>
        );
      })}
    </div>
  );
}
