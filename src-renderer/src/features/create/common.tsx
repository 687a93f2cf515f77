import type { ReactNode } from 'react';
import type { CreativeKind } from '../../../../src-preload/contract';
import { Spinner } from '../../ui/primitives';
import { fieldMessage } from './fields';

export { fieldLabel, fieldMessage } from './fields';
import { TaskCard } from './TaskCard';
import { useCreativeTasks } from './taskStore';

/** The panel frame: the form on the left, this kind's recent tasks on the right. */
export function PanelLayout({ children, kinds, testId, emptyText }: { children: ReactNode; kinds: CreativeKind[]; testId: string; emptyText: string }) {
  const { tasks, loaded } = useCreativeTasks();
  const mine = tasks.filter((t) => kinds.includes(t.kind)).slice(0, 12);
  return (
    <div className="cr-panel" data-testid={testId}>
      <div className="cr-form">{children}</div>
      <aside className="cr-recent" data-testid={`${testId}-recent`}>
        <h2 className="cr-recent-head">Recent</h2>
        {!loaded ? <Spinner /> : mine.length === 0 ? <p className="muted small">{emptyText}</p> : mine.map((t) => <TaskCard key={t.id} task={t} />)}
      </aside>
    </div>
  );
}

export function Card({ title, sub, actions, children, testId }: { title: string; sub?: ReactNode; actions?: ReactNode; children: ReactNode; testId?: string }) {
  return (
    <section className="card cr-card" data-testid={testId}>
      <header className="card-head">
        <h2>{title}</h2>
        {sub && <span className="muted small">{sub}</span>}
        {actions && <div className="card-actions">{actions}</div>}
      </header>
      {children}
    </section>
  );
}

/** A labelled field in the create forms; `error` shows under it and marks it invalid. */
export function Field({ label, children, error, hint, wide, testId }: { label: string; children: ReactNode; error?: string | null; hint?: ReactNode; wide?: boolean; testId?: string }) {
  return (
    <label className={`cr-field${wide ? ' cr-field-wide' : ''}${error ? ' cr-field-bad' : ''}`} data-testid={testId}>
      <span className="cr-label">{label}</span>
      {children}
      {hint && !error && <span className="cr-hint">{hint}</span>}
      {error && <span className="field-error">{error}</span>}
    </label>
  );
}

/** A row of options as a segmented control (few values: resolution, quality). */
export function Segmented<T extends string>({ value, options, labels, onChange, testId, label, disabledReason }: {
  value: T | null;
  options: readonly T[];
  /** The words shown for an option, where its value is not what a person calls it. */
  labels?: Partial<Record<T, string>>;
  onChange(v: T): void;
  testId: string;
  label: string;
  disabledReason?: (v: T) => string | null;
}) {
  return (
    <div className="segmented cr-seg" role="radiogroup" aria-label={label} data-testid={testId} data-value={value ?? ''}>
      {options.map((o) => {
        const why = disabledReason?.(o) ?? null;
        return (
          <button key={o} type="button" role="radio" aria-checked={o === value} className={o === value ? 'on' : ''} disabled={why !== null} title={why ?? undefined} onClick={() => onChange(o)} data-testid={`${testId}-${o}`}>
            {labels?.[o] ?? o}
          </button>
        );
      })}
    </div>
  );
}

/** The service's error for a field, from an Api rejection (errors carry `field`), worded with the form's names. */
export function errorField(err: unknown): { field: string | null; message: string } {
  const e = err as { field?: unknown; message?: unknown };
  const field = typeof e?.field === 'string' ? e.field : null;
  const message = typeof e?.message === 'string' && e.message ? e.message : 'Something went wrong. Try again.';
  return { field, message: fieldMessage(field, message) };
}
