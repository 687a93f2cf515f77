// Upload accounts of the stock agencies (issue 19): per agency an address (ftp://, ftps:// or
// sftp://HOST[:PORT]/DIR), a user name and a password, kept together in the OS keychain
// (service 'tagsmith', account 'agency:ID'), never in settings or the catalogue.
// TAGSMITH_UPLOAD_USER / TAGSMITH_UPLOAD_PASSWORD, when both are set, stand in for the stored
// user name and password (for scripts and servers without a keychain).
import { KEYCHAIN_SERVICE, osKeychain, type KeychainBackend } from './index';

export interface AgencyAccount {
  /** ftp://HOST[:PORT]/DIR, ftps://… or sftp://…, without user name or password */
  url: string | null;
  user: string;
  password: string;
}

export interface AgencyAccountStatus {
  configured: boolean;
  url: string | null;
  /** a user name is not a secret: shown so the user sees which account is set */
  user: string | null;
  source: 'env' | 'keychain' | 'none';
}

export class AgencyAccountError extends Error {
  override readonly name = 'AgencyAccountError';
}

export class AgencyAccounts {
  private readonly env: NodeJS.ProcessEnv;
  private readonly backend: (agency: string) => KeychainBackend;

  constructor(opts: { env?: NodeJS.ProcessEnv; backend?: (agency: string) => KeychainBackend; service?: string } = {}) {
    this.env = opts.env ?? process.env;
    this.backend = opts.backend ?? ((agency) => osKeychain(opts.service ?? KEYCHAIN_SERVICE, `agency:${agency}`));
  }

  private fromEnv(): { user: string; password: string } | null {
    const user = this.env.TAGSMITH_UPLOAD_USER;
    const password = this.env.TAGSMITH_UPLOAD_PASSWORD;
    return user && password ? { user, password } : null;
  }

  /** What is stored in the keychain for this agency (null: nothing, or no keychain). Throws only on a damaged entry. */
  private async stored(agency: string): Promise<AgencyAccount | null> {
    let raw: string | null;
    try {
      raw = await this.backend(agency).get();
    } catch {
      return null;
    }
    if (!raw) return null;
    try {
      const v = JSON.parse(raw) as Partial<AgencyAccount>;
      if (typeof v.user !== 'string' || typeof v.password !== 'string') return null;
      return { url: typeof v.url === 'string' ? v.url : null, user: v.user, password: v.password };
    } catch {
      return null;
    }
  }

  /** The account to upload with: the environment's user and password (with the stored address), else the keychain's. */
  async get(agency: string): Promise<AgencyAccount | null> {
    const env = this.fromEnv();
    const stored = await this.stored(agency);
    if (env) return { url: stored?.url ?? null, ...env };
    return stored;
  }

  async status(agency: string): Promise<AgencyAccountStatus> {
    const env = this.fromEnv();
    const stored = await this.stored(agency);
    if (env) return { configured: true, url: stored?.url ?? null, user: env.user, source: 'env' };
    return stored ? { configured: true, url: stored.url, user: stored.user, source: 'keychain' } : { configured: false, url: null, user: null, source: 'none' };
  }

  /** Store (replacing) the agency's account. An empty password keeps the stored one (the form never shows it). */
  async set(agency: string, account: AgencyAccount): Promise<AgencyAccountStatus> {
    const user = account.user.trim();
    if (!user) throw new AgencyAccountError('The user name is empty.');
    let password = account.password;
    if (!password) {
      const old = await this.stored(agency);
      if (!old) throw new AgencyAccountError('The password is empty.');
      password = old.password;
    }
    try {
      await this.backend(agency).set(JSON.stringify({ url: account.url, user, password }));
    } catch (e) {
      throw new AgencyAccountError(`No working OS keychain, so the account was not stored (${(e instanceof Error ? e.message : String(e)).split('\n')[0]}). Set TAGSMITH_UPLOAD_USER and TAGSMITH_UPLOAD_PASSWORD instead.`);
    }
    return this.status(agency);
  }

  async remove(agency: string): Promise<AgencyAccountStatus> {
    try {
      await this.backend(agency).delete();
    } catch {
      // nothing stored, or no keychain: either way nothing is left
    }
    return this.status(agency);
  }
}
