import { useState } from 'react';
import type { AssetDetail, CreativeTaskView } from '../../../../src-preload/contract';
import { useClient } from '../../api/ClientContext';
import { useQuery } from '../../api/useQuery';
import { useNow } from '../../state/useNow';
import { ConfirmDialog } from '../../ui/Dialog';
import { Button, Spinner } from '../../ui/primitives';
import { useToast } from '../../ui/Toasts';
import { KIND_LABEL, STATUS_LABEL, elapsedMs, isActive, queueText, seconds, stateClass, taskSummary } from './format';
import { revealAsset } from './reveal';
import { useCreativeTaskStore } from './taskStore';

/** Status, queue position and elapsed time of one task, as one line (the service's ETA has no stated unit, so it is not shown). */
export function TaskProgress({ task }: { task: CreativeTaskView }) {
  const active = isActive(task);
  const now = useNow(1000, active);
  const ms = elapsedMs(task, now);
  const queue = queueText(task);
  return (
    <div className="ct-progress" data-testid="task-progress">
      <span className={stateClass(task.status)} data-testid="task-status" data-status={task.status}>
        {STATUS_LABEL[task.status]}
      </span>
      {queue && (
        <span className="ct-queue" data-testid="task-queue" data-queue={task.queue ?? ''}>
          {queue}
        </span>
      )}
      {ms !== null && (
        <span className="muted ct-elapsed" data-testid="task-elapsed" title="Elapsed since the task was sent">
          {seconds(ms / 1000)}
        </span>
      )}
    </div>
  );
}

/** Cancel, retry (billed again, confirmed), fetch again, open the result. */
export function TaskActions({ task, compact }: { task: CreativeTaskView; compact?: boolean }) {
  const { api } = useClient();
  const store = useCreativeTaskStore();
  const toast = useToast();
  const [confirm, setConfirm] = useState(false);
  const [busy, setBusy] = useState(false);
  const run = async (fn: () => Promise<CreativeTaskView>) => {
    setBusy(true);
    try {
      store.put(await fn());
    } catch (err) {
      toast.error(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="ct-actions">
      {task.resultAssetId !== null && (
        <Button small onClick={() => revealAsset(task.resultAssetId!)} data-testid="task-open" data-asset-id={task.resultAssetId}>
          {compact ? 'Open' : 'Show in library'}
        </Button>
      )}
      {task.canRefetch && task.status !== 'done' && (
        <Button small disabled={busy} onClick={() => void run(() => api.refetchResult({ id: task.id }))} title="Download the finished result again — no new task, no charge" data-testid="task-refetch">
          Fetch again
        </Button>
      )}
      {task.canRetry && (
        <Button small disabled={busy} onClick={() => setConfirm(true)} data-testid="task-retry">
          Retry…
        </Button>
      )}
      {task.attention?.kind === 'slow' && (
        <Button small disabled={busy} onClick={() => void run(() => api.keepWaitingCreativeTask({ id: task.id }))} data-testid="task-keep-waiting">
          Keep waiting
        </Button>
      )}
      {task.canCancel && (
        <Button small variant="ghost" disabled={busy} onClick={() => void run(() => api.cancelCreativeTask({ id: task.id }))} data-testid="task-cancel">
          Cancel
        </Button>
      )}
      {confirm && (
        <ConfirmDialog
          title="Run this task again?"
          confirmLabel="Run again — billed"
          testId="retry-confirm"
          onCancel={() => setConfirm(false)}
          onConfirm={() => {
            setConfirm(false);
            void run(() => api.retryCreativeTask({ id: task.id, confirmBilledAgain: true }));
          }}
        >
          <p>
            The service answered <strong>{task.status === 'unknown' ? 'nothing we could read' : 'with a failure'}</strong> for this {KIND_LABEL[task.kind].toLowerCase()}.
            Running it again sends a <strong>new task that is billed again</strong>, with the same inputs.
          </p>
          {task.error && <p className="muted small">Last error: {task.error}</p>}
        </ConfirmDialog>
      )}
    </div>
  );
}

/** The result, playable or visible in place: audio, video or the picture. */
export function TaskResult({ task }: { task: CreativeTaskView }) {
  const { mediaUrl } = useClient();
  const id = task.resultAssetId;
  const asset = useQuery<AssetDetail>(id === null ? null : `asset:${id}`, ['assets', 'keywords'], (a) => a.getAsset({ id: id! }));
  const a = asset.data;
  if (id === null) return null;
  if (!a) return <div className="ct-result ct-result-loading"><Spinner label="Loading the result" /></div>;
  if (a.kind === 'audio' && a.original) return <audio className="ct-audio" controls preload="metadata" src={mediaUrl(a.original)} data-testid="task-audio" />;
  if (a.kind === 'video' && a.original) return <video className="ct-video" controls preload="metadata" src={mediaUrl(a.original)} data-testid="task-video" />;
  const src = a.preview ?? a.thumb;
  return src ? (
    <button type="button" className="ct-image" onClick={() => revealAsset(a.id)} title="Show in library" data-testid="task-image">
      <img src={mediaUrl(src)} alt={a.name} />
    </button>
  ) : null;
}

/** One task as a card: what it was, where it stands, the result, the actions. */
export function TaskCard({ task }: { task: CreativeTaskView }) {
  return (
    <article className={`ct-card ct-card-${task.status}`} data-testid="task-card" data-task-id={task.id} data-kind={task.kind} data-status={task.status}>
      <header className="ct-card-head">
        <span className="ct-kind">{KIND_LABEL[task.kind]}</span>
        <span className="ct-id muted small">#{task.id}{task.retryOf !== null ? ` · retry of #${task.retryOf}` : ''}{task.parts.length > 1 ? ` · ${task.parts.length} billed parts` : ''}</span>
      </header>
      <div className="ct-summary" title={taskSummary(task)}>{taskSummary(task)}</div>
      <TaskProgress task={task} />
      {task.attention && (
        <div className={`ct-attention ct-attention-${task.attention.kind} small`} role="status" data-testid="task-attention" data-kind={task.attention.kind}>
          {task.attention.message}
        </div>
      )}
      {task.error && task.attention?.kind !== 'cancel_unconfirmed' && <div className="ct-error error-text small" data-testid="task-error">{task.error}</div>}
      {task.status === 'done' && <TaskResult task={task} />}
      <TaskActions task={task} />
    </article>
  );
}
