import { describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY, isTrustedSender, mainWindowOptions } from '../../src-main/window';

describe('the window is locked down', () => {
  it('isolates and sandboxes the renderer with no Node', () => {
    const prefs = mainWindowOptions('/app/preload/index.cjs').webPreferences!;
    expect(prefs).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      webviewTag: false,
      allowRunningInsecureContent: false,
    });
  });

  it('has a strict CSP: own scripts only, no plugins, media only from the app protocol', () => {
    expect(CONTENT_SECURITY_POLICY).toContain("default-src 'self'");
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(CONTENT_SECURITY_POLICY).toContain("object-src 'none'");
    expect(CONTENT_SECURITY_POLICY).not.toContain('unsafe-eval');
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/script-src[^;]*unsafe-inline/);
  });

  it('accepts Api calls only from the app page', () => {
    const file = 'file:///opt/tagsmith/out/renderer/index.html';
    expect(isTrustedSender(file, file)).toBe(true);
    expect(isTrustedSender('file:///tmp/evil.html', file)).toBe(false);
    expect(isTrustedSender('https://example.com/', file)).toBe(false);
    expect(isTrustedSender(undefined, file)).toBe(false);
    expect(isTrustedSender('http://localhost:5173/index.html', 'http://localhost:5173/')).toBe(true);
    expect(isTrustedSender('http://localhost:5174/', 'http://localhost:5173/')).toBe(false);
  });
});
