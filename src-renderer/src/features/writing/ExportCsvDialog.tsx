import { useState } from 'react';
import type { Agency } from '../../../../src-preload/contract';
import { useClient } from '../../api/ClientContext';
import { IconWarn } from '../../ui/icons';
import { Modal } from '../../ui/Modal';
import { Button, formatCount } from '../../ui/primitives';
import { errorText, useToast } from '../../ui/Toasts';

const AGENCIES: { value: Agency; label: string; columns: string }[] = [
  { value: 'adobe', label: 'Adobe Stock', columns: 'Filename, Title, Keywords, Category, Releases' },
  { value: 'shutterstock', label: 'Shutterstock', columns: 'Filename, Description, Keywords, Categories, Editorial, Mature content, illustration' },
];

/** Hand the CSV to the browser as a file download (no native save dialog here). */
function download(name: string, csv: string): void {
  const url = URL.createObjectURL(new Blob([csv], { type: 'text/csv;charset=utf-8' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Export CSV…: the agency's upload CSV for the selection, keywords in their order. */
export function ExportCsvDialog({ ids, onClose }: { ids: number[]; onClose(): void }) {
  const { api } = useClient();
  const toast = useToast();
  const [agency, setAgency] = useState<Agency>('adobe');
  const [busy, setBusy] = useState(false);
  const [warnings, setWarnings] = useState<string[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);

  const run = async () => {
    setBusy(true);
    setProblem(null);
    const name = `${agency === 'adobe' ? 'adobe-stock' : 'shutterstock'}-${new Date().toISOString().slice(0, 10)}.csv`;
    try {
      const path = await api.pickSavePath({ defaultName: name });
      const out = path ? await api.exportCsv({ ids, agency, path }) : await api.exportCsv({ ids, agency });
      if (!path) download(name, out.csv);
      toast.info(`${formatCount(out.rows)} ${out.rows === 1 ? 'row' : 'rows'} exported for ${AGENCIES.find((a) => a.value === agency)!.label}${path ? ` to ${path}` : ''}.`);
      if (out.warnings.length) setWarnings(out.warnings);
      else onClose();
    } catch (err) {
      setProblem(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal
      title={`Export CSV for ${formatCount(ids.length)} ${ids.length === 1 ? 'photo' : 'photos'}`}
      subtitle="The upload CSV a stock agency reads: UTF-8, keywords in your order."
      onClose={onClose}
      testId="export-csv"
      footer={
        warnings ? (
          <Button variant="primary" onClick={onClose} data-testid="csv-done">Done</Button>
        ) : (
          <>
            <Button onClick={onClose} data-testid="csv-cancel">Cancel</Button>
            <Button variant="primary" disabled={busy} onClick={() => void run()} data-testid="csv-confirm">
              Export…
            </Button>
          </>
        )
      }
    >
      <div className="agency-choice" role="radiogroup" aria-label="Agency">
        {AGENCIES.map((a) => (
          <label key={a.value} className={`agency${agency === a.value ? ' on' : ''}`} data-testid={`csv-agency-${a.value}`}>
            <input type="radio" name="agency" checked={agency === a.value} onChange={() => setAgency(a.value)} />
            <span className="agency-text">
              <strong>{a.label}</strong>
              <span className="muted small">{a.columns}</span>
            </span>
          </label>
        ))}
      </div>
      {problem && <p className="error-text" data-testid="csv-error">{problem}</p>}
      {warnings && (
        <ul className="write-warnings" data-testid="csv-warnings">
          {warnings.map((w) => (
            <li key={w}>
              <IconWarn /> {w}
            </li>
          ))}
        </ul>
      )}
    </Modal>
  );
}
