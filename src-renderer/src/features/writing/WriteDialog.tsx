import { Fragment, useEffect, useState } from 'react';
import type { WritePreview, WriteSummary } from '../../../../src-preload/contract';
import { useClient } from '../../api/ClientContext';
import { IconCheck, IconWarn } from '../../ui/icons';
import { Modal } from '../../ui/Modal';
import { Button, Spinner, formatCount } from '../../ui/primitives';
import { errorText } from '../../ui/Toasts';

const FIELD_LABEL: Record<string, string> = { keywords: 'Keywords', caption: 'Caption', title: 'Title', rating: 'Rating', rejected: 'Rejected', label: 'Colour label', extended: 'IPTC template fields' };

function show(v: unknown): string {
  if (v === null || v === undefined || v === '' || (Array.isArray(v) && v.length === 0)) return '—';
  if (Array.isArray(v)) return v.join(', ');
  // A template's IPTC Core / Extension fields (field 'extended'): the ones that have a value.
  if (typeof v === 'object') {
    const set = Object.entries(v as Record<string, unknown>).filter(([, x]) => typeof x === 'string' && x !== '');
    return set.length ? set.map(([k, x]) => `${k}: ${String(x)}`).join('; ') : '—';
  }
  return String(v);
}

const fileName = (p: string): string => p.split(/[\\/]/).pop() ?? p;

/**
 * Write to files…: first what will change, per file and field (the file's value → the
 * library's), then the write itself (temp file, rename, read back), then what happened.
 */
export function WriteDialog({ ids, onClose, onWritten }: { ids: number[]; onClose(): void; onWritten?(): void }) {
  const { api } = useClient();
  const [preview, setPreview] = useState<WritePreview | null>(null);
  const [result, setResult] = useState<WriteSummary[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [writing, setWriting] = useState(false);

  useEffect(() => {
    let live = true;
    api.previewWrite({ ids }).then(
      (p) => live && setPreview(p),
      (err: unknown) => live && setProblem(errorText(err)),
    );
    return () => {
      live = false;
    };
  }, [api, ids]);

  const write = async () => {
    setWriting(true);
    try {
      setResult(await api.writeMetadata({ ids }));
      onWritten?.();
    } catch (err) {
      setProblem(errorText(err));
    } finally {
      setWriting(false);
    }
  };

  const changes = preview?.changes ?? [];
  const files = [...new Set(changes.map((c) => c.path))];
  const n = ids.length;

  if (result) {
    const written = result.filter((r) => r.status === 'written');
    const inSync = result.filter((r) => r.status === 'in_sync');
    const failed = result.filter((r) => r.status === 'failed');
    const warnings = result.flatMap((r) => r.warnings.map((w) => ({ id: r.assetId, w })));
    return (
      <Modal title="Written to files" onClose={onClose} testId="write-result" footer={<Button variant="primary" onClick={onClose} data-testid="write-done" data-autofocus>Done</Button>}>
        <div className="write-stats">
          <div className="stat" data-testid="write-written" data-count={written.length}>
            <span className="stat-label">Written</span>
            <span className="stat-value">{formatCount(written.length)}</span>
          </div>
          <div className="stat" data-testid="write-in-sync" data-count={inSync.length}>
            <span className="stat-label">Already in sync</span>
            <span className="stat-value">{formatCount(inSync.length)}</span>
          </div>
          <div className={`stat${failed.length ? ' stat-bad' : ''}`} data-testid="write-failed" data-count={failed.length}>
            <span className="stat-label">Failed</span>
            <span className="stat-value">{formatCount(failed.length)}</span>
          </div>
        </div>
        {failed.length > 0 && (
          <ul className="write-problems" data-testid="write-failures">
            {failed.map((f) => (
              <li key={f.assetId}>
                <IconWarn /> {f.error ?? 'The file could not be written.'} <span className="muted">The original is unchanged.</span>
              </li>
            ))}
          </ul>
        )}
        {warnings.length > 0 && (
          <ul className="write-warnings" data-testid="write-warnings">
            {warnings.map((w, i) => (
              <li key={i}>{w.w}</li>
            ))}
          </ul>
        )}
        {failed.length === 0 && (
          <p className="muted small write-ok">
            <IconCheck /> Every file was written through a temporary copy and read back; all other metadata (EXIF, GPS, colour profile) is untouched.
          </p>
        )}
      </Modal>
    );
  }

  return (
    <Modal
      title={`Write ${formatCount(n)} ${n === 1 ? 'photo' : 'photos'} to files`}
      subtitle="Only fields that differ are written: IPTC and XMP inside the file, or an XMP sidecar for RAW."
      onClose={onClose}
      testId="write-preview"
      wide
      footer={
        <>
          <span className="modal-hint muted small">{preview ? `${formatCount(changes.length)} field ${changes.length === 1 ? 'change' : 'changes'} in ${formatCount(files.length)} ${files.length === 1 ? 'file' : 'files'}` : ''}</span>
          <Button onClick={onClose} data-testid="write-cancel">Cancel</Button>
          <Button variant="primary" disabled={!preview || writing || changes.length === 0} onClick={() => void write()} data-testid="write-confirm">
            {writing ? <Spinner label="Writing" /> : null}
            {writing ? 'Writing…' : `Write ${formatCount(files.length)} ${files.length === 1 ? 'file' : 'files'}`}
          </Button>
        </>
      }
    >
      {problem && <p className="error-text" data-testid="write-error">{problem}</p>}
      {!preview && !problem && (
        <p className="muted">
          <Spinner label="Reading" /> Reading the files’ metadata…
        </p>
      )}
      {preview && changes.length === 0 && preview.problems.length === 0 && (
        <p data-testid="write-nothing">Every file already carries what the library has. Nothing to write.</p>
      )}
      {preview && preview.problems.length > 0 && (
        <ul className="write-problems" data-testid="write-preview-problems">
          {preview.problems.map((p) => (
            <li key={`${p.assetId}${p.path ?? ''}`}>
              <IconWarn /> {p.path ? `${fileName(p.path)}: ` : ''}
              {p.reason}
            </li>
          ))}
        </ul>
      )}
      {changes.length > 0 && (
        <div className="write-table-wrap">
          <table className="table table-compact write-table" data-testid="write-table">
            <thead>
              <tr>
                <th>File</th>
                <th>Field</th>
                <th>In the file now</th>
                <th />
                <th>Will be written</th>
              </tr>
            </thead>
            <tbody>
              {files.map((f) => {
                const rows = changes.filter((c) => c.path === f);
                return (
                  <Fragment key={f}>
                    {rows.map((c, i) => (
                      <tr key={c.field} data-testid="write-row" data-field={c.field} data-asset-id={c.assetId}>
                        <td className="write-file" title={f}>{i === 0 ? fileName(f) : ''}</td>
                        <td className="write-field">{FIELD_LABEL[c.field] ?? c.field}</td>
                        <td className="write-old">{show(c.fileValue)}</td>
                        <td className="write-arrow">→</td>
                        <td className="write-new">{show(c.libraryValue)}</td>
                      </tr>
                    ))}
                  </Fragment>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </Modal>
  );
}
