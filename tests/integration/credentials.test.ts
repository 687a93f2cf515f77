// Credentials in the real OS keychain (run under scripts/with-keyring.sh for a headless Secret
// Service), the env override that never touches the keychain, and the session-only fallback.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CredentialStore, osKeychain, type KeychainBackend } from '../../src-main/credentials';

const run = promisify(execFile);
const SERVICE = `tagsmith-test-${randomBytes(4).toString('hex')}`;

async function secretServiceReason(): Promise<string | null> {
  const probe = osKeychain(SERVICE, 'probe');
  try {
    await probe.set('x');
    const v = await probe.get();
    await probe.delete();
    return v === 'x' ? null : 'the keychain did not read back what was stored';
  } catch (e) {
    return (e as Error).message.split('\n')[0];
  }
}

const unreachable = await secretServiceReason();
if (unreachable && process.env.TAGSMITH_REQUIRE_KEYCHAIN === '1') {
  // CI runs the suite under scripts/with-keyring.sh: there a missing keychain is a failure, not a skip.
  throw new Error(`TAGSMITH_REQUIRE_KEYCHAIN=1 but no Secret Service is reachable: ${unreachable}`);
}
if (unreachable) console.log(`Skipping real-keychain tests: no Secret Service reachable (${unreachable}). Run under scripts/with-keyring.sh.`);

describe.skipIf(!!unreachable)('credentials in the OS keychain', () => {
  it('stores, reads back from a fresh store, replaces and removes', async () => {
    const a = new CredentialStore({ env: {}, service: SERVICE });
    expect((await a.status()).source).toBe('none');
    const st = await a.set({ clientId: 'id-1', clientSecret: 's3cret-one' });
    expect(st).toMatchObject({ source: 'keychain', configured: true, clientId: 'id-1', keychain: 'available' });
    expect(JSON.stringify(st)).not.toContain('s3cret-one');
    // A new store (a restart) reads it from the keychain, not from memory.
    const b = new CredentialStore({ env: {}, service: SERVICE });
    expect(await b.get()).toEqual({ clientId: 'id-1', clientSecret: 's3cret-one' });
    // The item really is in the Secret Service.
    const { stdout } = await run('secret-tool', ['lookup', 'service', SERVICE, 'username', 'service-credentials']);
    expect(stdout).toContain('id-1');
    await b.set({ clientId: 'id-2', clientSecret: 'two' });
    expect(await new CredentialStore({ env: {}, service: SERVICE }).get()).toEqual({ clientId: 'id-2', clientSecret: 'two' });
    expect((await b.remove()).source).toBe('none');
    expect(await new CredentialStore({ env: {}, service: SERVICE }).get()).toBeNull();
  });
});

describe('credentials without the keychain', () => {
  const spy = (fail?: string): KeychainBackend & { calls: number } => {
    const b = {
      calls: 0,
      async get() { b.calls++; if (fail) throw new Error(fail); return null; },
      async set() { b.calls++; if (fail) throw new Error(fail); },
      async delete() { b.calls++; if (fail) throw new Error(fail); return true; },
    };
    return b;
  };

  it('TAGSMITH_CLIENT_ID / _SECRET are used and the keychain is not touched', async () => {
    const backend = spy();
    const s = new CredentialStore({ env: { TAGSMITH_CLIENT_ID: 'envid', TAGSMITH_CLIENT_SECRET: 'envsecret' }, backend });
    expect(await s.get()).toEqual({ clientId: 'envid', clientSecret: 'envsecret' });
    const st = await s.status();
    expect(st).toMatchObject({ source: 'env', keychain: 'not_used' });
    expect(JSON.stringify(st)).not.toContain('envsecret');
    await expect(s.set({ clientId: 'a', clientSecret: 'b' })).rejects.toThrow(/TAGSMITH_CLIENT_ID/);
    expect(backend.calls).toBe(0);
  });

  it('no Secret Service: kept for the session only, with the reason', async () => {
    const s = new CredentialStore({ env: {}, backend: spy('org.freedesktop.DBus.Error.ServiceUnknown') });
    const st = await s.set({ clientId: 'sid', clientSecret: 'ssecret' });
    expect(st).toMatchObject({ source: 'session', configured: true, keychain: 'unavailable' });
    expect(st.reason).toMatch(/session only/);
    expect(st.reason).not.toContain('ssecret');
    expect(await s.get()).toEqual({ clientId: 'sid', clientSecret: 'ssecret' });
    expect(await new CredentialStore({ env: {}, backend: spy('no keychain') }).get()).toBeNull();
  });

  it('refuses empty values with the field named', async () => {
    const s = new CredentialStore({ env: {}, backend: spy() });
    await expect(s.set({ clientId: ' ', clientSecret: 'x' })).rejects.toThrow(/Client ID/);
    await expect(s.set({ clientId: 'x', clientSecret: '' })).rejects.toThrow(/Secret/);
  });
});
