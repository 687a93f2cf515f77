import { Agent, request } from 'node:https';
import { connect, type TLSSocket } from 'node:tls';
import { PROTOCOL, PROTOCOL_HEADER, type ErrorAnswer, type HelloAnswer } from './protocol';

// A replica's connection to its studio server. Always HTTPS, and the server is known by the
// SHA-256 of its certificate, pinned when the library joined (as SSH pins host keys): a server
// showing another certificate is refused during the handshake, before a token or password is
// sent. First contact (`probe`) sends nothing but the protocol check.

const SILENCE_MS = 60_000;
/** a kept-alive connection left idle this long is closed (the server's own limit is 5 s) */
const IDLE_MS = 4_000;

export class StudioError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'StudioError';
  }
}

/** A kept-alive connection that was closed before the request reached the server. */
class StaleConnection extends Error {}

export interface Probe {
  fingerprint: string;
  hello: HelloAnswer;
}

/** The server's address, checked: https only, no path. */
export function studioUrl(text: string): URL {
  let u: URL;
  try {
    u = new URL(text.includes('://') ? text : `https://${text}`);
  } catch {
    throw new StudioError('bad_url', `“${text}” is not a server address: give it as https://HOST:PORT.`);
  }
  if (u.protocol !== 'https:') throw new StudioError('bad_url', `Studio servers are reached over HTTPS only: use https://${u.host}.`);
  return new URL(u.origin);
}

function refusal(fp: string, pin: string): StudioError {
  return new StudioError('certificate_changed', `The studio server's certificate has changed (it shows ${fp}; this library trusts ${pin}). Nothing was sent. If the studio's admin replaced the certificate on purpose, leave the studio and join it again; otherwise someone may be in between.`);
}

function makeAgent(pin: string | null, keepAlive: boolean, seen: { fingerprint?: string }): Agent {
  const agent = new Agent(keepAlive ? { keepAlive, timeout: IDLE_MS } : { keepAlive });
  // The socket is handed to the request only once its certificate is checked, so no byte of
  // the request (a token, a password) goes to a server with another certificate. Every new
  // connection is checked; a kept-alive one is checked again before it carries another request.
  (agent as unknown as { createConnection: unknown }).createConnection = (opts: { host: string; port: number; servername?: string }, done: (err: Error | null, s?: TLSSocket) => void) => {
    const socket = connect({ host: opts.host, port: opts.port, servername: opts.servername, rejectUnauthorized: false });
    socket.once('secureConnect', () => {
      const fp = socket.getPeerCertificate().fingerprint256;
      seen.fingerprint = fp;
      if (pin !== null && fp !== pin) {
        socket.destroy();
        done(refusal(fp, pin));
        return;
      }
      done(null, socket);
    });
    socket.once('error', (err) => done(new StudioError('unreachable', `Cannot reach the studio server at ${opts.host}:${opts.port}: ${err.message}.`)));
  };
  if (keepAlive && pin !== null) {
    const reuse = agent.reuseSocket.bind(agent) as (socket: TLSSocket, req: unknown) => void;
    (agent as unknown as { reuseSocket: unknown }).reuseSocket = (socket: TLSSocket, req: unknown) => {
      const fp = socket.getPeerCertificate()?.fingerprint256;
      if (fp !== pin) socket.destroy(refusal(fp ?? 'no certificate', pin));
      reuse(socket, req);
    };
  }
  return agent;
}

// One kept-alive agent per server and pinned certificate, shared by every client of this
// process (a sync, the live pull, leases, the shared account): a request reuses an open TLS
// connection instead of a handshake each time. Idle connections do not keep a process alive
// (the agent unrefs them) and close after IDLE_MS.
const agents = new Map<string, Agent>();

function pinnedAgent(url: URL, pin: string): Agent {
  const key = `${url.host} ${pin}`;
  let agent = agents.get(key);
  if (!agent) {
    agent = makeAgent(pin, true, {});
    agents.set(key, agent);
  }
  return agent;
}

/** Close every kept-alive connection to studio servers (leaving a studio, quitting). */
export function closeStudioConnections(): void {
  for (const a of agents.values()) a.destroy();
  agents.clear();
}

export class StudioClient {
  constructor(
    readonly url: URL,
    /** the pinned certificate's SHA-256; null only for first contact (probe) */
    readonly pin: string | null,
    private token: string | null = null,
  ) {}

  setToken(token: string | null): void {
    this.token = token;
  }

  /** First contact: the server's certificate fingerprint and its hello, nothing else sent. */
  static async probe(url: URL): Promise<Probe> {
    const seen: { fingerprint?: string } = {};
    const hello = await new StudioClient(url, null).call<HelloAnswer>('GET', '/v1/hello', undefined, seen);
    return { fingerprint: seen.fingerprint!, hello };
  }

  call<T>(method: 'GET' | 'POST', path: string, body?: unknown, seen: { fingerprint?: string } = {}, signal?: AbortSignal): Promise<T> {
    // A kept-alive connection the server closed just as this request went out fails before any
    // answer: sent again once on a new connection (the server never saw it; a push is applied
    // once by its device and sequence anyway).
    return this.once<T>(method, path, body, seen, signal).catch((err: unknown) => {
      if (err instanceof StaleConnection) return this.once<T>(method, path, body, seen, signal);
      throw err;
    });
  }

  private once<T>(method: 'GET' | 'POST', path: string, body: unknown, seen: { fingerprint?: string }, signal?: AbortSignal): Promise<T> {
    const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    // First contact (no pin yet) uses a connection of its own, closed after the answer.
    const agent = this.pin === null ? makeAgent(null, false, seen) : pinnedAgent(this.url, this.pin);
    const done = () => {
      if (this.pin === null) agent.destroy();
    };
    return new Promise<T>((resolve, reject) => {
      if (signal?.aborted) {
        reject(new StudioError('aborted', 'Stopped.'));
        return;
      }
      const req = request(
        new URL(path, this.url),
        {
          method,
          agent,
          headers: {
            [PROTOCOL_HEADER]: String(PROTOCOL),
            ...(data ? { 'content-type': 'application/json', 'content-length': String(data.length) } : {}),
            ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            done();
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown;
            try {
              parsed = JSON.parse(text);
            } catch {
              reject(new StudioError('not_studio', `${this.url.host} answered, but not as a Tagsmith studio server (HTTP ${res.statusCode}).`, res.statusCode));
              return;
            }
            if (res.statusCode === 200) resolve(parsed as T);
            else {
              const e = (parsed as ErrorAnswer).error;
              reject(new StudioError(e?.code ?? 'error', e?.message ?? `The studio server refused the request (HTTP ${res.statusCode}).`, res.statusCode));
            }
          });
          res.on('error', (err) => reject(new StudioError('cut', `The connection to the studio server was cut: ${err.message}.`)));
        },
      );
      let answered = false;
      req.on('response', () => (answered = true));
      req.on('error', (err) => {
        done();
        if (req.reusedSocket && !answered && !signal?.aborted && !(err instanceof StudioError) && ((err as NodeJS.ErrnoException).code === 'ECONNRESET' || err.message === 'socket hang up')) reject(new StaleConnection());
        else if (signal?.aborted) reject(new StudioError('aborted', 'Stopped.'));
        else reject(err instanceof StudioError ? err : new StudioError('unreachable', `Cannot reach the studio server at ${this.url.host}: ${err.message}.`));
      });
      signal?.addEventListener('abort', () => req.destroy(), { once: true });
      // A network that swallows packets must not hold a sync for ever: no byte for a minute
      // (longer than the server's longest wait, 30 s) ends the call as unreachable.
      req.setTimeout(SILENCE_MS, () => req.destroy(new StudioError('unreachable', `The studio server at ${this.url.host} stopped answering.`)));
      req.end(data);
    });
  }
}
