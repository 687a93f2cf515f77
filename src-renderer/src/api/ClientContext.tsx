import { createContext, useContext, useMemo, type ReactNode } from 'react';
import type { Client } from './client';
import { QueryCache } from './queryCache';

interface ClientValue {
  api: Client;
  cache: QueryCache;
  mediaUrl(token: string): string;
}

const Ctx = createContext<ClientValue | null>(null);

export function ClientProvider({ api, children }: { api: Client; children: ReactNode }) {
  const value = useMemo<ClientValue>(
    () => ({ api, cache: new QueryCache(api), mediaUrl: (token) => api.mediaBase + token }),
    [api],
  );
  return <Ctx.Provider value={value}>{children}</Ctx.Provider>;
}

export function useClient(): ClientValue {
  const value = useContext(Ctx);
  if (!value) throw new Error('useClient() outside <ClientProvider>');
  return value;
}
