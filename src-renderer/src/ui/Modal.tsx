import { useEffect, useRef, type ReactNode } from 'react';

/**
 * A modal panel with its own footer (the ConfirmDialog's bigger sibling): Escape closes,
 * focus starts on the first field (or the panel), clicks outside close it.
 */
export function Modal({ title, subtitle, children, footer, onClose, testId, wide }: {
  title: string;
  subtitle?: ReactNode;
  children: ReactNode;
  footer: ReactNode;
  onClose(): void;
  testId?: string;
  wide?: boolean;
}) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const first = el.querySelector<HTMLElement>('[data-autofocus], input, select, textarea');
    (first ?? el).focus();
  }, []);
  return (
    <div className="dialog-backdrop" onMouseDown={onClose}>
      <div
        ref={ref}
        tabIndex={-1}
        className={`dialog modal${wide ? ' modal-wide' : ''}`}
        role="dialog"
        aria-modal="true"
        aria-label={title}
        data-testid={testId}
        onMouseDown={(e) => e.stopPropagation()}
        onKeyDown={(e) => {
          e.stopPropagation();
          if (e.key === 'Escape') onClose();
        }}
      >
        <header className="modal-head">
          <h3>{title}</h3>
          {subtitle && <div className="muted small">{subtitle}</div>}
        </header>
        <div className="dialog-body modal-body">{children}</div>
        <div className="dialog-actions modal-actions">{footer}</div>
      </div>
    </div>
  );
}
