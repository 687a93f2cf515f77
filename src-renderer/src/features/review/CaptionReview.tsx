import { useEffect, useState } from 'react';
import type { CaptionSuggestionView, TextCheck } from '../../../../src-preload/contract';
import { useClient } from '../../api/ClientContext';
import { useDebounced } from '../../state/useDebounced';
import { Button } from '../../ui/primitives';

/** Agency limits for a text used as a title (Adobe Stock) and as a description (Shutterstock). */
function useTextChecks(text: string): TextCheck[] {
  const { api } = useClient();
  const t = useDebounced(text, 150);
  const [checks, setChecks] = useState<TextCheck[]>([]);
  useEffect(() => {
    let live = true;
    Promise.all([api.checkTextLimits({ title: t, agency: 'adobe' }), api.checkTextLimits({ caption: t, agency: 'shutterstock' })]).then(
      ([a, b]) => live && setChecks([...a, ...b]),
      () => live && setChecks([]),
    );
    return () => {
      live = false;
    };
  }, [api, t]);
  return checks;
}

/** One suggested caption: editable before it is used, then used as the caption or the title. */
export function CaptionCard({ c, onEdit, onAccept, onReject }: {
  c: CaptionSuggestionView;
  onEdit(text: string): Promise<boolean>;
  onAccept(as: 'caption' | 'title', text: string): Promise<unknown>;
  onReject(): Promise<unknown>;
}) {
  const [draft, setDraft] = useState(c.text);
  const [base, setBase] = useState(c.text);
  if (base !== c.text) {
    setBase(c.text);
    setDraft(c.text);
  }
  const checks = useTextChecks(draft);
  const dirty = draft.trim() !== c.text;
  const pending = c.state === 'pending';
  const save = async () => {
    if (dirty && draft.trim()) await onEdit(draft);
  };
  return (
    <div className={`caption-card caption-${c.state}`} data-testid="caption-suggestion" data-id={c.id} data-state={c.state}>
      <div className="caption-card-head">
        <span className="pill">{c.length}</span>
        {c.from && (
          <span className="pill" title={`Written for ${c.from.name}, the representative of this photo's similar group (one call per group)`} data-testid="caption-from">
            from {c.from.name.replace(/\.[^.]+$/, '')}
          </span>
        )}
        {c.text !== c.raw && <span className="muted small" title={`The service wrote: ${c.raw}`}>edited</span>}
        <span className="topbar-spacer" />
        <span className="muted small caption-len" data-testid="caption-length">{[...draft].length} chars</span>
      </div>
      {pending ? (
        <textarea
          rows={3}
          value={draft}
          spellCheck
          data-testid="caption-text"
          aria-label="Suggested caption"
          onChange={(e) => setDraft(e.target.value)}
          onBlur={() => void save()}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey) {
              e.preventDefault();
              void save();
            } else if (e.key === 'Escape') {
              e.stopPropagation();
              setDraft(c.text);
              e.currentTarget.blur();
            }
          }}
        />
      ) : (
        <p className="caption-text-ro">{c.text}</p>
      )}
      {checks.length > 0 && pending && (
        <ul className="kw-warnings" data-testid="caption-warnings">
          {checks.map((w) => (
            <li key={`${w.agency}${w.field}`}>{w.message}</li>
          ))}
        </ul>
      )}
      <div className="caption-actions">
        {pending ? (
          <>
            <Button small variant="primary" onClick={() => void onAccept('caption', draft)} data-testid="caption-accept">
              Use as caption
            </Button>
            <Button small onClick={() => void onAccept('title', draft)} data-testid="caption-accept-title">
              Use as title
            </Button>
            <Button small variant="ghost" onClick={() => void onReject()} data-testid="caption-reject">
              Reject
            </Button>
          </>
        ) : (
          <span className="muted small">{c.state === 'accepted' ? `Used as the ${c.acceptedAs ?? 'caption'}` : 'Rejected'}</span>
        )}
      </div>
    </div>
  );
}
