import { useState, type ButtonHTMLAttributes, type ComponentProps, type ReactNode } from 'react';
import { formatCaptureDate } from './format';

type ButtonProps = ComponentProps<'button'> & { variant?: 'default' | 'primary' | 'ghost' | 'danger'; small?: boolean };

export function Button({ variant = 'default', small, className = '', type = 'button', ...rest }: ButtonProps) {
  return <button type={type} className={`btn btn-${variant}${small ? ' btn-sm' : ''} ${className}`} {...rest} />;
}

export function IconButton({ label, children, className = '', ...rest }: ButtonHTMLAttributes<HTMLButtonElement> & { label: string; children: ReactNode }) {
  return (
    <button type="button" className={`icon-btn ${className}`} aria-label={label} title={label} {...rest}>
      {children}
    </button>
  );
}

export function Spinner({ label = 'Working' }: { label?: string }) {
  return <span className="spinner" role="status" aria-label={label} />;
}

/** Whether a collapsible section was left open (kept per section across restarts). */
function readOpen(key: string, byDefault: boolean): boolean {
  try {
    const kept = window.localStorage.getItem(`tagsmith.section.${key}`);
    return kept === null ? byDefault : kept !== 'closed';
  } catch {
    return byDefault;
  }
}

function saveOpen(key: string, open: boolean): void {
  try {
    window.localStorage.setItem(`tagsmith.section.${key}`, open ? 'open' : 'closed');
  } catch {
    // Storage unavailable (private mode): the state lasts for this session only.
  }
}

/**
 * A titled panel. With `collapseKey` its title folds it away (Lightroom's panels), and it
 * opens as it was left, remembered under that key (the first time: open, or closed with
 * `defaultOpen={false}`).
 */
export function Section({ title, actions, children, testId, collapseKey, defaultOpen = true }: { title: string; actions?: ReactNode; children: ReactNode; testId?: string; collapseKey?: string; defaultOpen?: boolean }) {
  const [open, setOpen] = useState(() => (collapseKey ? readOpen(collapseKey, defaultOpen) : true));
  const toggle = () => {
    if (!collapseKey) return;
    saveOpen(collapseKey, !open);
    setOpen(!open);
  };
  return (
    <section className={`panel-section${collapseKey ? ' is-collapsible' : ''}${open ? '' : ' is-collapsed'}`} data-testid={testId} data-open={open}>
      <header className="panel-section-head">
        {collapseKey ? (
          <button type="button" className="panel-section-toggle" aria-expanded={open} onClick={toggle} data-testid={testId ? `${testId}-toggle` : undefined}>
            <span className="panel-section-caret" aria-hidden="true">{open ? '▾' : '▸'}</span>
            <h2>{title}</h2>
          </button>
        ) : (
          <h2>{title}</h2>
        )}
        {actions && <div className="panel-section-actions">{actions}</div>}
      </header>
      {open && <div className="panel-section-body">{children}</div>}
    </section>
  );
}

const numberFormat = new Intl.NumberFormat();
export const formatCount = (n: number): string => numberFormat.format(n);

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

export function formatDuration(seconds: number): string {
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const r = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${r}` : `${m}:${r}`;
}

/** '2024-05-31T14:03:22' (camera wall-clock) -> '31 May 2024, 14:03' in the system's date format (ui/format.ts), without shifting time zones. */
export function formatTaken(takenAt: string | null): string {
  return formatCaptureDate(takenAt);
}
