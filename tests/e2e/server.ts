import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mimeFor, resolveMediaPath } from '../../src-main/core/media';

// The built renderer over HTTP on 127.0.0.1 (module scripts do not load from file://), and
// media tokens resolved exactly as the Electron protocol handler does: only files under the
// cache and the library's folders, 403/404 for anything else.

export const RENDERER_DIR = fileURLToPath(new URL('../../out/renderer/', import.meta.url));

const STATIC_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
};

export interface StaticServer {
  origin: string;
  close(): Promise<void>;
}

export async function startServer(mediaRoots: () => Promise<string[]>): Promise<StaticServer> {
  if (!existsSync(join(RENDERER_DIR, 'index.html'))) {
    throw new Error(`No built renderer at ${RENDERER_DIR}: run "npx electron-vite build" first (npm run test:e2e does).`);
  }
  const server: Server = createServer((req, res) => {
    handle(req, res, mediaRoots).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(err));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function handle(req: IncomingMessage, res: ServerResponse, mediaRoots: () => Promise<string[]>): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405).end();
    return;
  }
  if (url.pathname.startsWith('/m/')) {
    const resolved = resolveMediaPath(url.pathname, await mediaRoots());
    if (!resolved.ok) {
      res.writeHead(resolved.status, { 'content-type': 'text/plain' }).end(resolved.reason);
      return;
    }
    sendFile(req, res, resolved.path, mimeFor(resolved.path));
    return;
  }
  const rel = url.pathname === '/' ? 'index.html' : decodeURIComponent(url.pathname).replace(/^\/+/, '');
  const file = normalize(join(RENDERER_DIR, rel));
  if (!file.startsWith(RENDERER_DIR.endsWith(sep) ? RENDERER_DIR : RENDERER_DIR + sep) || !existsSync(file) || !statSync(file).isFile()) {
    res.writeHead(404).end('not found');
    return;
  }
  sendFile(req, res, file, STATIC_TYPES[extname(file)] ?? 'application/octet-stream');
}

/** A file, with byte ranges (video elements seek with them). */
function sendFile(req: IncomingMessage, res: ServerResponse, path: string, type: string): void {
  const size = statSync(path).size;
  const range = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? '');
  const headers = { 'content-type': type, 'accept-ranges': 'bytes', 'cache-control': 'no-store' };
  if (range && (range[1] || range[2])) {
    const start = range[1] ? Number(range[1]) : Math.max(0, size - Number(range[2]));
    const end = range[1] && range[2] ? Math.min(Number(range[2]), size - 1) : size - 1;
    if (start >= size || start > end) {
      res.writeHead(416, { 'content-range': `bytes */${size}` }).end();
      return;
    }
    res.writeHead(206, { ...headers, 'content-length': end - start + 1, 'content-range': `bytes ${start}-${end}/${size}` });
    if (req.method === 'HEAD') res.end();
    else createReadStream(path, { start, end }).pipe(res);
    return;
  }
  res.writeHead(200, { ...headers, 'content-length': size });
  if (req.method === 'HEAD') res.end();
  else createReadStream(path).pipe(res);
}
