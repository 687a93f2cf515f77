import { useEffect, useRef, useState, type FormEvent, type ReactNode } from 'react';
import type { ConnectionVerdict, CredentialInfo, ServiceSettings } from '../../../../src-preload/contract';
import { useClient } from '../../api/ClientContext';
import { ConfirmDialog } from '../../ui/Dialog';
import { IconCheck, IconKey, IconWarn } from '../../ui/icons';
import { Button, Spinner } from '../../ui/primitives';
import { errorText, useToast } from '../../ui/Toasts';
import { CapsForm } from './CapsForm';
import { KeywordSettingsCard } from './KeywordSettingsCard';
import { BackupsCard } from './BackupsCard';
import { AgenciesCard } from './AgenciesCard';
import { SystemCard } from './SystemCard';
import { StudioCard } from '../studio/StudioCard';
import { PrivacySection } from './PrivacySection';
import { useServiceSettings } from './useServiceSettings';

/** Service account, address, connection check, usage caps and what leaves the machine. */
export function SettingsView({ active }: { active: boolean }) {
  const { settings, error, setSettings, setCredentialInfo } = useServiceSettings(active);
  const [verdict, setVerdict] = useState<ConnectionVerdict | null>(null);
  if (!settings) {
    return (
      <div className="page" data-testid="settings">
        <div className="empty-state">{error ? <p className="error-text">{error.message}</p> : <Spinner label="Loading" />}</div>
      </div>
    );
  }
  return (
    <SettingsPage
      sections={[
        {
          id: 'service',
          title: 'Service',
          body: (
            <>
              <Credentials
                info={settings.credentials}
                onChange={(info) => {
                  setCredentialInfo(info);
                  setVerdict(null);
                }}
              />
              <ServiceAddress
                settings={settings}
                onChange={(s) => {
                  setSettings(s);
                  setVerdict(null);
                }}
              />
              <Connection verdict={verdict} onVerdict={setVerdict} configured={settings.credentials.configured} />
            </>
          ),
        },
        { id: 'spending', title: 'Spending', body: <CapsForm active={active} /> },
        { id: 'keywords', title: 'Keywords', body: <KeywordSettingsCard active={active} /> },
        { id: 'agencies', title: 'Agencies', body: <AgenciesCard active={active} /> },
        { id: 'studio', title: 'Studio', body: <StudioCard /> },
        { id: 'backups', title: 'Backups', body: <BackupsCard active={active} /> },
        { id: 'system', title: 'System', body: <SystemCard active={active} /> },
        {
          id: 'privacy',
          title: 'Privacy',
          body: (
            <>
              <section className="card" data-testid="privacy-note">
                <header className="card-head">
                  <h2>What leaves this computer</h2>
                </header>
                <div className="card-text">
                  <p>
                    For analysis, Tagsmith sends a small copy of each photo (about 300 pixels on the short side) with all metadata removed: no location, camera or
                    name. Creative tasks send copies of the files you choose for them, with the same metadata removed (below, per kind of task). Your originals
                    themselves are never sent and never changed by the service.
                  </p>
                  <p>In a studio, your keywords, captions, ratings, labels and rights fields go to the studio’s own server (Studio, above), never to the service.</p>
                  <p className="muted">The service keeps queued inputs for up to 24 hours while it works on them.</p>
                </div>
              </section>
              <PrivacySection />
            </>
          ),
        },
      ]}
    />
  );
}

interface SettingsSection {
  id: string;
  title: string;
  body: ReactNode;
}

/**
 * Settings as sections with an index on the side (as in Lightroom's and the system's preference
 * windows): a click goes to its section, and the index marks the section being read.
 */
function SettingsPage({ sections }: { sections: SettingsSection[] }) {
  const page = useRef<HTMLDivElement>(null);
  const [current, setCurrent] = useState(sections[0].id);
  // The entry clicked stays marked while the page rests where the click put it (a short last
  // section cannot reach the top, and is still the one asked for); a scroll by hand moves on.
  const clicked = useRef<{ id: string; top: number } | null>(null);
  useEffect(() => {
    const el = page.current;
    if (!el) return;
    const onScroll = () => {
      if (clicked.current && Math.abs(el.scrollTop - clicked.current.top) < 2) return;
      clicked.current = null;
      setCurrent(sectionInView(el, sections));
    };
    el.addEventListener('scroll', onScroll, { passive: true });
    return () => el.removeEventListener('scroll', onScroll);
  }, [sections]);
  const go = (id: string) => {
    const el = page.current;
    el?.querySelector<HTMLElement>(`[data-section="${id}"]`)?.scrollIntoView({ block: 'start' });
    clicked.current = el ? { id, top: el.scrollTop } : null;
    setCurrent(id);
  };
  return (
    <div className="page settings-page" data-testid="settings" ref={page}>
      <div className="settings-layout">
        <nav className="settings-index" aria-label="Settings sections" data-testid="settings-index">
          {sections.map((s) => (
            <button key={s.id} type="button" className={current === s.id ? 'on' : ''} aria-current={current === s.id ? 'true' : undefined} onClick={() => go(s.id)} data-testid={`settings-index-${s.id}`}>
              {s.title}
            </button>
          ))}
        </nav>
        <div className="settings-body">
          {sections.map((s) => (
            <section key={s.id} className="settings-section" data-section={s.id} data-testid={`settings-section-${s.id}`} aria-labelledby={`settings-title-${s.id}`}>
              <h1 className="settings-section-title" id={`settings-title-${s.id}`}>
                {s.title}
              </h1>
              {s.body}
            </section>
          ))}
        </div>
      </div>
    </div>
  );
}

/**
 * The section being read: the one that fills most of the top half of the page's view (the end
 * of the section before, still showing in a strip at the top, is not what is being read); at
 * the bottom of the page, the last section, even when it is short.
 */
function sectionInView(el: HTMLElement, sections: SettingsSection[]): string {
  const view = el.getBoundingClientRect();
  if (el.scrollTop + el.clientHeight >= el.scrollHeight - 2) return sections[sections.length - 1].id;
  const top = view.top;
  const bottom = view.top + el.clientHeight / 2;
  let best = sections[0].id;
  let most = 0;
  for (const s of sections) {
    const r = el.querySelector<HTMLElement>(`[data-section="${s.id}"]`)?.getBoundingClientRect();
    if (!r) continue;
    const shown = Math.min(r.bottom, bottom) - Math.max(r.top, top);
    if (shown > most + 0.5) {
      most = shown;
      best = s.id;
    }
  }
  return best;
}

const SOURCE_TEXT: Record<CredentialInfo['source'], string> = {
  keychain: 'Stored in the system keychain',
  env: 'From the environment',
  session: 'For this session only',
  none: 'No credentials yet',
};

function Credentials({ info, onChange }: { info: CredentialInfo; onChange(info: CredentialInfo): void }) {
  const { api } = useClient();
  const toast = useToast();
  const [clientId, setClientId] = useState(info.clientId ?? '');
  const [secret, setSecret] = useState('');
  const [saving, setSaving] = useState(false);
  const [problem, setProblem] = useState<{ field?: string; message: string } | null>(null);
  const [confirmRemove, setConfirmRemove] = useState(false);
  const fromEnv = info.source === 'env';

  const save = async (e: FormEvent) => {
    e.preventDefault();
    if (!clientId.trim()) return setProblem({ field: 'clientId', message: 'Enter the Client ID from the API Keys page of your account.' });
    if (!secret.trim()) return setProblem({ field: 'clientSecret', message: 'Enter the Secret Key that belongs to this Client ID.' });
    setSaving(true);
    setProblem(null);
    try {
      const next = await api.setCredentials({ clientId: clientId.trim(), clientSecret: secret });
      setClientId(next.clientId ?? '');
      onChange(next);
      toast.info(next.source === 'session' ? 'Credentials kept for this session only.' : 'Credentials stored in the system keychain.');
    } catch (err) {
      const field = (err as { field?: string }).field;
      setProblem({ field, message: errorText(err) });
    } finally {
      // The secret is never kept in the page once it has been handed over (or refused).
      setSecret('');
      setSaving(false);
    }
  };

  const remove = async () => {
    setConfirmRemove(false);
    try {
      const next = await api.removeCredentials();
      setClientId('');
      onChange(next);
      toast.info('Credentials removed.');
    } catch (err) {
      toast.error(err);
    }
  };

  return (
    <section className="card" data-testid="settings-credentials">
      <header className="card-head">
        <h2>Service account</h2>
        <span className="muted small">The Client ID and Secret Key from the API Keys page of your account.</span>
      </header>
      <div className={`cred-status cred-${info.source}`} data-testid="cred-status" data-source={info.source} data-keychain={info.keychain}>
        <span className="cred-icon">{info.source === 'session' || info.source === 'none' ? <IconWarn /> : <IconKey />}</span>
        <div className="cred-text">
          <strong data-testid="cred-source">{SOURCE_TEXT[info.source]}</strong>
          {info.clientId && (
            <span>
              Client ID <code data-testid="cred-client-id">{info.clientId}</code>
            </span>
          )}
          {info.source === 'env' && <span className="muted">TAGSMITH_CLIENT_ID and TAGSMITH_CLIENT_SECRET are set; unset them to store credentials here.</span>}
          {info.source === 'none' && <span className="muted">Enter them below to keyword, caption and generate with the service.</span>}
          {info.reason && (
            <span className="warn-text" data-testid="cred-reason">
              {info.reason}
            </span>
          )}
        </div>
        {info.configured && !fromEnv && (
          <Button small variant="ghost" onClick={() => setConfirmRemove(true)} data-testid="cred-remove">
            Remove
          </Button>
        )}
      </div>
      {!fromEnv && (
        <form className="form" onSubmit={(e) => void save(e)} autoComplete="off" data-testid="cred-form">
          <label className="form-row">
            <span className="form-label">Client ID</span>
            <input
              type="text"
              value={clientId}
              onChange={(e) => setClientId(e.target.value)}
              spellCheck={false}
              autoComplete="off"
              aria-invalid={problem?.field === 'clientId'}
              data-testid="cred-client-id-input"
            />
          </label>
          <label className="form-row">
            <span className="form-label">Secret Key</span>
            <input
              type="password"
              value={secret}
              onChange={(e) => setSecret(e.target.value)}
              placeholder={info.configured ? 'Enter a new Secret Key to replace the stored one' : ''}
              spellCheck={false}
              autoComplete="new-password"
              aria-invalid={problem?.field === 'clientSecret'}
              data-testid="cred-secret-input"
            />
          </label>
          <div className="form-row">
            <span className="form-label" />
            <div className="form-actions">
              <Button type="submit" variant="primary" disabled={saving} data-testid="cred-save">
                {saving && <Spinner label="Saving" />}
                {info.configured ? 'Replace credentials' : 'Save credentials'}
              </Button>
              {problem && (
                <span className="error-text" role="alert" data-testid="cred-error">
                  {problem.message}
                </span>
              )}
            </div>
          </div>
        </form>
      )}
      {confirmRemove && (
        <ConfirmDialog title="Remove the credentials?" confirmLabel="Remove" danger testId="confirm-cred-remove" onCancel={() => setConfirmRemove(false)} onConfirm={() => void remove()}>
          <p>
            Tagsmith forgets the key pair{info.source === 'keychain' ? ' and deletes it from the system keychain' : ''}. Work that needs the service waits until you enter credentials
            again.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}

function ServiceAddress({ settings, onChange }: { settings: ServiceSettings; onChange(s: ServiceSettings): void }) {
  const { api } = useClient();
  const [draft, setDraft] = useState(settings.baseUrl);
  const [base, setBase] = useState(settings.baseUrl);
  const [problem, setProblem] = useState<string | null>(null);
  if (base !== settings.baseUrl) {
    setBase(settings.baseUrl);
    setDraft(settings.baseUrl);
  }
  const apply = async (baseUrl: string | null) => {
    setProblem(null);
    try {
      onChange(await api.setServiceUrl({ baseUrl }));
    } catch (err) {
      setProblem(errorText(err));
    }
  };
  const isDefault = settings.baseUrl === settings.defaultBaseUrl;
  return (
    <section className="card" data-testid="settings-address">
      <header className="card-head">
        <h2>Service address</h2>
      </header>
      <form
        className="form"
        onSubmit={(e) => {
          e.preventDefault();
          const url = draft.trim();
          if (!url) return setProblem('Enter the address, or choose Restore default.');
          void apply(url);
        }}
      >
        <label className="form-row">
          <span className="form-label">Base URL</span>
          <input type="text" value={draft} onChange={(e) => setDraft(e.target.value)} spellCheck={false} aria-invalid={!!problem} data-testid="service-url-input" />
        </label>
        <div className="form-row">
          <span className="form-label" />
          <div className="form-actions">
            <Button type="submit" disabled={draft.trim() === settings.baseUrl} data-testid="service-url-save">
              Save address
            </Button>
            <Button variant="ghost" disabled={isDefault} onClick={() => void apply(null)} data-testid="service-url-default">
              Restore default
            </Button>
            {problem ? (
              <span className="error-text" role="alert" data-testid="service-url-error">
                {problem}
              </span>
            ) : (
              <span className="muted small" data-testid="service-url-current">
                {isDefault ? 'The service’s standard address.' : `Default: ${settings.defaultBaseUrl}`}
              </span>
            )}
          </div>
        </div>
      </form>
    </section>
  );
}

function Connection({ verdict, onVerdict, configured }: { verdict: ConnectionVerdict | null; onVerdict(v: ConnectionVerdict | null): void; configured: boolean }) {
  const { api } = useClient();
  const [testing, setTesting] = useState(false);
  const test = async () => {
    setTesting(true);
    onVerdict(null);
    try {
      onVerdict(await api.testConnection());
    } catch (err) {
      onVerdict({ ok: false, kind: 'internal', message: errorText(err) });
    } finally {
      setTesting(false);
    }
  };
  return (
    <section className="card" data-testid="settings-connection">
      <header className="card-head">
        <h2>Connection</h2>
        <span className="muted small">A free check of the address and the credentials; nothing is billed.</span>
      </header>
      <div className="connection">
        <Button onClick={() => void test()} disabled={testing} data-testid="test-connection">
          {testing && <Spinner label="Testing" />}
          Test connection
        </Button>
        {verdict && (
          <div className={`verdict ${verdict.ok ? 'verdict-ok' : 'verdict-bad'}`} role="status" data-testid="connection-verdict" data-ok={verdict.ok} data-kind={verdict.kind}>
            {verdict.ok ? <IconCheck /> : <IconWarn />}
            <span>
              {!verdict.ok && <strong>{verdict.kind === 'credentials' && !configured ? 'No credentials.' : (VERDICT_TITLE[verdict.kind] ?? 'Not connected.')} </strong>}
              {verdict.message}
            </span>
          </div>
        )}
      </div>
    </section>
  );
}

const VERDICT_TITLE: Record<string, string> = {
  credentials: 'Credentials rejected.',
  offline: 'Cannot reach the service.',
  quota: 'Quota used up.',
  rate_limited: 'The service is busy.',
  service: 'The service has a problem.',
  internal: 'The test failed.',
};
