import { useState, type FormEvent } from 'react';
import type { StudioProbe } from '../../../../src-preload/contract';
import { useClient } from '../../api/ClientContext';
import { ConfirmDialog } from '../../ui/Dialog';
import { Button, Spinner } from '../../ui/primitives';
import { errorText } from '../../ui/Toasts';
import { useNow } from '../../state/useNow';
import { SubsetSection } from './SubsetSection';
import { changesText, useStudio, whenText } from './useStudio';

const ROLE_TEXT = { admin: 'admin (manages users)', editor: 'editor', viewer: 'viewer (can look, not change)' } as const;

/** Settings › Studio: share this library with a studio (tagsmith serve), see its state, leave it. */
export function StudioCard() {
  const [state, setState] = useStudio();
  const now = useNow(30_000, state?.member === true);
  return (
    <section className="card" data-testid="settings-studio">
      <header className="card-head">
        <h2>Studio</h2>
        <span className="muted small">Share this library with your studio. Everything keeps working offline; changes are exchanged when the studio’s server can be reached.</span>
      </header>
      {state === null ? <Spinner label="Loading" /> : state.member ? <Member state={state} now={now} onState={setState} /> : <Join onState={setState} />}
    </section>
  );
}

function Member({ state, now, onState }: { state: NonNullable<ReturnType<typeof useStudio>[0]>; now: number; onState(s: typeof state): void }) {
  const { api } = useClient();
  const [busy, setBusy] = useState(false);
  const [leaving, setLeaving] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const act = async (fn: () => Promise<typeof state>) => {
    setBusy(true);
    setProblem(null);
    try {
      onState(await fn());
    } catch (err) {
      setProblem(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="card-text" data-testid="studio-member">
      <p>
        Member of <strong data-testid="studio-name">{state.studio?.name}</strong> at <code>{state.server}</code>, signed in as <strong>{state.user}</strong> ({state.role ? ROLE_TEXT[state.role] : ''}).
      </p>
      <p data-testid="studio-state">
        {state.connected ? 'Connected' : 'Not connected'} · {state.pendingChanges ? `${changesText(state.pendingChanges)} of this library not sent yet` : 'nothing waiting to be sent'} · last exchange {whenText(state.lastSyncAt, now)}
      </p>
      {state.error && (
        <p className="warn-text" data-testid="studio-error">
          {state.error}
        </p>
      )}
      <SubsetSection state={state} busy={busy} onState={onState} />
      <Volumes state={state} busy={busy} onMap={(volume, path) => void act(() => api.studioMapVolume({ volume, path }))} />
      <p className="muted small">Server certificate SHA-256 {state.fingerprint}</p>
      <div className="form-actions">
        <Button onClick={() => void act(() => api.studioSyncNow())} disabled={busy} data-testid="studio-sync">
          {busy && <Spinner label="Syncing" />}Sync now
        </Button>
        <Button variant="ghost" onClick={() => setLeaving(true)} disabled={busy} data-testid="studio-leave">
          Leave studio…
        </Button>
        {problem && (
          <span className="error-text" role="alert">
            {problem}
          </span>
        )}
      </div>
      {leaving && (
        <ConfirmDialog
          title={`Leave “${state.studio?.name}”?`}
          confirmLabel="Leave studio"
          testId="confirm-studio-leave"
          onCancel={() => setLeaving(false)}
          onConfirm={() => {
            setLeaving(false);
            void act(() => api.studioLeave());
          }}
        >
          <p>
            This library stops exchanging changes with the studio and keeps everything it holds, as a private library.{' '}
            {state.pendingChanges ? `${changesText(state.pendingChanges)} not sent yet will stay here only.` : ''}
          </p>
        </ConfirmDialog>
      )}
    </div>
  );
}

/** Where each of the studio's shared disks is on this computer; one not found here can be pointed to. */
function Volumes({ state, busy, onMap }: { state: NonNullable<ReturnType<typeof useStudio>[0]>; busy: boolean; onMap(volume: string, path: string): void }) {
  const { api } = useClient();
  if (!state.volumes.length) return null;
  const choose = async (volume: string) => {
    const path = await api.pickFolder();
    if (path) onMap(volume, path);
  };
  return (
    <div data-testid="studio-volumes">
      <h3 className="small">Shared disks</h3>
      <p className="muted small">Each computer may see a shared disk at its own place. Photos on a disk this computer cannot find show as offline here; choose where it is, and they come in.</p>
      <ul className="studio-volumes">
        {state.volumes.map((v) => (
          <li key={v.id} data-testid="studio-volume" data-online={v.online ? 'true' : 'false'}>
            <strong>{v.name}</strong>{' '}
            <span data-testid="studio-volume-where">
              {v.mount === null ? 'not found on this computer: its photos are offline here' : v.online ? <>on this computer at <code>{v.mount}</code></> : <>offline: connect the drive (it was at <code>{v.mount}</code>)</>}
              {v.waiting ? ` · ${changesText(v.waiting)} from the studio wait for it` : ''}
            </span>{' '}
            <Button variant="ghost" onClick={() => void choose(v.id)} disabled={busy} data-testid="studio-volume-map">
              {v.mount === null ? 'Choose where it is…' : 'Change…'}
            </Button>
          </li>
        ))}
      </ul>
    </div>
  );
}

function Join({ onState }: { onState(s: NonNullable<ReturnType<typeof useStudio>[0]>): void }) {
  const { api } = useClient();
  const [url, setUrl] = useState('');
  const [user, setUser] = useState('');
  const [password, setPassword] = useState('');
  const [probe, setProbe] = useState<StudioProbe | null>(null);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);

  const check = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setProblem(null);
    try {
      // "studio-server:8443" is taken as https://studio-server:8443: studio servers speak HTTPS only.
      const given = url.trim();
      setProbe(await api.studioProbe({ url: /^[a-z][a-z0-9+.-]*:\/\//i.test(given) ? given : `https://${given}` }));
    } catch (err) {
      setProblem(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  const join = async () => {
    if (!probe) return;
    setBusy(true);
    setProblem(null);
    try {
      onState(await api.studioJoin({ url: probe.url, user: user.trim(), password, fingerprint: probe.fingerprint }));
      setPassword('');
    } catch (err) {
      setProblem(errorText(err));
      setProbe(null);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="form" onSubmit={(e) => void check(e)} autoComplete="off" data-testid="studio-join-form">
      <label className="form-row">
        <span className="form-label">Server address</span>
        <input type="text" value={url} onChange={(e) => (setUrl(e.target.value), setProbe(null))} placeholder="https://studio-server:8443" spellCheck={false} data-testid="studio-url" />
      </label>
      <label className="form-row">
        <span className="form-label">User name</span>
        <input type="text" value={user} onChange={(e) => setUser(e.target.value)} spellCheck={false} autoComplete="off" data-testid="studio-user" />
      </label>
      <label className="form-row">
        <span className="form-label">Password</span>
        <input type="password" value={password} onChange={(e) => setPassword(e.target.value)} autoComplete="new-password" data-testid="studio-password" />
      </label>
      {probe && (
        <div className="form-row">
          <span className="form-label" />
          <div className="studio-fingerprint" data-testid="studio-probe">
            <p>
              <strong>{probe.studioName}</strong> shows this certificate. Compare it with the fingerprint the studio’s server printed when it started; join only if they are the same.
            </p>
            <code data-testid="studio-fingerprint">{probe.fingerprint}</code>
            <p className="muted" data-testid="studio-shares">
              {probe.sharedPhotos
                ? `Joining shares the keywords, captions, ratings, labels and rights fields of ${probe.sharedPhotos} photo${probe.sharedPhotos === 1 ? '' : 's'} of this library: each field where nobody in the studio has edited it; keywords are added to the photo’s.`
                : 'This library has no keywords, captions or ratings to share yet; what you change after joining is shared.'}
            </p>
          </div>
        </div>
      )}
      <div className="form-row">
        <span className="form-label" />
        <div className="form-actions">
          {probe ? (
            <Button variant="primary" onClick={() => void join()} disabled={busy || !user.trim() || !password} data-testid="studio-join">
              {busy && <Spinner label="Joining" />}The fingerprints match: join
            </Button>
          ) : (
            <Button type="submit" variant="primary" disabled={busy || !url.trim()} data-testid="studio-connect">
              {busy && <Spinner label="Connecting" />}Connect…
            </Button>
          )}
          {problem && (
            <span className="error-text" role="alert" data-testid="studio-problem">
              {problem}
            </span>
          )}
        </div>
      </div>
    </form>
  );
}
