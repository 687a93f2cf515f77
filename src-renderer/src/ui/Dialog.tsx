import { useEffect, useRef, type ReactNode } from 'react';
import { Button } from './primitives';

/** A modal confirmation. Enter confirms, Escape cancels. */
export function ConfirmDialog({ title, children, confirmLabel, danger, onConfirm, onCancel, testId }: {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  danger?: boolean;
  onConfirm(): void;
  onCancel(): void;
  testId?: string;
}) {
  const confirmRef = useRef<HTMLButtonElement>(null);
  useEffect(() => confirmRef.current?.focus(), []);
  return (
    <div className="dialog-backdrop" onMouseDown={onCancel}>
      <div
        className="dialog"
        role="dialog"
        aria-modal="true"
        aria-label={title}
        data-testid={testId}
        onMouseDown={(e) => e.stopPropagation()}
        onKeyDown={(e) => {
          e.stopPropagation();
          if (e.key === 'Escape') onCancel();
        }}
      >
        <h3>{title}</h3>
        <div className="dialog-body">{children}</div>
        <div className="dialog-actions">
          <Button onClick={onCancel} data-testid="dialog-cancel">Cancel</Button>
          <Button ref={confirmRef} variant={danger ? 'danger' : 'primary'} onClick={onConfirm} data-testid="dialog-confirm">
            {confirmLabel}
          </Button>
        </div>
      </div>
    </div>
  );
}
