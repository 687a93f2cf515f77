import { useState } from 'react';
import type { CreativeTaskView } from '../../../../src-preload/contract';
import { useNow } from '../../state/useNow';
import { Spinner } from '../../ui/primitives';
import { KIND_LABEL, STATUS_LABEL, clip, elapsedMs, isActive, queueText, seconds, stateClass, taskSummary, when } from './format';
import { TaskActions } from './TaskCard';
import { useCreativeTasks } from './taskStore';

type Filter = 'all' | 'active' | 'problems';
const PROBLEM = new Set(['failed', 'unknown', 'download_failed']);

export function TasksPanel() {
  const { tasks, loaded, error } = useCreativeTasks();
  const [filter, setFilter] = useState<Filter>('all');
  const anyActive = tasks.some(isActive);
  const now = useNow(1000, anyActive);
  const shown = tasks.filter((t) => (filter === 'active' ? isActive(t) : filter === 'problems' ? PROBLEM.has(t.status) : true));
  const count = (f: Filter) => tasks.filter((t) => (f === 'active' ? isActive(t) : f === 'problems' ? PROBLEM.has(t.status) : true)).length;
  return (
    <div className="page" data-testid="panel-tasks">
      <div className="page-body">
        <section className="card">
          <header className="card-head">
            <h2>Creative tasks</h2>
            <span className="muted small">Speech, lipsync, generated and edited images, face swaps — every result lands in the library.</span>
            <div className="card-actions">
              <div className="segmented" role="group" aria-label="Show">
                {(['all', 'active', 'problems'] as Filter[]).map((f) => (
                  <button key={f} type="button" className={filter === f ? 'on' : ''} onClick={() => setFilter(f)} data-testid={`tasks-filter-${f}`}>
                    {f === 'all' ? 'All' : f === 'active' ? 'Running' : 'Needs attention'} <span className="muted">{count(f)}</span>
                  </button>
                ))}
              </div>
            </div>
          </header>
          <p className="retention-note" data-testid="retention-note">
            Tasks carry on when Tagsmith is closed, and are followed again when it opens. The service deletes the files sent for a task within 24 hours. Tagsmith never sends a task the service accepted a second time by itself: Cancel stops it at the service, and Fetch again picks up its result (no new charge).
          </p>
          {error && <p className="error-text small">{error.message}</p>}
          {!loaded ? (
            <Spinner />
          ) : shown.length === 0 ? (
            <p className="card-empty muted">{tasks.length ? 'No task in this list.' : 'Nothing made yet. Speech, lipsync and images you create are listed here.'}</p>
          ) : (
            <table className="table tasks-table" data-testid="tasks-table">
              <thead>
                <tr>
                  <th>Task</th>
                  <th>What</th>
                  <th>Status</th>
                  <th>Queue</th>
                  <th className="num">Elapsed</th>
                  <th>Created</th>
                  <th className="actions" />
                </tr>
              </thead>
              <tbody>
                {shown.map((t) => (
                  <Row key={t.id} t={t} now={now} />
                ))}
              </tbody>
            </table>
          )}
        </section>
      </div>
    </div>
  );
}

function Row({ t, now }: { t: CreativeTaskView; now: number }) {
  const ms = elapsedMs(t, now);
  return (
    <tr data-testid="task-row" data-task-id={t.id} data-kind={t.kind} data-status={t.status}>
      <td className="task-cell-kind">
        <span className="task-kind">{KIND_LABEL[t.kind]}</span>
        <span className="muted small"> #{t.id}{t.retryOf !== null ? ` ← #${t.retryOf}` : ''}</span>
      </td>
      <td className="task-cell-what" title={taskSummary(t)}>
        {clip(taskSummary(t), 64)}
        {t.error && <div className="error-text small task-row-error" title={t.error}>{clip(t.error, 90)}</div>}
      </td>
      <td>
        <span className={stateClass(t.status)} data-testid="task-status" data-status={t.status}>{STATUS_LABEL[t.status]}</span>
      </td>
      <td className="muted small" data-testid="task-queue">{queueText(t) ?? '—'}</td>
      <td className="num">{ms !== null ? seconds(ms / 1000) : '—'}</td>
      <td className="muted small">{when(t.createdAt)}</td>
      <td className="actions">
        <TaskActions task={t} compact />
      </td>
    </tr>
  );
}
