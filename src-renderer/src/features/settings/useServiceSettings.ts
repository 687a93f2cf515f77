import { useCallback, useEffect, useState } from 'react';
import type { CredentialInfo, ServiceSettings } from '../../../../src-preload/contract';
import { useClient } from '../../api/ClientContext';

/** The service address and credential status (never the secret), re-read when Settings opens. */
export function useServiceSettings(active: boolean) {
  const { api } = useClient();
  const [settings, setSettings] = useState<ServiceSettings | undefined>();
  const [error, setError] = useState<Error | undefined>();

  const reload = useCallback(async () => {
    try {
      setSettings(await api.serviceSettings());
      setError(undefined);
    } catch (err) {
      setError(err instanceof Error ? err : new Error(String(err)));
    }
  }, [api]);

  useEffect(() => {
    if (!active) return;
    let live = true;
    api.serviceSettings().then(
      (s) => live && setSettings(s),
      (err: unknown) => live && setError(err instanceof Error ? err : new Error(String(err))),
    );
    return () => {
      live = false;
    };
  }, [active, api]);

  const setCredentialInfo = useCallback((credentials: CredentialInfo) => setSettings((s) => (s ? { ...s, credentials } : s)), []);

  return { settings, error, reload, setSettings, setCredentialInfo };
}
