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

export interface SavedBounds {
  x?: number;
  y?: number;
  width: number;
  height: number;
  maximized?: boolean;
}

interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * The window as it was left, if it still fits: a size at least the minimum, and a position
 * whose title bar is on one of today's displays (a monitor unplugged since would leave the
 * window out of reach: then the size is kept and the position left to the system).
 */
export function restoredBounds(saved: SavedBounds | null, workAreas: readonly Rect[]): { bounds: Partial<Rect> & { width: number; height: number }; maximized: boolean } | null {
  if (!saved || !Number.isFinite(saved.width) || !Number.isFinite(saved.height)) return null;
  const width = Math.max(960, Math.round(saved.width));
  const height = Math.max(600, Math.round(saved.height));
  const maximized = saved.maximized === true;
  if (saved.x === undefined || saved.y === undefined) return { bounds: { width, height }, maximized };
  const titleBar = { x: saved.x, y: saved.y, width, height: 32 };
  const visible = workAreas.some(
    (a) => titleBar.x < a.x + a.width - 64 && titleBar.x + titleBar.width > a.x + 64 && titleBar.y >= a.y && titleBar.y < a.y + a.height - 32,
  );
  return visible ? { bounds: { x: Math.round(saved.x), y: Math.round(saved.y), width, height }, maximized } : { bounds: { width, height }, maximized };
}
