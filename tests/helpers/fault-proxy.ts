import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

// A TCP proxy on loopback between a client and a server, that passes bytes through untouched
// (TLS included) or cuts connections: for the tests of what a flaky network does to the studio.

export interface FaultProxy {
  /** host:port of the proxy */
  address: string;
  /** how each new connection is treated: the number of bytes (both ways) after which it is cut, or null to pass it whole */
  cutAfter: () => number | null;
  /**
   * asked as bytes pass on a connection that is not being cut: a number cuts it that many bytes
   * later. A client keeps its connections open between requests, so a network that drops takes
   * those down too, not only the next new one.
   */
  cutLive: () => number | null;
  /** called with the bytes sent upstream so far on each connection, as they pass */
  onUpstream: (bytes: number) => void;
  /** connections seen, and how many were cut */
  stats: { connections: number; cut: number };
  close(): Promise<void>;
}

export async function startFaultProxy(target: { host: string; port: number }): Promise<FaultProxy> {
  const sockets = new Set<Socket>();
  const proxy: FaultProxy = {
    address: '',
    cutAfter: () => null,
    cutLive: () => null,
    onUpstream: () => {},
    stats: { connections: 0, cut: 0 },
    close: () => new Promise((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
  const server: Server = createServer((client) => {
    proxy.stats.connections++;
    let limit = proxy.cutAfter();
    const upstream = connect(target.port, target.host);
    sockets.add(client);
    sockets.add(upstream);
    let passed = 0;
    let sentUp = 0;
    const cut = () => {
      proxy.stats.cut++;
      client.destroy();
      upstream.destroy();
    };
    const pass = (from: Socket, to: Socket, up: boolean) =>
      from.on('data', (chunk: Buffer) => {
        if (limit === null) {
          const later = proxy.cutLive();
          if (later !== null) limit = passed + later;
        }
        if (limit !== null && passed + chunk.length > limit) {
          const part = chunk.subarray(0, Math.max(0, limit - passed));
          if (part.length) to.write(part);
          cut();
          return;
        }
        passed += chunk.length;
        to.write(chunk);
        if (up) {
          sentUp += chunk.length;
          proxy.onUpstream(sentUp);
        }
      });
    pass(client, upstream, true);
    pass(upstream, client, false);
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end);
    upstream.on('close', end);
    client.on('error', end);
    upstream.on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  proxy.address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}
