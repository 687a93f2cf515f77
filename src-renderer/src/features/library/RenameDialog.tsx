import { useEffect, useRef, useState } from 'react';
import type { RenamePreview, RenameResult } from '../../../../src-preload/contract';
import { useClient } from '../../api/ClientContext';
import { useDebounced } from '../../state/useDebounced';
import { usePersistentState } from '../../state/viewState';
import { IconWarn } from '../../ui/icons';
import { Modal } from '../../ui/Modal';
import { Button, Spinner } from '../../ui/primitives';
import { errorText } from '../../ui/Toasts';

// Rename… (F2, as in Lightroom): a template with token buttons, the start number, and a live
// preview of every new name. Collisions and other problems are shown on their files and keep
// the Rename button disabled; nothing moves until every name is possible. Ctrl+Z undoes it.

const TOKENS: { label: string; insert: string; title: string }[] = [
  { label: 'Name', insert: '{name}', title: 'The original file name without its extension' },
  { label: 'Date', insert: '{date:YYYYMMDD-HHmmss}', title: 'The capture date/time: YYYY YY MM DD HH mm ss' },
  { label: 'Sequence', insert: '{seq:4}', title: 'A number zero-padded to 4 digits, from the start number' },
  { label: 'Camera', insert: '{camera}', title: 'The camera model' },
  { label: 'Title', insert: '{title}', title: 'The title' },
];

const fileName = (p: string): string => p.split(/[\\/]/).pop() ?? p;
const isString = (v: unknown): v is string => typeof v === 'string' && v.length <= 1000;

export function RenameDialog({ ids, onClose, onRenamed }: { ids: number[]; onClose(): void; onRenamed(result: RenameResult): void }) {
  const { api } = useClient();
  const [template, setTemplate] = usePersistentState('rename.template', '{name}', isString);
  const [startText, setStartText] = useState('1');
  const [preview, setPreview] = useState<RenamePreview | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [renaming, setRenaming] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null);
  const wanted = useDebounced(`${template}\u0000${startText}`, 120);

  const start = /^\d{1,12}$/.test(startText.trim()) ? Number(startText.trim()) : null;

  useEffect(() => {
    const [t, s] = wanted.split('\u0000');
    const n = /^\d{1,12}$/.test(s.trim()) ? Number(s.trim()) : null;
    if (n === null) return;
    let live = true;
    api.previewRename({ assetIds: ids, template: t, start: n }).then(
      (p) => {
        if (!live) return;
        setPreview(p);
        setProblem(null);
      },
      (err: unknown) => live && setProblem(errorText(err)),
    );
    return () => {
      live = false;
    };
  }, [api, ids, wanted]);

  const insert = (token: string) => {
    const el = inputRef.current;
    const at = el?.selectionStart ?? template.length;
    const end = el?.selectionEnd ?? at;
    setTemplate(template.slice(0, at) + token + template.slice(end));
    requestAnimationFrame(() => {
      el?.focus();
      el?.setSelectionRange(at + token.length, at + token.length);
    });
  };

  const current = preview !== null && wanted === `${template}\u0000${startText}`;
  const blocked = !current || !!preview.templateError || preview.problems > 0 || preview.changes === 0 || start === null;

  const rename = async () => {
    if (blocked || start === null) return;
    setRenaming(true);
    try {
      const result = await api.renameAssets({ assetIds: ids, template, start });
      onRenamed(result);
    } catch (err) {
      setProblem(errorText(err));
      setRenaming(false);
    }
  };

  const items = preview?.items ?? [];
  const status = !preview
    ? null
    : preview.templateError
      ? preview.templateError
      : preview.problems > 0
        ? `${preview.problems} of ${items.length} file${items.length === 1 ? '' : 's'} cannot take the new name. Change the template; nothing is renamed while any can't.`
        : preview.changes === 0
          ? 'Every file already has this name.'
          : `${preview.changes} of ${items.length} file${items.length === 1 ? '' : 's'} will be renamed.`;

  return (
    <Modal
      title="Rename"
      subtitle={`${ids.length} selected. The extension is kept; sidecars and a RAW's JPEG go along. Ctrl+Z undoes it.`}
      onClose={onClose}
      testId="rename-dialog"
      wide
      footer={
        <>
          <Button onClick={onClose} data-testid="rename-cancel">Cancel</Button>
          <Button variant="primary" onClick={() => void rename()} disabled={blocked || renaming} data-testid="rename-confirm">
            {renaming ? 'Renaming…' : preview && current && preview.changes > 0 ? `Rename ${preview.changes}` : 'Rename'}
          </Button>
        </>
      }
    >
      <div className="rename-form">
        <label className="rename-field">
          <span>Template</span>
          <input
            ref={inputRef}
            data-autofocus
            value={template}
            spellCheck={false}
            onChange={(e) => setTemplate(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') void rename();
            }}
            data-testid="rename-template"
            aria-invalid={!!preview?.templateError}
          />
        </label>
        <label className="rename-field rename-start">
          <span>Start at</span>
          <input value={startText} inputMode="numeric" onChange={(e) => setStartText(e.target.value)} data-testid="rename-start" aria-invalid={start === null} />
        </label>
      </div>
      <div className="rename-tokens" role="group" aria-label="Tokens">
        {TOKENS.map((t) => (
          <Button small key={t.insert} title={t.title} onClick={() => insert(t.insert)} data-testid={`rename-token-${t.label.toLowerCase()}`}>
            {t.label}
          </Button>
        ))}
      </div>
      <p className={`rename-status${preview && (preview.templateError || preview.problems) ? ' rename-bad' : ''}`} data-testid="rename-status" role="status">
        {start === null ? 'The start number is a whole number, 0 or more.' : status ?? <Spinner label="Working out the new names" />}
      </p>
      {problem && (
        <p className="rename-status rename-bad" data-testid="rename-error">
          <IconWarn /> {problem}
        </p>
      )}
      <ul className="rename-preview" data-testid="rename-preview">
        {items.map((i) => (
          <li key={i.assetId} className={i.problem ? 'rename-bad' : i.changed ? '' : 'muted'} data-testid="rename-row" data-problem={i.problem ? 'true' : undefined}>
            <span className="rename-from" title={i.from}>{fileName(i.from)}</span>
            <span className="rename-arrow" aria-hidden>→</span>
            <span className="rename-to" title={i.to} data-testid="rename-to">{fileName(i.to)}</span>
            {i.sidecars.length > 0 && <span className="muted small"> + {i.sidecars.map((s) => fileName(s.to)).join(', ')}</span>}
            {i.problem && <span className="rename-problem" data-testid="rename-problem">{i.problem}</span>}
            {i.note && !i.problem && <span className="muted small rename-note">{i.note}</span>}
          </li>
        ))}
      </ul>
    </Modal>
  );
}
