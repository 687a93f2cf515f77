import { useCallback, useEffect, useState, type FormEvent } from 'react';
import type { AgencyAccountView, AgencyId, AgencyProfileView } from '../../../../src-preload/contract';
import { useClient } from '../../api/ClientContext';
import { Button } from '../../ui/primitives';
import { formatDate } from '../../ui/format';
import { errorText } from '../../ui/Toasts';

/**
 * Settings › Agencies: per stock agency, its upload server (ftp://, ftps:// or sftp://HOST/DIR),
 * user name and password, kept in the OS keychain. The password is never shown again; leaving
 * it empty keeps the stored one. Saving resumes uploads a refused login had stopped.
 * The SFTP host keys trusted on first connection are listed with "Forget host key": after the
 * agency confirmed a changed key, forgetting the old one lets the next upload trust the new one.
 */
export function AgenciesCard({ active }: { active: boolean }) {
  const { api } = useClient();
  const [agencies, setAgencies] = useState<AgencyProfileView[]>([]);
  const [agency, setAgency] = useState<AgencyId>('adobe');
  const [account, setAccount] = useState<AgencyAccountView | null>(null);
  const [url, setUrl] = useState('');
  const [user, setUser] = useState('');
  const [password, setPassword] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (active) api.listAgencies().then(setAgencies, (err: unknown) => setProblem(errorText(err)));
  }, [api, active]);

  const load = useCallback(
    (id: AgencyId) =>
      api.agencyAccount({ agency: id }).then(
        (a) => {
          setAccount(a);
          setUrl(a.url ?? '');
          setUser(a.user ?? '');
          setPassword('');
        },
        (err: unknown) => setProblem(errorText(err)),
      ),
    [api],
  );
  useEffect(() => {
    if (active) void load(agency);
  }, [active, agency, load]);

  const profile = agencies.find((a) => a.id === agency);
  const save = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setProblem(null);
    setSaved(null);
    try {
      const a = await api.setAgencyAccount({ agency, url, user, password });
      setAccount(a);
      setPassword('');
      setSaved(`Stored in the OS keychain for ${profile?.name ?? agency}.`);
    } catch (err) {
      setProblem(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  const forgetHostKey = async (host: string, port: number) => {
    setProblem(null);
    try {
      setAccount(await api.forgetAgencyHostKey({ agency, host, port }));
      setSaved(`Forgot the host key of ${host}:${port}: the next upload trusts the key that server shows.`);
    } catch (err) {
      setProblem(errorText(err));
    }
  };
  const remove = async () => {
    setProblem(null);
    try {
      await api.removeAgencyAccount({ agency });
      setSaved(null);
      await load(agency);
    } catch (err) {
      setProblem(errorText(err));
    }
  };

  return (
    <section className="card" data-testid="settings-agencies">
      <header className="card-head">
        <h2>Agencies</h2>
      </header>
      <p className="muted small">
        Where “Upload” sends photos: each agency’s upload server, user name and password, kept in the OS keychain.
        {profile ? ` ${profile.name} takes ${profile.protocols.map((p) => p.toUpperCase()).join(', ') || 'no documented protocol'}.` : ''}
      </p>
      <form className="form" onSubmit={(e) => void save(e)} autoComplete="off" data-testid="agency-account-form">
        <label className="form-row">
          <span className="form-label">Agency</span>
          <select className="select-sm" value={agency} onChange={(e) => { setAgency(e.target.value as AgencyId); setSaved(null); setProblem(null); }} data-testid="agency-account-agency">
            {agencies.map((a) => <option key={a.id} value={a.id}>{a.name}</option>)}
          </select>
        </label>
        <label className="form-row">
          <span className="form-label">Server</span>
          <input type="text" value={url} onChange={(e) => setUrl(e.target.value)} placeholder="sftp://host/folder, ftps://… or ftp://…" spellCheck={false} data-testid="agency-account-url" />
        </label>
        <label className="form-row">
          <span className="form-label">User name</span>
          <input type="text" value={user} onChange={(e) => setUser(e.target.value)} spellCheck={false} autoComplete="off" data-testid="agency-account-user" />
        </label>
        <label className="form-row">
          <span className="form-label">Password</span>
          <input
            type="password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            placeholder={account?.configured ? 'Leave empty to keep the stored password' : ''}
            autoComplete="new-password"
            data-testid="agency-account-password"
          />
        </label>
        <div className="form-row">
          <span className="form-label" />
          <div className="form-actions">
            <Button type="submit" variant="primary" disabled={busy} data-testid="agency-account-save">Save</Button>
            {account?.configured && account.source === 'keychain' && (
              <Button variant="ghost" onClick={() => void remove()} data-testid="agency-account-remove">Remove</Button>
            )}
            {saved && <span className="muted small" role="status" data-testid="agency-account-saved">{saved}</span>}
            {account?.source === 'env' && <span className="muted small">TAGSMITH_UPLOAD_USER and TAGSMITH_UPLOAD_PASSWORD are set and used instead of the stored ones.</span>}
            {problem && <span className="error-text" role="alert" data-testid="agency-account-error">{problem}</span>}
          </div>
        </div>
      </form>
      {account && account.hostKeys.length > 0 && (
        <div className="form" data-testid="agency-host-keys">
          <p className="muted small">SFTP host keys trusted for {profile?.name ?? agency} (recorded on the first connection; a server showing another key is refused):</p>
          <ul className="backup-list">
            {account.hostKeys.map((k) => (
              <li key={`${k.host}:${k.port}`} className="form-row" data-testid="agency-host-key">
                <span className="form-label">{k.host}:{k.port}</span>
                <span>
                  <code data-testid="agency-host-key-fingerprint">{k.fingerprint}</code>{' '}
                  <span className="muted small">{k.keyType}, since {formatDate(k.firstSeen)}</span>{' '}
                  <Button variant="ghost" onClick={() => void forgetHostKey(k.host, k.port)} data-testid="agency-host-key-forget">Forget host key</Button>
                </span>
              </li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}
