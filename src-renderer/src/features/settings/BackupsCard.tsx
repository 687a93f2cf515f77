import { useCallback, useEffect, useState } from 'react';
import type { BackupView } from '../../../../src-preload/contract';
import { useClient } from '../../api/ClientContext';
import { ConfirmDialog } from '../../ui/Dialog';
import { Button, formatBytes } from '../../ui/primitives';
import { formatDateTime } from '../../ui/format';
import { errorText, useToast } from '../../ui/Toasts';

const REASON_TEXT: Record<BackupView['reason'], string> = {
  manual: 'made by hand',
  daily: 'daily',
  migration: 'before an upgrade',
  'before-restore': 'before a restore',
  damaged: 'damaged catalogue, kept',
};

/** Settings › Library: the catalogue backups beside the catalogue, with Restore. */
export function BackupsCard({ active }: { active: boolean }) {
  const { api } = useClient();
  const toast = useToast();
  const [backups, setBackups] = useState<BackupView[] | null>(null);
  const [keep, setKeep] = useState<string>('');
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [restoring, setRestoring] = useState<BackupView | null>(null);
  const [restartNote, setRestartNote] = useState(false);

  const load = useCallback(
    () =>
      Promise.all([api.listBackups(), api.systemSettings()]).then(
        ([list, settings]) => {
          setBackups(list);
          setKeep(String(settings.backupKeep));
          setProblem(null);
        },
        (err: unknown) => setProblem(errorText(err)),
      ),
    [api],
  );

  useEffect(() => {
    if (active) void load();
  }, [active, load]);

  const backUp = async () => {
    setBusy(true);
    try {
      await api.backupNow();
      await load();
    } catch (err) {
      setProblem(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  const saveKeep = async () => {
    const n = Number(keep);
    if (!Number.isInteger(n) || n < 1 || n > 365) return setProblem('Keep between 1 and 365 backups.');
    try {
      await api.setSystemSettings({ backupKeep: n });
      await load();
    } catch (err) {
      setProblem(errorText(err));
    }
  };

  const restore = async (b: BackupView) => {
    setRestoring(null);
    try {
      const r = await api.restoreBackup({ path: b.path });
      if (r.restartRequired) setRestartNote(true);
      else toast.info('Tagsmith restarts to restore the backup.');
    } catch (err) {
      setProblem(errorText(err));
      void load();
    }
  };

  return (
    <section className="card" data-testid="settings-backups">
      <header className="card-head">
        <h2>Library backups</h2>
        <span className="muted small">Copies of the catalogue, made before upgrades, daily while Tagsmith runs, and on demand.</span>
      </header>
      {problem && <p className="error-text">{problem}</p>}
      {restartNote && <p className="warn-text" data-testid="restore-pending">The backup will be restored the next time Tagsmith starts. Quit and start it again.</p>}
      {backups && backups.length === 0 && <p className="muted">No backups yet.</p>}
      {backups && backups.length > 0 && (
        <ul className="backup-list">
          {backups.map((b) => (
            <li key={b.path} data-testid="backup-row" data-reason={b.reason}>
              <span>{formatDateTime(b.createdAt)}</span>
              <span className="muted small">{REASON_TEXT[b.reason]} · {formatBytes(b.bytes)}</span>
              {b.reason !== 'damaged' && (
                <Button small onClick={() => setRestoring(b)} data-testid="backup-restore">
                  Restore
                </Button>
              )}
            </li>
          ))}
        </ul>
      )}
      <div className="backup-actions">
        <Button onClick={() => void backUp()} disabled={busy} data-testid="backup-now">
          Back up now
        </Button>
        <label className="small">
          Keep the newest{' '}
          <input type="number" min={1} max={365} value={keep} onChange={(e) => setKeep(e.target.value)} onBlur={() => void saveKeep()} data-testid="backup-keep" className="input-narrow" />{' '}
          backups
        </label>
      </div>
      {restoring && (
        <ConfirmDialog
          title="Restore this backup?"
          confirmLabel="Restore and restart"
          danger
          onConfirm={() => void restore(restoring)}
          onCancel={() => setRestoring(null)}
          testId="confirm-restore"
        >
          <p>
            The catalogue goes back to {formatDateTime(restoring.createdAt)}: keywords, captions and ratings changed since then in Tagsmith are lost
            (what was already written into the files stays there). The current catalogue is kept as a backup first.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}
