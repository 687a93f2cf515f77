import { createServer, request as httpRequest, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi } from '../../src-main/api';
import { openLibrary } from '../../src-main/library/context';
import { insecureAddressProblem, isLoopbackHost, ServiceClient } from '../../src-main/service/client';
import { ServiceError } from '../../src-main/service/errors';
import { prepareImage } from '../../src-main/service/prepare';
import { startSimulator, type Simulator } from '../simulator/index.js';
import { tagsmithSync } from '../helpers/cli';

// The service client behind a proxy: a real forwarding proxy on loopback (CONNECT tunnels and
// absolute-form requests), named in HTTP_PROXY as a user's environment or the app (from the
// system settings) would; and Basic credentials never offered over plain http to another host.

const creds = { clientId: 'proxy-id', clientSecret: 'proxy-secret' };
let sim: Simulator;
let proxy: Server;
let proxyUrl: string;
const seen: string[] = [];
let dir: string;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, accounts: [creds] });
  proxy = createServer((req, res) => {
    // Absolute-form: "GET http://127.0.0.1:port/path".
    seen.push(`${req.method} ${req.url}`);
    const target = new URL(req.url!);
    const up = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: target.pathname + target.search, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode!, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  proxy.on('connect', (req, socket, head) => {
    seen.push(`CONNECT ${req.url}`);
    const [host, port] = req.url!.split(':');
    const up = connect(Number(port), host, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      up.write(head);
      up.pipe(socket);
      socket.pipe(up);
    });
    up.on('error', () => socket.destroy());
    socket.on('error', () => up.destroy());
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  dir = mkdtempSync(join(tmpdir(), 'tagsmith-proxy-'));
});

afterAll(async () => {
  proxy.closeAllConnections();
  await new Promise((r) => proxy.close(r));
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Run with the proxy variables set as given (and no others), restored after. */
async function withProxyEnv<T>(vars: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  const keys = ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'NO_PROXY', 'no_proxy'];
  const saved = Object.fromEntries(keys.map((k) => [k, process.env[k]]));
  for (const k of keys) delete process.env[k];
  Object.assign(process.env, vars);
  try {
    return await fn();
  } finally {
    for (const k of keys) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  }
}

describe('the service client and proxies', () => {
  it('sends its calls through the proxy named in HTTP_PROXY', async () => {
    const photo = join(dir, 'p.jpg');
    await sharp({ create: { width: 600, height: 400, channels: 3, background: '#406080' } }).jpeg().toFile(photo);
    const simHost = new URL(sim.url).host;
    await withProxyEnv({ HTTP_PROXY: proxyUrl }, async () => {
      const client = new ServiceClient({ baseUrl: sim.url, credentials: creds });
      try {
        seen.length = 0;
        const before = sim.log.length;
        const r = await client.keywords(await prepareImage(photo), { num_keywords: 5 });
        expect(r.keywords.length).toBeGreaterThan(0);
        expect(sim.log.length).toBe(before + 1);
        // undici tunnels through the proxy (CONNECT), also for http.
        expect(seen).toEqual([`CONNECT ${simHost}`]);
      } finally {
        await client.close();
      }
    });
  });

  it('goes direct when NO_PROXY names the host, and without any proxy variable', async () => {
    const photo = join(dir, 'p.jpg');
    const cases: Record<string, string>[] = [{ HTTP_PROXY: proxyUrl, NO_PROXY: '127.0.0.1' }, {}];
    for (const vars of cases) {
      await withProxyEnv(vars, async () => {
        const client = new ServiceClient({ baseUrl: sim.url, credentials: creds });
        try {
          seen.length = 0;
          const r = await client.keywords(await prepareImage(photo), { num_keywords: 5 });
          expect(r.keywords.length).toBeGreaterThan(0);
          expect(seen).toEqual([]);
        } finally {
          await client.close();
        }
      });
    }
  });

  it('fails as offline, not silently direct, when the named proxy is down', async () => {
    const dead = createServer();
    await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
    const deadUrl = `http://127.0.0.1:${(dead.address() as AddressInfo).port}`;
    await new Promise((r) => dead.close(r));
    await withProxyEnv({ HTTP_PROXY: deadUrl }, async () => {
      const client = new ServiceClient({ baseUrl: sim.url, credentials: creds });
      const before = sim.log.length;
      try {
        await expect(client.keywords(await prepareImage(join(dir, 'p.jpg')))).rejects.toBeInstanceOf(ServiceError);
        expect(sim.log.length).toBe(before);
      } finally {
        await client.close();
      }
    });
  });
});

describe('Basic credentials only over https', () => {
  it('refuses plain http to any host but this computer, with a clear message', () => {
    let err: unknown;
    try {
      new ServiceClient({ baseUrl: 'http://api.example.com', credentials: creds });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as ServiceError).kind).toBe('invalid_input');
    expect((err as ServiceError).message).toContain('plain http');
    expect((err as ServiceError).message).toContain('Use https://');
    for (const ok of ['https://api.example.com', 'http://127.0.0.1:8765', 'http://localhost:1', 'http://[::1]:9']) {
      expect(insecureAddressProblem(new URL(ok))).toBeNull();
    }
    for (const bad of ['http://10.0.0.5', 'http://192.168.1.2:80', 'http://localhost.example.com', 'http://128.0.0.1']) {
      expect(insecureAddressProblem(new URL(bad)), bad).not.toBeNull();
    }
    expect(isLoopbackHost('127.10.0.1')).toBe(true);
  });

  it('the CLI refuses --service-url with plain http to another host, saying why (exit 1, nothing sent)', () => {
    const r = tagsmithSync(join(dir, 'clilib'), ['voices'], { serviceUrl: 'http://api.example.com', timeout: 120_000 });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^tagsmith: The service address http:\/\/api\.example\.com uses plain http/);
    expect(r.stderr).not.toContain('unexpected error');
  });

  it('Settings refuses such an address before storing it', async () => {
    const ctx = openLibrary(join(dir, 'lib'));
    const host = createApi(ctx, { watch: false, startQueue: false });
    try {
      const r = await host.invoke('setServiceUrl', { baseUrl: 'http://tagsmith.example.net' });
      expect(r).toMatchObject({ ok: false, error: { kind: 'validation', field: 'baseUrl' } });
      expect((r as { error: { message: string } }).error.message).toContain('plain http');
      expect((await host.api.serviceSettings()).baseUrl).not.toContain('example.net');
      expect(await host.invoke('setServiceUrl', { baseUrl: sim.url })).toMatchObject({ ok: true });
    } finally {
      await host.dispose();
      ctx.db.close();
    }
  });
});
