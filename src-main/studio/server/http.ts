import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { log } from '../../core/log';
import { MIN_PROTOCOL, PROTOCOL, PROTOCOL_HEADER, tokenStudio, type ChangeIn, type ClaimAnswer, type ErrorAnswer, type SharedResult, type SlotAnswer, type HelloAnswer, type LeaseAnswer, type UsageAnswer, type UsageRow, type StudioCaps, type LoginAnswer, type LoginRequest, type Role } from '../protocol';
import { AccountError, addUser, checkLogin, closeSession, findSession, listUsers, openSession, type Session } from './accounts';
import { MAX_KEYS, SharedAccountHub } from './account';
import { ChangeConflict, ChangeLog } from './changes';
import { LeaseHub, MAX_LEASE_KEY } from './leases';
import { ENDPOINTS } from '../../service/endpoints';
import type { TlsIdentity } from './identity';
import { LoginLimiter } from './login-limit';
import type { StudioStore } from './store';
import { addVolume, listVolumes } from './volumes';

// `tagsmith serve`'s HTTPS endpoint. JSON in, JSON out; every refusal is an ErrorAnswer with a
// message a person can act on. Logged: method, path, status and user, never a body, a password
// or a token.

const MAX_BODY = 16 * 1024 * 1024;
const MAX_PUSH = 5000;
const MAX_WAIT_S = 30;

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface StudioServer {
  url: string;
  fingerprint: string;
  server: Server;
  close(): Promise<void>;
}

export interface ServeOptions {
  host: string;
  port: number;
  tls: TlsIdentity;
  limiter?: LoginLimiter;
  /** how long a lease lasts unless renewed (`--lease-seconds`; 60 s) */
  leaseMs?: number;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new HttpError(413, 'too_large', 'The request is larger than the server accepts (16 MB); send fewer changes at a time.');
    chunks.push(chunk as Buffer);
  }
  if (!size) return {};
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new HttpError(400, 'bad_json', 'The request body is not JSON.');
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function loginRequest(v: unknown): LoginRequest {
  const d = isObject(v) && isObject(v.device) ? v.device : null;
  if (!isObject(v) || typeof v.user !== 'string' || typeof v.password !== 'string' || !d || typeof d.id !== 'string' || typeof d.name !== 'string' || !/^[\w-]{8,64}$/.test(d.id)) {
    throw new HttpError(400, 'bad_request', 'A sign-in needs a user, a password and the device (id and name).');
  }
  return { user: v.user, password: v.password, device: { id: d.id, name: d.name.slice(0, 200) } };
}

function pushRequest(v: unknown): ChangeIn[] {
  const list = isObject(v) ? v.changes : null;
  if (!Array.isArray(list)) throw new HttpError(400, 'bad_request', 'A push needs a list of changes.');
  if (list.length > MAX_PUSH) throw new HttpError(413, 'too_large', `At most ${MAX_PUSH} changes go in one push.`);
  return list.map((c, i) => {
    if (!isObject(c) || !Number.isSafeInteger(c.deviceSeq) || (c.deviceSeq as number) < 1 || typeof c.hlc !== 'string' || !c.hlc || typeof c.kind !== 'string' || !/^[a-z][\w.-]{0,63}$/.test(c.kind) || c.body === undefined) {
      throw new HttpError(400, 'bad_change', `Change ${i + 1} of the push is not a change (it needs deviceSeq, hlc, kind and body).`);
    }
    return { deviceSeq: c.deviceSeq as number, hlc: c.hlc, kind: c.kind, body: c.body };
  });
}

function sharedResults(v: unknown): SharedResult[] {
  const list = isObject(v) ? v.results : null;
  if (!Array.isArray(list) || list.length > MAX_KEYS) throw new HttpError(400, 'bad_request', `Results go as a list of at most ${MAX_KEYS}.`);
  return list.map((r, i) => {
    if (!isObject(r) || typeof r.key !== 'string' || !r.key || typeof r.endpoint !== 'string' || typeof r.contentHash !== 'string' || r.result === undefined) {
      throw new HttpError(400, 'bad_result', `Result ${i + 1} is not a result (it needs key, endpoint, contentHash, params and result).`);
    }
    return { key: r.key, endpoint: r.endpoint, contentHash: r.contentHash, params: r.params ?? {}, result: r.result };
  });
}

/** A lease's key: a file (`file:…`) or one of the service's one-at-a-time lanes (`lane:tts`). */
function leaseKeyOf(v: unknown): string {
  const key = isObject(v) && typeof v.key === 'string' ? v.key : '';
  const lanes = new Set(Object.values(ENDPOINTS).map((e) => e.serialGroup).filter(Boolean));
  const ok = key.length <= MAX_LEASE_KEY && ((key.startsWith('file:') && key.length > 5) || (key.startsWith('lane:') && lanes.has(key.slice(5) as never)));
  if (!ok) throw new HttpError(400, 'bad_request', 'A lease is on a file (file:…) or on one of the service’s one-at-a-time lanes (lane:tts, lane:lipsync, lane:faceswap).');
  return key;
}

const isCount = (v: unknown): boolean => v === null || v === undefined || (typeof v === 'number' && Number.isFinite(v) && v >= 0);

function usageRows(v: unknown): UsageRow[] {
  const list = isObject(v) ? v.rows : null;
  if (!Array.isArray(list) || list.length > MAX_KEYS) throw new HttpError(400, 'bad_request', `Billed counts go as a list of at most ${MAX_KEYS}.`);
  return list.map((r, i) => {
    if (!isObject(r) || typeof r.billingKey !== 'string' || !r.billingKey || typeof r.day !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(r.day) || !Number.isSafeInteger(r.calls) || (r.calls as number) < 0) {
      throw new HttpError(400, 'bad_usage', `Billed count ${i + 1} needs billingKey, day (YYYY-MM-DD) and calls.`);
    }
    return { billingKey: r.billingKey, day: r.day, calls: r.calls as number };
  });
}

function studioCaps(v: unknown): StudioCaps | null {
  const c = isObject(v) ? v.caps : undefined;
  if (c === null) return null;
  if (!isObject(c)) throw new HttpError(400, 'bad_request', 'Caps go as { dailyCalls, monthlyCalls, dailySpend, monthlySpend } (each a number of 0 or more, or null for none), or null for no studio caps.');
  const out: StudioCaps = {};
  for (const k of ['dailyCalls', 'monthlyCalls', 'dailySpend', 'monthlySpend'] as const) {
    if (!isCount(c[k])) throw new HttpError(400, 'bad_request', `${k}: a number of 0 or more, or null for none.`);
    if (typeof c[k] === 'number') out[k] = c[k] as number;
  }
  return Object.keys(out).length ? out : null;
}

function keyOf(v: unknown): string {
  if (!isObject(v) || typeof v.key !== 'string' || !v.key) throw new HttpError(400, 'bad_request', 'A result key is needed.');
  return v.key;
}

/** An AbortSignal that fires when the client goes away while the server waits for it. */
function whileConnected(req: IncomingMessage, open: Set<AbortController>): { signal: AbortSignal; done(): void } {
  const ac = new AbortController();
  open.add(ac);
  const gone = () => ac.abort();
  req.once('close', gone);
  return { signal: ac.signal, done: () => { open.delete(ac); req.off('close', gone); } };
}

const needRole = (s: Session, roles: readonly Role[], what: string): void => {
  if (!roles.includes(s.user.role)) throw new HttpError(403, 'forbidden', `${s.user.name} is a ${s.user.role} in this studio and cannot ${what}. An admin can change the role.`);
};

export async function startStudioServer(store: StudioStore, opts: ServeOptions): Promise<StudioServer> {
  const studio = await store.studio();
  const changes = new ChangeLog(store);
  const account = new SharedAccountHub(store);
  const leases = new LeaseHub(store, opts.leaseMs);
  const limiter = opts.limiter ?? new LoginLimiter();
  const open = new Set<AbortController>();

  async function session(req: IncomingMessage): Promise<Session> {
    const auth = req.headers.authorization ?? '';
    const token = auth.startsWith('Bearer ') ? auth.slice(7).trim() : '';
    if (!token) throw new HttpError(401, 'signed_out', 'Not signed in to this studio: join it again (tagsmith studio join).');
    if (tokenStudio(token) !== studio.id) throw new HttpError(401, 'other_studio', `This sign-in belongs to another studio, not “${studio.name}”: join this studio to work with it.`);
    const s = await findSession(store, token);
    if (!s) throw new HttpError(401, 'signed_out', 'This sign-in has ended (signed out, password changed or user removed): join the studio again.');
    return s;
  }

  async function route(req: IncomingMessage, res: ServerResponse, url: URL, who: { name?: string }): Promise<unknown> {
    const key = `${req.method} ${url.pathname}`;
    if (key === 'GET /v1/hello') return { studio, protocol: PROTOCOL, minProtocol: MIN_PROTOCOL } satisfies HelloAnswer;
    if (key === 'POST /v1/login') {
      const body = loginRequest(await readJson(req));
      const address = req.socket.remoteAddress ?? '?';
      const wait = limiter.waitFor(body.user, address);
      if (wait > 0) {
        res.setHeader('retry-after', String(Math.ceil(wait / 1000)));
        throw new HttpError(429, 'too_many_attempts', `Too many failed sign-ins for “${body.user}”: try again in ${Math.ceil(wait / 1000)} s.`);
      }
      const user = await checkLogin(store, body.user, body.password);
      if (!user) {
        limiter.failed(body.user, address);
        throw new HttpError(401, 'wrong_password', `The user name or password is wrong for studio “${studio.name}”.`);
      }
      limiter.succeeded(body.user);
      who.name = user.name;
      const token = await openSession(store, studio.id, user, body.device);
      return { token, user: { name: user.name, role: user.role }, studio } satisfies LoginAnswer;
    }
    const s = await session(req);
    who.name = s.user.name;
    if (key === 'POST /v1/logout') {
      await closeSession(store, (req.headers.authorization ?? '').slice(7).trim());
      return { signedOut: true };
    }
    if (key === 'GET /v1/me') return { user: { name: s.user.name, role: s.user.role }, deviceId: s.deviceId, studio, head: await changes.head() };
    if (key === 'POST /v1/changes') {
      needRole(s, ['admin', 'editor'], 'change the library');
      const list = pushRequest(await readJson(req));
      try {
        return await changes.push(s, list);
      } catch (err) {
        if (err instanceof ChangeConflict) throw new HttpError(409, 'change_conflict', err.message);
        throw err;
      }
    }
    if (key === 'GET /v1/changes') {
      const after = Number(url.searchParams.get('after') ?? '0');
      const limit = Number(url.searchParams.get('limit') ?? '1000');
      const wait = Math.min(MAX_WAIT_S, Number(url.searchParams.get('wait') ?? '0'));
      if (!Number.isSafeInteger(after) || after < 0 || !Number.isSafeInteger(limit) || limit < 1 || !Number.isFinite(wait) || wait < 0) throw new HttpError(400, 'bad_request', 'after, limit and wait must be whole numbers.');
      const pushes = changes.pushes;
      let page = await changes.pull(after, limit);
      if (!page.changes.length && wait > 0) {
        const ac = new AbortController();
        open.add(ac);
        req.once('close', () => ac.abort());
        try {
          await changes.waitForNew(wait * 1000, ac.signal, pushes);
        } finally {
          open.delete(ac);
        }
        page = await changes.pull(after, limit);
      }
      return page;
    }
    if (key === 'POST /v1/results/lookup') {
      const b = await readJson(req);
      const keys = isObject(b) && Array.isArray(b.keys) ? b.keys : null;
      if (!keys || keys.length > MAX_KEYS || !keys.every((k) => typeof k === 'string')) throw new HttpError(400, 'bad_request', `Ask for at most ${MAX_KEYS} result keys at a time.`);
      return { results: await account.lookup(keys as string[]) };
    }
    if (key === 'POST /v1/results/claim') {
      needRole(s, ['admin', 'editor'], 'use the studio\'s service account');
      const b = await readJson(req);
      const k = keyOf(b);
      const wait = Math.min(MAX_WAIT_S, Number((b as Record<string, unknown>).wait ?? 0));
      if (!Number.isFinite(wait) || wait < 0) throw new HttpError(400, 'bad_request', 'wait must be a number of seconds.');
      const w = whileConnected(req, open);
      try {
        return (await account.claim(s, k, wait * 1000, w.signal)) satisfies ClaimAnswer;
      } finally {
        w.done();
      }
    }
    if (key === 'POST /v1/results/release') {
      account.release(s, keyOf(await readJson(req)));
      return { released: true };
    }
    if (key === 'POST /v1/results') {
      needRole(s, ['admin', 'editor'], 'use the studio\'s service account');
      return { stored: await account.share(s, sharedResults(await readJson(req))) };
    }
    if (key === 'POST /v1/account/slot') {
      needRole(s, ['admin', 'editor'], 'use the studio\'s service account');
      const b = await readJson(req);
      const rateKey = isObject(b) && typeof b.rateKey === 'string' ? b.rateKey : '';
      if (!SharedAccountHub.knows(rateKey)) throw new HttpError(400, 'bad_request', `The service has no rate limit named “${rateKey}”.`);
      const w = whileConnected(req, open);
      try {
        return { slot: await account.slot(rateKey, MAX_WAIT_S * 1000, w.signal) } satisfies SlotAnswer;
      } finally {
        w.done();
      }
    }
    if (key === 'POST /v1/account/release') {
      const b = await readJson(req);
      if (isObject(b) && typeof b.slot === 'string') account.releaseSlot(b.slot);
      return { released: true };
    }
    if (key === 'POST /v1/leases/take' || key === 'POST /v1/leases/renew') {
      const b = await readJson(req);
      const k = leaseKeyOf(b);
      const id = isObject(b) && typeof b.id === 'string' && b.id ? b.id : undefined;
      if (key === 'POST /v1/leases/renew') {
        if (!id) throw new HttpError(400, 'bad_request', 'A renewal names its lease (id).');
        return (await leases.renew(s, k, id)) satisfies LeaseAnswer;
      }
      const wait = Math.min(MAX_WAIT_S, Number((b as Record<string, unknown>).wait ?? 0));
      if (!Number.isFinite(wait) || wait < 0) throw new HttpError(400, 'bad_request', 'wait must be a number of seconds.');
      const w = whileConnected(req, open);
      try {
        return (await leases.take(s, k, wait * 1000, w.signal)) satisfies LeaseAnswer;
      } finally {
        w.done();
      }
    }
    if (key === 'POST /v1/leases/release') {
      const b = await readJson(req);
      const k = leaseKeyOf(b);
      if (isObject(b) && typeof b.id === 'string') leases.release(s, k, b.id);
      return { released: true };
    }
    if (key === 'POST /v1/account/usage') {
      const b = await readJson(req);
      const month = isObject(b) && typeof b.month === 'string' && /^\d{4}-\d{2}$/.test(b.month) ? b.month : null;
      if (!month) throw new HttpError(400, 'bad_request', 'Billed counts are asked for a month (YYYY-MM).');
      const rows = usageRows(b);
      if (rows.length) needRole(s, ['admin', 'editor'], 'use the studio\'s service account');
      return (await account.usage(s, month, rows)) satisfies UsageAnswer;
    }
    if (key === 'POST /v1/account/caps') {
      needRole(s, ['admin'], 'set the studio’s caps');
      const caps = studioCaps(await readJson(req));
      await account.setCaps(caps);
      return { caps };
    }
    if (key === 'GET /v1/volumes') return { volumes: await listVolumes(store) };
    if (key === 'POST /v1/volumes') {
      needRole(s, ['admin', 'editor'], 'share a disk with the studio');
      const b = await readJson(req);
      const v = isObject(b) && isObject(b.volume) ? b.volume : null;
      if (!v || typeof v.id !== 'string' || typeof v.name !== 'string' || typeof v.path !== 'string' || !v.id || !v.name.trim() || !v.path) throw new HttpError(400, 'bad_request', 'A volume needs an id, a name and a path.');
      return { volume: await addVolume(store, s, { id: v.id, name: v.name.trim(), path: v.path }) };
    }
    if (key === 'GET /v1/users') {
      needRole(s, ['admin'], 'manage users');
      return { users: await listUsers(store) };
    }
    if (key === 'POST /v1/users') {
      needRole(s, ['admin'], 'manage users');
      const b = await readJson(req);
      if (!isObject(b) || typeof b.name !== 'string' || typeof b.role !== 'string' || typeof b.password !== 'string') throw new HttpError(400, 'bad_request', 'A new user needs a name, a role and a password.');
      return { user: await addUser(store, b.name, b.role, b.password) };
    }
    throw new HttpError(404, 'not_found', `The studio server has no ${key}.`);
  }

  const server = createServer({ cert: opts.tls.cert, key: opts.tls.key, minVersion: 'TLSv1.2' }, (req, res) => {
    const url = new URL(req.url ?? '/', 'https://studio');
    const who: { name?: string } = {};
    const send = (status: number, body: unknown) => {
      res.statusCode = status;
      res.setHeader('content-type', 'application/json; charset=utf-8');
      res.setHeader(PROTOCOL_HEADER, String(PROTOCOL));
      res.end(JSON.stringify(body));
      log.info(`studio ${req.method} ${url.pathname} ${status}${who.name ? ` ${who.name}` : ''}`);
    };
    const theirs = Number(req.headers[PROTOCOL_HEADER]);
    if (!Number.isInteger(theirs)) {
      send(400, { error: { code: 'not_tagsmith', message: 'This is a Tagsmith studio server: connect to it from Tagsmith.' } } satisfies ErrorAnswer);
      return;
    }
    if (theirs < MIN_PROTOCOL || theirs > PROTOCOL) {
      const message = theirs < MIN_PROTOCOL
        ? `This Tagsmith is too old for the studio server (it speaks protocol ${theirs}; the server needs ${MIN_PROTOCOL} to ${PROTOCOL}): update Tagsmith.`
        : `The studio server is older than this Tagsmith (it speaks protocol up to ${PROTOCOL}; this Tagsmith speaks ${theirs}): ask the studio's admin to update the server.`;
      send(426, { error: { code: 'protocol', message } } satisfies ErrorAnswer);
      return;
    }
    route(req, res, url, who).then(
      (body) => send(200, body),
      (err: unknown) => {
        if (err instanceof HttpError) send(err.status, { error: { code: err.code, message: err.message } } satisfies ErrorAnswer);
        else if (err instanceof AccountError) send(400, { error: { code: err.code, message: err.message } } satisfies ErrorAnswer);
        else {
          log.error(`studio ${req.method} ${url.pathname} failed`, err);
          send(500, { error: { code: 'server', message: 'The studio server could not do this (its log says why); try again, and tell the admin if it keeps happening.' } } satisfies ErrorAnswer);
        }
      },
    );
  });
  // Clients keep their connection open between requests and close it after 4 s idle: the
  // server waits longer, so it is never the one closing a connection a request is on its way on.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 70_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return {
    url: `https://${host}:${addr.port}`,
    fingerprint: opts.tls.fingerprint,
    server,
    close: async () => {
      for (const ac of open) ac.abort();
      account.close();
      leases.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
