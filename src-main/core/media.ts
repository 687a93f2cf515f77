import { realpathSync } from 'node:fs';
import { isAbsolute, resolve, sep } from 'node:path';

// Media (thumbnails, previews, originals) reaches the renderer as a token `m/<encoded absolute
// path>`. The renderer prefixes it with its media base: `tsm://app/` under Electron, the
// harness's loopback origin in end-to-end tests. Whoever serves a token resolves it with
// resolveMediaPath, which only ever answers for files under the allowed roots.

export const MEDIA_SCHEME = 'tsm';
const PREFIX = 'm/';

export function mediaToken(absPath: string): string {
  return PREFIX + encodeURIComponent(absPath);
}

export type MediaResolution = { ok: true; path: string } | { ok: false; status: 400 | 403 | 404; reason: string };

/** `pathname` is the URL path after the origin, e.g. '/m/%2Fhome%2Fx.jpg'. */
export function resolveMediaPath(pathname: string, roots: readonly string[]): MediaResolution {
  const trimmed = pathname.replace(/^\/+/, '');
  if (!trimmed.startsWith(PREFIX)) return { ok: false, status: 400, reason: 'not a media token' };
  let decoded: string;
  try {
    decoded = decodeURIComponent(trimmed.slice(PREFIX.length));
  } catch {
    return { ok: false, status: 400, reason: 'malformed media token' };
  }
  if (!isAbsolute(decoded) || decoded.includes('\0')) {
    return { ok: false, status: 400, reason: 'media path must be absolute' };
  }
  const normal = resolve(decoded);
  let real: string;
  try {
    real = realpathSync(normal);
  } catch {
    return { ok: false, status: 404, reason: 'no such file' };
  }
  for (const root of roots) {
    let realRoot: string;
    try {
      realRoot = realpathSync(root);
    } catch {
      continue;
    }
    if (isInside(normal, resolve(root)) && isInside(real, realRoot)) return { ok: true, path: real };
  }
  return { ok: false, status: 403, reason: 'outside the library and cache' };
}

export function isInside(child: string, parent: string): boolean {
  if (child === parent) return true;
  const p = parent.endsWith(sep) ? parent : parent + sep;
  return child.startsWith(p);
}

const MIME: Record<string, string> = {
  jpg: 'image/jpeg', jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp', gif: 'image/gif',
  svg: 'image/svg+xml', avif: 'image/avif',
  mp4: 'video/mp4', m4v: 'video/mp4', mov: 'video/quicktime', webm: 'video/webm', mkv: 'video/x-matroska',
  mp3: 'audio/mpeg', wav: 'audio/wav', m4a: 'audio/mp4', ogg: 'audio/ogg', flac: 'audio/flac',
};

export function mimeFor(path: string): string {
  const ext = path.slice(path.lastIndexOf('.') + 1).toLowerCase();
  return MIME[ext] ?? 'application/octet-stream';
}
