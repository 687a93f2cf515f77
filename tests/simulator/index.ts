// A loopback HTTP simulator of the media-AI service (interface.md + the vendor's openapi.json).
// Tests start one per file with startSimulator({ port: 0, accounts: [...] }).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import * as analysis from './analysis.js';
import * as tasks from './async-endpoints.js';
import { parseBody, parseDataUri, type ParsedBody } from './body.js';
import { QuotaExhausted, type Handler, type RequestContext } from './context.js';
import { hasEmbeddedMetadata, imageSize, sniffImage } from './media.js';
import { SimClock } from './clock.js';
import { Faults, Gate, Meter, RateLimiter, type FaultSpec, type QuotaSetting } from './meter.js';
import { TaskEngine, type CallbackRecord, type SimTask, type TaskClock } from './tasks.js';
import { Invalid, ServiceError } from './validation.js';

export type { FaultSpec, FaultKind, QuotaSetting, FreeQuota } from './meter.js';
export type { SimTask, TaskStatus, CallbackRecord, TaskClock } from './tasks.js';

export interface Account {
  clientId: string;
  clientSecret: string;
}

export interface SimulatorOptions {
  /** 0 (default) picks a free port */
  port?: number;
  accounts: Account[];
  /** free calls per model (a number: for every model); absent with no balance = unlimited */
  freeQuota?: Record<string, number> | number;
  /** billed calls allowed after the free quota; default 0 when freeQuota is given, else unlimited */
  balance?: number;
  /** how long tasks stay PENDING, then STARTED (defaults 100 ms / 300 ms) */
  taskClock?: Partial<TaskClock>;
  /** the video upload limit (100 MB); lower it in tests to exercise the 413 */
  videoMaxBytes?: number;
  /** how long tasks and result files are kept after they finish (24 h); see advanceClock() */
  retentionMs?: number;
  /** paths this service does not serve (answered 404): a live service that has only one of two documented paths */
  disabledPaths?: string[];
  /** /v1/faces boxes in pixels of the upload (default) or as fractions 0..1 (the interface states no unit) */
  faceBoxes?: 'pixels' | 'normalized';
  /**
   * Close a kept-alive connection, without an answer, when a further request arrives on it:
   * the race of a server retiring an idle connection as a client reuses it, made certain.
   */
  retireKeptAlive?: boolean;
  /**
   * 'endpoint' (default): each endpoint's limit counts on its own; 'account': additionally every
   * request of the account counts against one 30/s window (the interface does not say which).
   */
  rateScope?: 'endpoint' | 'account';
}

export { SimClock };

export interface RequestLogEntry {
  path: string;
  method: string;
  /** 0 when the connection was dropped */
  status: number;
  uploadBytes: number;
  /** header names (lower case), never values */
  headersPresent: string[];
  /** query parameter names, never values */
  queryKeys: string[];
  contentType: string | null;
  clientId: string | null;
  uploadHadExif: boolean;
  imageSize: { width: number; height: number } | null;
  /** the request's place on its connection: 1 on a fresh connection, 2+ on a kept-alive one */
  onConnection: number;
  at: number;
}

export interface Simulator {
  url: string;
  port: number;
  log: RequestLogEntry[];
  /** billed calls: { clientId: { model: count } } (models: endpoint names; `image_generate:<model>`, `image_edit:<model>`) */
  billed(): Record<string, Record<string, number>>;
  /** The clock rate limits, tasks and retention count by (freeze or advance it; see advanceClock). */
  clock: SimClock;
  inject(fault: FaultSpec): void;
  clearFaults(): void;
  /** Requests held by `hold` faults: wait until `n` are held, or let them go on. */
  held: {
    count(path?: string | RegExp): number;
    until(n: number, path?: string | RegExp): Promise<void>;
    release(path?: string | RegExp): number;
  };
  /** Every request body received while recording (recordBodies(true)): what left the client, byte for byte. */
  bodies: { path: string; contentType: string | null; body: Buffer }[];
  recordBodies(on: boolean): void;
  /** Stop (or resume) serving a path: answered 404 as by `disabledPaths`. */
  disablePath(path: string, disabled?: boolean): void;
  /** Replace the quota of every account (or one); null = unlimited. */
  setQuota(setting: QuotaSetting | null, clientId?: string): void;
  tasks(): SimTask[];
  /** Move the simulator's clock forward (tasks progress, results expire after 24 h) without waiting. */
  advanceClock(ms: number): void;
  callbacks: CallbackRecord[];
  /** Result files served at /files/<name> */
  files: Map<string, { mime: string; data: Buffer }>;
  close(): Promise<void>;
}

interface Route {
  methods: string[];
  handler: Handler;
  /** rate-limit key; defaults to the path */
  rateKey?: string;
}

/** The endpoint table: a renamed path is a one-line change here. */
const ROUTES: Record<string, Route> = {
  '/v1/auth/check': { methods: ['GET'], handler: async () => ({ status: 200, body: { status: 'ok' } }) },
  '/v1/keywords': { methods: ['GET', 'POST'], handler: analysis.keywords },
  '/v1/video_keywords': { methods: ['GET', 'POST'], handler: analysis.videoKeywords },
  '/v1/image_captioning': { methods: ['GET', 'POST'], handler: analysis.captioning },
  '/v1/faces': { methods: ['GET', 'POST'], handler: analysis.faces },
  '/v1/quality': { methods: ['GET', 'POST'], handler: analysis.quality },
  '/v1/quality_ugc': { methods: ['GET', 'POST'], handler: analysis.qualityUgc },
  '/v1/status': { methods: ['GET', 'POST'], handler: tasks.status },
  '/v1/tts': { methods: ['GET', 'POST'], handler: tasks.tts },
  '/v1/tts/create': { methods: ['GET', 'POST'], handler: tasks.tts },
  '/v1/tts_create': { methods: ['POST'], handler: tasks.ttsCreate },
  '/v1/tts/voices': { methods: ['GET'], handler: tasks.voices },
  '/v1/video_lipsync': { methods: ['POST'], handler: tasks.videoLipsync },
  '/v1/image_lipsync': { methods: ['POST'], handler: tasks.imageLipsync },
  '/v1/image_generate': { methods: ['POST'], handler: tasks.imageGenerate },
  '/v1/image_edit': { methods: ['POST'], handler: tasks.imageEdit },
  '/v1/image_vectorize': { methods: ['POST'], handler: tasks.imageVectorize },
  // The interface's path (4.15) and the vendor openapi's; both are served.
  '/v1/imageswap': { methods: ['POST'], handler: tasks.imageswapCreate, rateKey: '/v1/imageswap/create' },
  '/v1/imageswap/create': { methods: ['GET', 'POST'], handler: tasks.imageswapCreate },
  '/v1/imageswap/status': { methods: ['GET'], handler: tasks.imageswapStatus },
  '/v1/imageswap/terminate': { methods: ['POST'], handler: tasks.imageswapTerminate },
  '/v1/videoswap/create': { methods: ['GET', 'POST'], handler: tasks.videoswapCreate },
  '/v1/videoswap/status': { methods: ['GET'], handler: tasks.imageswapStatus },
  '/v1/videoswap/terminate': { methods: ['POST'], handler: tasks.imageswapTerminate },
};
const TASK_ROUTE: Route = { methods: ['DELETE'], handler: tasks.cancelTask, rateKey: '/v1/tasks' };

const MAX_BODY = 200 * 1024 * 1024;
const VIDEO_MAX = 100 * 1024 * 1024;

function send(res: ServerResponse, status: number, body: unknown, type = 'application/json'): void {
  const data = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(data) });
  res.end(data);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Read the body; resolves null (after answering 413) when it is larger than `limit`. */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) over = true;
      if (!over) chunks.push(c);
    });
    req.on('end', () => resolve(over ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Images in an upload: multipart files, or Data URIs in JSON media fields. */
function uploadedImages(body: ParsedBody): Buffer[] {
  const out: Buffer[] = [];
  for (const f of Object.values(body.files)) if (sniffImage(f.data)) out.push(f.data);
  if (body.json && typeof body.json === 'object') {
    const visit = (v: unknown) => {
      if (typeof v === 'string' && v.startsWith('data:image/')) {
        const d = parseDataUri(v);
        if (d) out.push(d.data);
      } else if (Array.isArray(v)) v.forEach(visit);
    };
    Object.values(body.json as Record<string, unknown>).forEach(visit);
  }
  return out;
}

function authenticate(req: IncomingMessage, accounts: Account[]): string | null {
  const h = req.headers.authorization;
  const m = h ? /^Basic\s+(\S+)$/i.exec(h) : null;
  if (!m) return null;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  if (i < 0) return null;
  const id = decoded.slice(0, i);
  const secret = decoded.slice(i + 1);
  return accounts.find((a) => a.clientId === id && a.clientSecret === secret)?.clientId ?? null;
}

export async function startSimulator(opts: SimulatorOptions): Promise<Simulator> {
  const log: RequestLogEntry[] = [];
  const limiter = new RateLimiter();
  const clock = new SimClock();
  const meter = new Meter(opts.accounts.map((a) => a.clientId), { freeQuota: opts.freeQuota, balance: opts.balance });
  const faults = new Faults();
  const gate = new Gate();
  let baseUrl = '';
  const engine = new TaskEngine(
    { pendingMs: opts.taskClock?.pendingMs ?? 100, startedMs: opts.taskClock?.startedMs ?? 300 },
    () => baseUrl,
    opts.retentionMs,
    clock,
  );
  const disabled = new Set(opts.disabledPaths ?? []);
  const bodies: Simulator['bodies'] = [];
  let recording = false;
  const videoMaxBytes = opts.videoMaxBytes ?? VIDEO_MAX;
  const sockets = new Set<Socket>();
  const served = new WeakMap<Socket, number>();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const path = url.pathname;
    const method = req.method ?? 'GET';
    const entry: RequestLogEntry = {
      path, method, status: 0, uploadBytes: 0, headersPresent: Object.keys(req.headers),
      queryKeys: [...new Set(url.searchParams.keys())], contentType: req.headers['content-type'] ?? null,
      clientId: null, uploadHadExif: false, imageSize: null, onConnection: (served.get(req.socket) ?? 0) + 1, at: Date.now(),
    };
    served.set(req.socket, entry.onConnection);
    log.push(entry);
    if (opts.retireKeptAlive && entry.onConnection > 1) {
      req.socket.destroy();
      return;
    }
    const reply = (status: number, body: unknown, type?: string) => {
      entry.status = status;
      send(res, status, body, type);
    };
    const drop = () => {
      entry.status = 0;
      req.socket.destroy();
    };

    // Result files: public on loopback, no credentials (a client must not send them here).
    if (path.startsWith('/files/') && method === 'GET') {
      const f = engine.file(decodeURIComponent(path.slice('/files/'.length)));
      return f ? reply(200, f.data, f.mime) : reply(404, { detail: 'Not Found' });
    }
    if (path === '/health') return reply(200, { status: 'ok' });

    const raw = await readBody(req, path === '/v1/video_keywords' ? videoMaxBytes + 1024 * 1024 : MAX_BODY);
    if (raw === null) {
      res.setHeader('connection', 'close');
      return reply(413, { status: 'error', message: 'Request body too large' });
    }
    entry.uploadBytes = raw.length;
    if (recording) bodies.push({ path, contentType: req.headers['content-type'] ?? null, body: raw });
    const body = parseBody(raw, req.headers['content-type']);
    const images = uploadedImages(body);
    entry.uploadHadExif = images.some(hasEmbeddedMetadata);
    entry.imageSize = images.length ? await imageSize(images[0]) : null;

    // Injected faults, in the order a network path would show them.
    const latency = faults.take(path, ['latency']);
    if (latency) await sleep(latency.ms ?? 1000);
    if (faults.take(path, ['hold'])) await gate.hold(path);
    if (faults.take(path, ['drop'])) return drop();
    const fault = faults.take(path, ['5xx', '502', 'quota', 'error', 'fieldError', 'quota200']);
    if (fault?.kind === '5xx') return reply(fault.status ?? 500, { detail: 'Internal Server Error' });
    if (fault?.kind === '502') return reply(502, '<html><body><h1>502 Bad Gateway</h1></body></html>', 'text/html');
    if (fault?.kind === 'quota') return reply(429, { status: 'error', message: 'Quota exhausted' });
    if (fault?.kind === 'error') return reply(fault.status ?? 400, { status: 'error', message: fault.message ?? 'Invalid input' });
    if (fault?.kind === 'fieldError') return reply(422, { detail: [{ loc: ['body', fault.field ?? 'prompt'], msg: fault.message ?? 'Field required', type: 'value_error' }] });
    if (fault?.kind === 'quota200') return reply(200, { status: 'error', message: fault.message ?? 'Free requests limit exceeded: your balance is insufficient' });

    const clientId = authenticate(req, opts.accounts);
    if (!clientId) {
      res.setHeader('www-authenticate', 'Basic realm="api"');
      return reply(401, { detail: 'Not authenticated' });
    }
    entry.clientId = clientId;

    const route = disabled.has(path) ? undefined : path.startsWith('/v1/tasks/') ? TASK_ROUTE : ROUTES[path];
    if (!route) return reply(404, { detail: 'Not Found' });
    if (!route.methods.includes(method)) return reply(405, { detail: 'Method Not Allowed' });

    // Over the per-second limit the service answers 502 from its gateway (no JSON, no headers).
    if ((opts.rateScope === 'account' && !limiter.admit(clientId, '*account*', clock.now())) || !limiter.admit(clientId, route.rateKey ?? path, clock.now())) {
      return reply(502, '<html><body><h1>502 Bad Gateway</h1></body></html>', 'text/html');
    }

    const ctx: RequestContext = {
      method, path, query: url.searchParams, body, contentType: entry.contentType ?? '', clientId,
      engine, faults, videoMaxBytes, faceBoxes: opts.faceBoxes ?? 'pixels',
      charge(model) {
        if (!meter.canCharge(clientId, model)) throw new QuotaExhausted(`Free quota and balance exhausted for ${model}`);
        meter.charge(clientId, model);
      },
    };
    let out: { status: number; body: unknown };
    try {
      out = await route.handler(ctx);
    } catch (e) {
      if (e instanceof Invalid) out = { status: 422, body: { detail: e.issues } };
      else if (e instanceof QuotaExhausted) out = { status: 429, body: { status: 'error', message: e.message } };
      else if (e instanceof ServiceError) {
        out = { status: e.httpStatus, body: e.httpStatus === 404 ? { detail: e.message } : { status: 'error', message: e.message } };
      } else out = { status: 500, body: { detail: `Internal Server Error: ${(e as Error).message}` } };
    }
    // The work is done (and billed) but the answer is lost on the way back.
    if (faults.take(path, ['dropAfter'])) return drop();
    // The work is done (and billed) but the answer comes in a shape no client can read.
    const garbled = out.status < 300 ? faults.take(path, ['garbled']) : undefined;
    if (garbled) {
      const id = (out.body as { task_id?: unknown } | null)?.task_id;
      return reply(out.status, (garbled.message ?? '{"task_id": ').replaceAll('{task_id}', typeof id === 'string' ? id : ''), 'application/json');
    }
    reply(out.status, out.body);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((e: Error) => {
      if (!res.headersSent) send(res, 500, { detail: e.message });
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  baseUrl = `http://127.0.0.1:${port}`;

  return {
    url: baseUrl,
    port,
    log,
    billed: () => meter.billed(),
    inject: (f) => faults.inject(f),
    clock,
    clearFaults: () => faults.clear(),
    held: { count: (p) => gate.count(p), until: (n, p) => gate.until(n, p), release: (p) => gate.release(p) },
    setQuota: (s, id) => meter.set(s, id),
    bodies,
    recordBodies: (on) => { recording = on; },
    disablePath: (p, off = true) => void (off ? disabled.add(p) : disabled.delete(p)),
    tasks: () => engine.list(),
    advanceClock: (ms) => engine.advance(ms),
    callbacks: engine.callbacks,
    files: engine.files,
    async close() {
      faults.clear();
      gate.release();
      await engine.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
    },
  };
}
