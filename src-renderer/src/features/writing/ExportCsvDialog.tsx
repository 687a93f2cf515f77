import { useEffect, useState } from 'react';
import type { AgencyId, AgencyProfileView, AgencyVerdict } from '../../../../src-preload/contract';
import { useClient } from '../../api/ClientContext';
import { IconWarn } from '../../ui/icons';
import { Modal } from '../../ui/Modal';
import { Button, formatCount } from '../../ui/primitives';
import { errorText, useToast } from '../../ui/Toasts';

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

const fileBase = (id: AgencyId): string => (id === 'adobe' ? 'adobe-stock' : id);
const baseName = (p: string): string => p.split(/[\\/]/).pop() ?? p;

/**
 * Check & export CSV…: the selection against a stock agency's published rules (a verdict per
 * photo, what to fix), then that agency's upload CSV. Failing photos are held back unless the
 * user ticks the override.
 */
export function ExportCsvDialog({ ids, onClose }: { ids: number[]; onClose(): void }) {
  const { api } = useClient();
  const toast = useToast();
  const [agencies, setAgencies] = useState<AgencyProfileView[] | null>(null);
  const [agency, setAgency] = useState<AgencyId>('adobe');
  // Verdicts are kept with the check they answer, so a stale answer never shows for another agency.
  const [round, setRound] = useState(0);
  const [checked, setChecked] = useState<{ key: string; list: AgencyVerdict[] } | null>(null);
  const key = `${agency}:${round}`;
  const verdicts = checked?.key === key ? checked.list : null;
  const setVerdicts = (list: AgencyVerdict[]) => setChecked({ key, list });
  const [override, setOverride] = useState(false);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [sent, setSent] = useState<string | null>(null);

  useEffect(() => {
    api.listAgencies().then(setAgencies, (err: unknown) => setProblem(errorText(err)));
  }, [api]);

  useEffect(() => {
    const k = `${agency}:${round}`;
    api.checkForAgency({ ids, agency }).then((list) => setChecked({ key: k, list }), (err: unknown) => setProblem(errorText(err)));
  }, [api, ids, agency, round]);
  const check = () => setRound((n) => n + 1);

  const profile = agencies?.find((a) => a.id === agency);
  const failing = verdicts?.filter((v) => !v.ok) ?? [];
  const sendable = verdicts ? (override ? verdicts.length : verdicts.length - failing.length) : 0;

  const run = async () => {
    if (!profile) return;
    setBusy(true);
    setProblem(null);
    const name = `${fileBase(agency)}-${new Date().toISOString().slice(0, 10)}.csv`;
    try {
      const path = await api.pickSavePath({ defaultName: name });
      const args = { ids, agency, force: override };
      const out = path ? await api.exportCsv({ ...args, path }) : await api.exportCsv(args);
      if (!path) download(name, out.csv);
      const held = out.verdicts.filter((v) => !v.included).length;
      const msg = `${formatCount(out.rows)} ${out.rows === 1 ? 'row' : 'rows'} exported for ${profile.name}${path ? ` to ${path}` : ''}${held ? `; ${formatCount(held)} held back` : ''}.`;
      toast.info(msg);
      setDone(msg);
      setVerdicts(out.verdicts);
    } catch (err) {
      setProblem(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  // Issue 19: the same selection to the agency's upload server, through the queue (Activity
  // shows the progress and can cancel); failing photos are held back unless overridden.
  const upload = async () => {
    if (!profile) return;
    setBusy(true);
    setProblem(null);
    try {
      const out = await api.uploadToAgency({ ids, agency, force: override });
      const parts = [`${formatCount(out.queued)} ${out.queued === 1 ? 'photo' : 'photos'} on the way to ${profile.name} (${out.url}): progress in Activity.`];
      if (out.alreadySent) parts.push(`${formatCount(out.alreadySent)} already sent unchanged.`);
      if (out.heldBack.length) parts.push(`${formatCount(out.heldBack.length)} held back by the check.`);
      setSent(parts.join(' '));
      toast.info(parts[0]);
    } catch (err) {
      setProblem(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  const uploadButton = profile && profile.protocols.length > 0 && !sent && (
    <Button disabled={busy || !verdicts || sendable === 0} onClick={() => void upload()} data-testid="csv-upload" title="Send the files to the agency’s upload server (Settings › Agencies)">
      {verdicts ? `Upload ${formatCount(sendable)}…` : 'Upload…'}
    </Button>
  );

  return (
    <Modal
      title={`Check & export for ${formatCount(ids.length)} ${ids.length === 1 ? 'photo' : 'photos'}`}
      subtitle="Each photo against the agency’s published rules, then its upload CSV (UTF-8, keywords in your order)."
      onClose={onClose}
      testId="export-csv"
      footer={
        done || sent ? (
          <>
            {uploadButton}
            <Button variant="primary" onClick={onClose} data-testid="csv-done">Done</Button>
          </>
        ) : (
          <>
            <Button onClick={onClose} data-testid="csv-cancel">Cancel</Button>
            <Button onClick={check} data-testid="csv-recheck">Check again</Button>
            {uploadButton}
            <Button
              variant="primary"
              disabled={busy || !verdicts || !profile?.csv || sendable === 0}
              title={profile && !profile.csv ? `${profile.name} documents no metadata CSV` : undefined}
              onClick={() => void run()}
              data-testid="csv-confirm"
            >
              {verdicts ? `Export ${formatCount(sendable)}…` : 'Export…'}
            </Button>
          </>
        )
      }
    >
      <div className="agency-choice" role="radiogroup" aria-label="Agency">
        {(agencies ?? []).map((a) => (
          <label key={a.id} className={`agency${agency === a.id ? ' on' : ''}`} data-testid={`csv-agency-${a.id}`}>
            <input type="radio" name="agency" checked={agency === a.id} onChange={() => { setAgency(a.id); setOverride(false); setDone(null); setSent(null); }} />
            <span className="agency-text">
              <strong>{a.name}</strong>
              <span className="muted small">{a.csvHeader ? a.csvHeader.join(', ') : 'No metadata CSV documented: check only'}</span>
            </span>
          </label>
        ))}
      </div>
      {profile && (
        <details className="muted small" data-testid="csv-rules">
          <summary>{profile.name}’s rules ({profile.sources.map((x) => x.checked).sort().at(-1)})</summary>
          <ul>{profile.rules.map((r) => <li key={r}>{r}</li>)}</ul>
          <ul>{profile.sources.map((x) => <li key={x.url}>{x.what}: {x.url}</li>)}</ul>
        </details>
      )}
      {profile && profile.notFound.length > 0 && (
        <details className="muted small" data-testid="csv-not-found">
          <summary>Rules {profile.name}’s documentation did not give ({profile.notFound.length})</summary>
          <ul>{profile.notFound.map((n) => <li key={n}>{n}</li>)}</ul>
        </details>
      )}
      {verdicts && (
        <div data-testid="csv-verdicts">
          <p className="small" data-testid="csv-summary">
            {formatCount(verdicts.length - failing.length)} of {formatCount(verdicts.length)} pass {profile?.name ?? ''}’s rules
            {failing.length ? `; ${formatCount(failing.length)} to fix.` : '.'}
          </p>
          {failing.length > 0 && (
            <ul className="write-warnings" data-testid="csv-warnings">
              {failing.map((v) => (
                <li key={v.assetId} data-testid="csv-verdict" data-path={v.path}>
                  <IconWarn />
                  <span><strong>{baseName(v.path)}</strong>: {v.problems.join(' ')}</span>
                </li>
              ))}
            </ul>
          )}
          {failing.length > 0 && !done && !sent && (
            <label className="small" data-testid="csv-override">
              <input type="checkbox" checked={override} onChange={(e) => setOverride(e.target.checked)} /> Include the {formatCount(failing.length)} failing {failing.length === 1 ? 'photo' : 'photos'} anyway
            </label>
          )}
        </div>
      )}
      {done && <p className="small" data-testid="csv-result">{done}</p>}
      {sent && <p className="small" data-testid="csv-upload-result">{sent}</p>}
      {problem && <p className="error-text" data-testid="csv-error">{problem}</p>}
    </Modal>
  );
}
