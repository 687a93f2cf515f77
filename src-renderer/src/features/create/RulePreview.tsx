import type { ImageJobPreview } from '../../../../src-preload/contract';
import { IconCheck, IconWarn } from '../../ui/icons';
import { fieldMessage } from './fields';

/** What previewImageJob says about the form: ok (with cost notes) or the rule it breaks. */
export function RulePreview({ preview, testId, showCost = true }: { preview: ImageJobPreview | null; testId: string; showCost?: boolean }) {
  if (!preview) return <div className="rule-box muted small" data-testid={testId} data-ok="">Checking the request…</div>;
  return (
    <div className={`rule-box${preview.ok ? ' rule-ok' : ' rule-bad'}`} data-testid={testId} data-ok={String(preview.ok)}>
      {preview.error ? (
        <div className="rule-line" data-testid={`${testId}-error`} data-field={preview.error.field ?? ''}>
          <IconWarn />
          <span>
            {fieldMessage(preview.error.field, preview.error.message)}
          </span>
        </div>
      ) : (
        <div className="rule-line">
          <IconCheck />
          <span>
            {preview.billedTasks} billed task with <strong>{preview.model}</strong> — the request follows the service's rules for this model.
          </span>
        </div>
      )}
      {showCost && preview.costNotes.map((n) => (
        <div key={n} className="rule-cost" data-testid={`${testId}-cost`}>{n}</div>
      ))}
      {preview.notes.map((n) => (
        <div key={n} className="rule-note muted small">{n}</div>
      ))}
    </div>
  );
}
