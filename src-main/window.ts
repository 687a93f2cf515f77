import type { BrowserWindowConstructorOptions } from 'electron';

/** The renderer's Content Security Policy, sent as a header and mirrored in index.html. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' tsm: data: blob:",
  "media-src 'self' tsm:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Secure defaults for the one window: isolated, sandboxed, no Node in the renderer. */
export function mainWindowOptions(preloadPath: string): BrowserWindowConstructorOptions {
  return {
    width: 1440,
    height: 900,
    minWidth: 960,
    minHeight: 600,
    show: false,
    backgroundColor: '#1c1c1e',
    title: 'Tagsmith',
    autoHideMenuBar: true,
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      spellcheck: true,
    },
  };
}

/** Only the app's own pages may call the Api: the packaged renderer file or the dev server. */
export function isTrustedSender(frameUrl: string | undefined, rendererUrl: string): boolean {
  if (!frameUrl) return false;
  try {
    const frame = new URL(frameUrl);
    const own = new URL(rendererUrl);
    if (own.protocol === 'file:') return frame.protocol === 'file:' && frame.pathname === own.pathname;
    return frame.origin === own.origin;
  } catch {
    return false;
  }
}
