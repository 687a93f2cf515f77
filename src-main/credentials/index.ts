// Client ID + Secret: in the OS keychain (service 'tagsmith'), or from TAGSMITH_CLIENT_ID /
// TAGSMITH_CLIENT_SECRET (then the keychain is not touched at all), or — when no keychain
// works (Linux without a Secret Service) — for this session only, with the reason reported.
// Never written to disk in plain text, never in the database, logs, errors or events.
import { AsyncEntry } from '@napi-rs/keyring';
import type { Credentials } from '../service/client';

export type { Credentials } from '../service/client';

export const KEYCHAIN_SERVICE = 'tagsmith';
const ACCOUNT = 'service-credentials';
const KEYCHAIN_TIMEOUT_MS = 10_000;

/** The keychain operations used (replaceable in tests). */
export interface KeychainBackend {
  get(): Promise<string | null>;
  set(value: string): Promise<void>;
  delete(): Promise<boolean>;
}

export function osKeychain(service = KEYCHAIN_SERVICE, account = ACCOUNT): KeychainBackend {
  const entry = () => new AsyncEntry(service, account);
  const timed = <T>(p: (signal: AbortSignal) => Promise<T>): Promise<T> => {
    const ac = new AbortController();
    const t = setTimeout(() => ac.abort(), KEYCHAIN_TIMEOUT_MS);
    return p(ac.signal).finally(() => clearTimeout(t));
  };
  return {
    get: () => timed((s) => entry().getPassword(s)),
    set: (v) => timed((s) => entry().setPassword(v, s)),
    delete: () => timed((s) => entry().deleteCredential(s)),
  };
}

export interface CredentialStatus {
  /** where the credentials in use come from */
  source: 'env' | 'keychain' | 'session' | 'none';
  configured: boolean;
  /** the Client ID is an identifier, not a secret: shown so the user sees which key pair is set */
  clientId: string | null;
  keychain: 'available' | 'unavailable' | 'not_used';
  /** why the keychain is not used (shown to the user), when it is not */
  reason?: string;
}

function readable(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.split('\n')[0].slice(0, 200);
}

function validate(c: Credentials): Credentials {
  const clientId = typeof c?.clientId === 'string' ? c.clientId.trim() : '';
  const clientSecret = typeof c?.clientSecret === 'string' ? c.clientSecret.trim() : '';
  if (!clientId) throw new CredentialsError('clientId', 'The Client ID is empty.');
  if (!clientSecret) throw new CredentialsError('clientSecret', 'The Secret Key is empty.');
  if (clientId.includes(':')) throw new CredentialsError('clientId', 'The Client ID cannot contain ":".');
  return { clientId, clientSecret };
}

export class CredentialsError extends Error {
  override readonly name = 'CredentialsError';
  constructor(readonly field: string | null, message: string) {
    super(message);
  }
}

export class CredentialStore {
  private readonly env: NodeJS.ProcessEnv;
  private readonly backend: KeychainBackend;
  private session: Credentials | null = null;
  private cached: Credentials | null | undefined = undefined;
  private keychainState: 'unknown' | 'available' | 'unavailable' = 'unknown';
  private reason: string | undefined;

  constructor(opts: { env?: NodeJS.ProcessEnv; backend?: KeychainBackend; service?: string } = {}) {
    this.env = opts.env ?? process.env;
    this.backend = opts.backend ?? osKeychain(opts.service ?? KEYCHAIN_SERVICE);
  }

  private fromEnv(): Credentials | null {
    const id = this.env.TAGSMITH_CLIENT_ID?.trim();
    const secret = this.env.TAGSMITH_CLIENT_SECRET?.trim();
    return id && secret ? { clientId: id, clientSecret: secret } : null;
  }

  private markUnavailable(e: unknown): void {
    this.keychainState = 'unavailable';
    this.reason = `No working keychain (${readable(e)}). Credentials are kept for this session only and must be entered again after a restart.`;
  }

  /** The credentials to use now, or null. Reads the keychain once, then keeps them in memory. */
  async get(): Promise<Credentials | null> {
    const env = this.fromEnv();
    if (env) return env;
    if (this.session) return this.session;
    if (this.cached !== undefined) return this.cached;
    if (this.keychainState === 'unavailable') return null;
    try {
      const raw = await this.backend.get();
      this.keychainState = 'available';
      const parsed = raw ? (JSON.parse(raw) as Credentials) : null;
      this.cached = parsed && parsed.clientId && parsed.clientSecret ? { clientId: parsed.clientId, clientSecret: parsed.clientSecret } : null;
      return this.cached;
    } catch (e) {
      this.markUnavailable(e);
      return null;
    }
  }

  /** A getter for ServiceClient's `credentials` option. */
  readonly provider = (): Promise<Credentials | null> => this.get();

  /** Store (replacing any previous pair). Falls back to the session when no keychain works. */
  async set(c: Credentials): Promise<CredentialStatus> {
    if (this.fromEnv()) {
      throw new CredentialsError(null, 'Credentials come from TAGSMITH_CLIENT_ID / TAGSMITH_CLIENT_SECRET; unset them to store credentials in the keychain.');
    }
    const creds = validate(c);
    try {
      await this.backend.set(JSON.stringify(creds));
      this.keychainState = 'available';
      this.reason = undefined;
      this.session = null;
      this.cached = creds;
    } catch (e) {
      this.markUnavailable(e);
      this.session = creds;
    }
    return this.status();
  }

  async remove(): Promise<CredentialStatus> {
    if (this.fromEnv()) {
      throw new CredentialsError(null, 'Credentials come from TAGSMITH_CLIENT_ID / TAGSMITH_CLIENT_SECRET; unset them to log out.');
    }
    this.session = null;
    this.cached = null;
    if (this.keychainState !== 'unavailable') {
      try {
        await this.backend.delete();
        this.keychainState = 'available';
      } catch (e) {
        this.markUnavailable(e);
      }
    }
    return this.status();
  }

  async status(): Promise<CredentialStatus> {
    const env = this.fromEnv();
    if (env) return { source: 'env', configured: true, clientId: env.clientId, keychain: 'not_used', reason: 'TAGSMITH_CLIENT_ID and TAGSMITH_CLIENT_SECRET are set; the keychain is not used.' };
    const c = await this.get();
    const keychain = this.keychainState === 'unavailable' ? 'unavailable' : 'available';
    const source = this.session ? 'session' : c ? 'keychain' : 'none';
    return { source, configured: !!c, clientId: c?.clientId ?? null, keychain, ...(this.reason ? { reason: this.reason } : {}) };
  }
}
