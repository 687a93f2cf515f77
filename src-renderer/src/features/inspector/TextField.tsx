import { useState } from 'react';

type Status = 'idle' | 'dirty' | 'saving' | 'saved' | 'error';

/**
 * A caption/title field that saves on blur or Enter (Shift+Enter for a new line) and says
 * "Saved" only once the Api has committed the change.
 */
export function TextField({ label, value, placeholder, multiline, onSave, testId, readOnly }: {
  label: string;
  /** While the panel is changing to another photo: nothing typed can land on the one leaving. */
  readOnly?: boolean;
  value: string;
  placeholder?: string;
  multiline?: boolean;
  onSave(value: string | null): Promise<boolean>;
  testId: string;
}) {
  const [draft, setDraft] = useState(value);
  const [status, setStatus] = useState<Status>('idle');
  const [base, setBase] = useState(value);
  if (base !== value) {
    // The stored value changed (our save landing, another edit, an undo): show it unless
    // the user is in the middle of typing.
    setBase(value);
    if (status !== 'dirty' && status !== 'saving') setDraft(value);
  }

  const save = async () => {
    if (status !== 'dirty') return;
    setStatus('saving');
    const next = draft.trim() ? draft : null;
    const ok = await onSave(next);
    setStatus(ok ? 'saved' : 'error');
  };

  const common = {
    value: draft,
    placeholder,
    'data-testid': testId,
    'aria-label': label,
    readOnly,
    onChange: (e: { target: { value: string } }) => {
      setDraft(e.target.value);
      setStatus('dirty');
    },
    onBlur: () => void save(),
    onKeyDown: (e: React.KeyboardEvent) => {
      if (e.key === 'Enter' && !e.shiftKey) {
        e.preventDefault();
        void save();
      } else if (e.key === 'Escape') {
        setDraft(base);
        setStatus('idle');
        (e.target as HTMLElement).blur();
      }
    },
  };

  return (
    <div className="text-field">
      <div className="field-head">
        <label>{label}</label>
        <span className={`save-status status-${status}`} data-testid={`${testId}-status`}>
          {status === 'saving' ? 'Saving…' : status === 'saved' ? 'Saved' : status === 'dirty' ? 'Edited' : status === 'error' ? 'Not saved' : ''}
        </span>
      </div>
      {multiline ? <textarea rows={3} {...common} /> : <input type="text" {...common} />}
    </div>
  );
}
