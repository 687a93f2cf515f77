// The service client: undici, HTTP Basic on every call to the base URL's origin and to no
// other host, a typed method per endpoint, parameters checked before sending, answers parsed,
// failures mapped to ServiceError kinds. It does no pacing or retrying: that is the queue's job.
import { createWriteStream } from 'node:fs';
import { mkdir, open, rename, stat, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { EnvHttpProxyAgent, request, type Dispatcher } from 'undici';
import { mimeFor } from '../core/media';
import { formBody, jsonWithMedia, multipart, type StreamBody } from './body';
import { ENDPOINTS, IMAGE_EXT, LIPSYNC_AUDIO_EXT, LIPSYNC_VIDEO_EXT, type Endpoint, type EndpointName } from './endpoints';
import { ServiceError } from './errors';
import * as parse from './parse';
import { QUOTA_STATUSES } from './quota';
import type {
  CallOptions, CaptionParams, CaptionResult, FaceSwapParams, FacesResult, ImageEditParams, ImageGenerateParams, ImageVectorizeParams,
  KeywordParams, KeywordsResult, LipsyncParams, QualityResult, TaskCreated, TaskState, TtsJsonParams, TtsParams, UgcQualityResult,
  UploadSource, VideoKeywordParams, Voice,
} from './types';
import * as v from './validate';

/**
 * The documents (interface.md, openapi.json) give the address only as {base_url}; this is the
 * public API host of the vendor named in openapi.LICENSE (Everypixel Labs). Users and the CLI
 * override it (Settings, --service-url).
 */
export const DEFAULT_BASE_URL = 'https://api.everypixel.com';

/** 127.0.0.0/8, ::1 and localhost: the only hosts plain http may carry credentials to (the simulator). */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}

/** Basic credentials travel over https only; plain http is allowed for this computer alone. */
export function insecureAddressProblem(url: URL): string | null {
  if (url.protocol !== 'http:' || isLoopbackHost(url.hostname)) return null;
  return `The service address ${url.origin} uses plain http, which would send your Client ID and Secret Key unencrypted. Use https:// (plain http is allowed only for this computer, e.g. the simulator at http://127.0.0.1).`;
}

export interface Credentials {
  clientId: string;
  clientSecret: string;
}

/** Where the client gets credentials on each call (so a new login takes effect at once). */
export type CredentialSource = Credentials | null | (() => Credentials | null | Promise<Credentials | null>);

export interface ServiceClientOptions {
  baseUrl?: string;
  credentials: CredentialSource;
  /** time to wait for the answer's headers (ms); uploads and big JSON bodies get `uploadTimeoutMs` */
  timeoutMs?: number;
  uploadTimeoutMs?: number;
  connectTimeoutMs?: number;
  dispatcher?: Dispatcher;
}

const CONNECT_FAILURES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH', 'EHOSTDOWN', 'UND_ERR_CONNECT_TIMEOUT', 'EADDRNOTAVAIL']);

function errorCode(e: unknown): string | undefined {
  const o = e as { code?: string; cause?: { code?: string }; errors?: { code?: string }[] };
  return o?.code ?? o?.cause?.code ?? o?.errors?.[0]?.code;
}

interface SendSpec {
  endpoint: Endpoint;
  path?: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: StreamBody;
  options?: CallOptions;
}

export class ServiceClient {
  readonly baseUrl: string;
  private readonly origin: string;
  private readonly dispatcher: Dispatcher;
  /** billed calls only: a fresh connection each (see the constructor) */
  private readonly billedDispatcher: Dispatcher;
  private readonly ownDispatcher: boolean;
  private readonly timeoutMs: number;
  private readonly uploadTimeoutMs: number;
  /** for endpoints with two paths: the one the service answered on */
  private readonly servedPath = new Map<EndpointName, string>();
  /** status endpoints whose own path answered 404: asked at /v1/status instead */
  private readonly statusFallback = new Set<EndpointName>();

  constructor(private readonly opts: ServiceClientOptions) {
    const base = new URL(opts.baseUrl ?? DEFAULT_BASE_URL);
    if (base.protocol !== 'https:' && base.protocol !== 'http:') throw new ServiceError('invalid_input', 'The service address must start with https://', { field: 'baseUrl', local: true });
    const insecure = insecureAddressProblem(base);
    if (insecure) throw new ServiceError('invalid_input', insecure, { field: 'baseUrl', local: true });
    this.baseUrl = base.href.replace(/\/+$/, '');
    this.origin = base.origin;
    this.timeoutMs = opts.timeoutMs ?? 60_000;
    this.uploadTimeoutMs = opts.uploadTimeoutMs ?? 300_000;
    this.ownDispatcher = !opts.dispatcher;
    // HTTPS_PROXY / HTTP_PROXY / NO_PROXY as curl reads them (the app puts the system proxy
    // there at start when none is set): every call and download goes through it.
    const connect = { timeout: opts.connectTimeoutMs ?? 10_000 };
    this.dispatcher = opts.dispatcher ?? new EnvHttpProxyAgent({ connect, keepAliveTimeout: 4_000 });
    // A billed call never rides on a kept-alive connection. A server closes a connection that
    // sat idle past its keep-alive time; a request written just then is lost with no answer,
    // and for a billed call that is an 'unknown' outcome Tagsmith must not retry by itself. A
    // busy or slow machine (its event loop late to read an answer or to retire the idle
    // socket) makes that window wide, so one keyword job in a batch could end 'unknown'.
    // On a fresh connection (pipelining 0: no keep-alive) the server reads the request first.
    this.billedDispatcher = opts.dispatcher ?? new EnvHttpProxyAgent({ connect, pipelining: 0 });
  }

  async close(): Promise<void> {
    if (this.ownDispatcher) await Promise.all([this.dispatcher.close(), this.billedDispatcher.close()]);
  }

  // ---- analysis (sync) ----------------------------------------------------------------

  /** `file`: a prepared derivative (see prepare.ts), or `{ url }` for the service to fetch. */
  async keywords(file: UploadSource | { url: string }, params: KeywordParams = {}, o?: CallOptions): Promise<KeywordsResult> {
    const p = v.checkKeywordParams(params);
    return readBilled(ENDPOINTS.keywords, await this.analysis('keywords', file, p as Record<string, unknown>, o), parse.parseKeywords);
  }

  async videoKeywords(file: UploadSource | { url: string }, params: VideoKeywordParams = {}, o?: CallOptions): Promise<KeywordsResult> {
    const p = v.checkVideoKeywordParams(params);
    return readBilled(ENDPOINTS.videoKeywords, await this.analysis('videoKeywords', file, p as Record<string, unknown>, o), parse.parseKeywords);
  }

  async caption(file: UploadSource | { url: string }, params: CaptionParams = {}, o?: CallOptions): Promise<CaptionResult> {
    const p = v.checkCaptionParams(params);
    return readBilled(ENDPOINTS.caption, await this.analysis('caption', file, p as Record<string, unknown>, o), parse.parseCaption);
  }

  async faces(file: UploadSource | { url: string }, o?: CallOptions): Promise<FacesResult> {
    return readBilled(ENDPOINTS.faces, await this.analysis('faces', file, {}, o), parse.parseFaces);
  }

  async quality(file: UploadSource | { url: string }, o?: CallOptions): Promise<QualityResult> {
    return readBilled(ENDPOINTS.quality, await this.analysis('quality', file, {}, o), parse.parseQuality);
  }

  async qualityUgc(file: UploadSource | { url: string }, o?: CallOptions): Promise<UgcQualityResult> {
    return readBilled(ENDPOINTS.qualityUgc, await this.analysis('qualityUgc', file, {}, o), parse.parseQualityUgc);
  }

  /** Dispatch by endpoint name (the queue's generic analyze job). */
  async analyze(name: 'keywords' | 'videoKeywords' | 'caption' | 'faces' | 'quality' | 'qualityUgc', file: UploadSource | { url: string }, params: Record<string, unknown> = {}, o?: CallOptions): Promise<unknown> {
    switch (name) {
      case 'keywords': return this.keywords(file, params as KeywordParams, o);
      case 'videoKeywords': return this.videoKeywords(file, params as VideoKeywordParams, o);
      case 'caption': return this.caption(file, params as CaptionParams, o);
      case 'faces': return this.faces(file, o);
      case 'quality': return this.quality(file, o);
      case 'qualityUgc': return this.qualityUgc(file, o);
    }
  }

  private async analysis(name: EndpointName, file: UploadSource | { url: string }, params: Record<string, unknown>, o?: CallOptions): Promise<unknown> {
    const endpoint = ENDPOINTS[name];
    const query = Object.fromEntries(Object.entries(params).filter(([, x]) => x !== undefined).map(([k, x]) => [k, String(x)]));
    if ('url' in file) {
      if (!v.isHttpUrl(file.url)) throw new ServiceError('invalid_input', 'url: must be an http(s) URL', { field: 'url', local: true });
      return this.send({ endpoint: { ...endpoint, method: 'GET', body: 'none' }, query: { ...query, url: file.url }, options: o });
    }
    const body = await multipart({}, [{ field: 'data', source: file }]);
    return this.send({ endpoint, query, body, options: o });
  }

  // ---- meta ---------------------------------------------------------------------------

  /** Free: verifies the credentials. Resolves true, or throws ServiceError('credentials'). */
  async authCheck(o?: CallOptions): Promise<true> {
    await this.send({ endpoint: ENDPOINTS.authCheck, options: o });
    return true;
  }

  /**
   * Whether the service answers and takes the credentials, through the interface: the voices
   * list (free, authenticated). /v1/auth/check (the vendor's, not the interface's) is asked
   * only as an extra with `authCheckToo`, and its 404 ignored. Throws ServiceError
   * ('credentials', 'offline', ...) like any call.
   */
  async checkConnection(o?: CallOptions & { authCheckToo?: boolean }): Promise<true> {
    try {
      await this.voices(o);
    } catch (e) {
      // The service answered, only not with a list Tagsmith reads (or has none): it is there.
      if (!(e instanceof ServiceError && (e.kind === 'not_found' || (e.kind === 'service' && (e.status === undefined || e.status < 300))))) throw e;
    }
    if (o?.authCheckToo) {
      try {
        await this.authCheck(o);
      } catch (e) {
        if (!(e instanceof ServiceError && e.kind === 'not_found')) throw e;
      }
    }
    return true;
  }

  async voices(o?: CallOptions): Promise<Voice[]> {
    return parse.parseVoices(await this.send({ endpoint: ENDPOINTS.voices, options: o }));
  }

  async status(taskId: string, o?: CallOptions): Promise<TaskState> {
    v.checkTaskId(taskId);
    return parse.parseTaskState(await this.send({ endpoint: ENDPOINTS.status, query: { task_id: taskId }, options: o }));
  }

  async faceSwapStatus(taskId: string, o?: CallOptions): Promise<TaskState> {
    return this.statusAt(ENDPOINTS.faceSwapStatus, taskId, o);
  }

  /**
   * Status at a task type's own path; when that path answers 404, at /v1/status (interface
   * 4.8: the same for all asynchronous tasks), remembered for this service. A 404 there too
   * is the task unknown, and nothing is remembered.
   */
  private async statusAt(endpoint: Endpoint, taskId: string, o?: CallOptions): Promise<TaskState> {
    v.checkTaskId(taskId);
    if (!this.statusFallback.has(endpoint.name)) {
      try {
        return parse.parseTaskState(await this.send({ endpoint, query: { task_id: taskId }, options: o }));
      } catch (e) {
        if (!(e instanceof ServiceError && e.kind === 'not_found')) throw e;
      }
      const st = await this.status(taskId, o);
      this.statusFallback.add(endpoint.name);
      return st;
    }
    return this.status(taskId, o);
  }

  /**
   * DELETE /v1/tasks/{id}. Resolves 'cancelled' (also when already revoked), or 'final' when
   * the task already finished (409) and can no longer be cancelled.
   */
  async cancelTask(taskId: string, o?: CallOptions): Promise<'cancelled' | 'final'> {
    v.checkTaskId(taskId);
    try {
      await this.send({ endpoint: ENDPOINTS.cancelTask, path: ENDPOINTS.cancelTask.path.replace('{task_id}', encodeURIComponent(taskId)), options: o });
      return 'cancelled';
    } catch (e) {
      if (e instanceof ServiceError && e.kind === 'conflict') return 'final';
      throw e;
    }
  }

  async faceSwapTerminate(taskId: string, o?: CallOptions): Promise<'cancelled' | 'final'> {
    v.checkTaskId(taskId);
    try {
      await this.send({ endpoint: ENDPOINTS.faceSwapTerminate, query: { task_id: taskId }, options: o });
      return 'cancelled';
    } catch (e) {
      if (e instanceof ServiceError && e.kind === 'conflict') return 'final';
      // No terminate path on this service: the interface's cancel serves every task.
      if (e instanceof ServiceError && e.kind === 'not_found') return this.cancelTask(taskId, o);
      throw e;
    }
  }

  // ---- async creates ------------------------------------------------------------------

  /** /v1/tts (form); /v1/tts/create when the service answers 404 (either way round, see sendEither). */
  async tts(params: TtsParams, o?: CallOptions): Promise<TaskCreated> {
    const p = v.checkTtsParams(params);
    const fields = Object.fromEntries(Object.entries(p).filter(([, x]) => x !== undefined).map(([k, x]) => [k, String(x)]));
    return readBilled(ENDPOINTS.tts, await this.sendEither({ endpoint: ENDPOINTS.tts, body: formBody(fields), options: o }), parse.parseTaskCreated);
  }

  /** The vendor openapi's JSON TTS (/v1/tts_create): speaker/language, text up to 200 characters. */
  async ttsJson(params: TtsJsonParams, o?: CallOptions): Promise<TaskCreated> {
    const p = v.checkTtsJsonParams(params);
    return readBilled(ENDPOINTS.ttsCreateJson, await this.send({ endpoint: ENDPOINTS.ttsCreateJson, body: await jsonWithMedia({ ...p }), options: o }), parse.parseTaskCreated);
  }

  async videoLipsync(params: LipsyncParams, o?: CallOptions): Promise<TaskCreated> {
    const p = v.checkLipsyncParams(params, 'video');
    const body = await jsonWithMedia({ audio_url: p.audio, video_url: p.video, resolution: p.resolution, callback_url: p.callback_url }, lipsyncMime);
    return readBilled(ENDPOINTS.videoLipsync, await this.send({ endpoint: ENDPOINTS.videoLipsync, body, options: o }), parse.parseTaskCreated);
  }

  async imageLipsync(params: LipsyncParams, o?: CallOptions): Promise<TaskCreated> {
    const p = v.checkLipsyncParams(params, 'image');
    const body = await jsonWithMedia({ audio_url: p.audio, image_url: p.image, resolution: p.resolution, callback_url: p.callback_url, model: p.model }, lipsyncMime);
    return readBilled(ENDPOINTS.imageLipsync, await this.send({ endpoint: ENDPOINTS.imageLipsync, body, options: o }), parse.parseTaskCreated);
  }

  async imageGenerate(params: ImageGenerateParams, o?: CallOptions): Promise<TaskCreated> {
    const p = v.checkGenerateParams(params);
    return readBilled(ENDPOINTS.imageGenerate, await this.send({ endpoint: ENDPOINTS.imageGenerate, body: await jsonWithMedia({ ...p }, lipsyncMime), options: o }), parse.parseTaskCreated);
  }

  async imageEdit(params: ImageEditParams, o?: CallOptions): Promise<TaskCreated> {
    const p = v.checkEditParams(params);
    return readBilled(ENDPOINTS.imageEdit, await this.send({ endpoint: ENDPOINTS.imageEdit, body: await jsonWithMedia({ ...p }, lipsyncMime), options: o }), parse.parseTaskCreated);
  }

  async imageVectorize(params: ImageVectorizeParams, o?: CallOptions): Promise<TaskCreated> {
    const p = v.checkVectorizeParams(params);
    const body = await jsonWithMedia({ image_url: p.image, callback_url: p.callback_url }, lipsyncMime);
    return readBilled(ENDPOINTS.imageVectorize, await this.send({ endpoint: ENDPOINTS.imageVectorize, body, options: o }), parse.parseTaskCreated);
  }

  /** Image face swap: multipart `source` (donor face) and `target`; /v1/imageswap, else /v1/imageswap/create. */
  async faceSwap(params: FaceSwapParams, o?: CallOptions): Promise<TaskCreated> {
    const p = v.checkFaceSwapParams(params);
    return readBilled(ENDPOINTS.faceSwap, await this.sendEither({ endpoint: ENDPOINTS.faceSwap, body: await swapBody(p), options: o }), parse.parseTaskCreated);
  }

  /** Video face swap (vendor /v1/videoswap/create): the donor face image as `source`, the clip as `target`. */
  async videoFaceSwap(params: FaceSwapParams, o?: CallOptions): Promise<TaskCreated> {
    const p = v.checkFaceSwapParams(params, 'video');
    return readBilled(ENDPOINTS.videoFaceSwap, await this.send({ endpoint: ENDPOINTS.videoFaceSwap, body: await swapBody(p), options: o }), parse.parseTaskCreated);
  }

  async videoFaceSwapStatus(taskId: string, o?: CallOptions): Promise<TaskState> {
    return this.statusAt(ENDPOINTS.videoFaceSwapStatus, taskId, o);
  }

  async videoFaceSwapTerminate(taskId: string, o?: CallOptions): Promise<'cancelled' | 'final'> {
    v.checkTaskId(taskId);
    try {
      await this.send({ endpoint: ENDPOINTS.videoFaceSwapTerminate, query: { task_id: taskId }, options: o });
      return 'cancelled';
    } catch (e) {
      if (e instanceof ServiceError && e.kind === 'conflict') return 'final';
      // No terminate path on this service: the interface's cancel serves every task.
      if (e instanceof ServiceError && e.kind === 'not_found') return this.cancelTask(taskId, o);
      throw e;
    }
  }

  // ---- result files -------------------------------------------------------------------

  /**
   * Stream a result file to `destFile`: into `<dest>.part`, fsync, rename. An existing
   * `.part` is resumed with a Range request when the server supports it. Never sends
   * credentials (result URLs are public and may be on any host).
   */
  async download(url: string, destFile: string, o?: CallOptions): Promise<{ path: string; bytes: number }> {
    if (!v.isHttpUrl(url)) throw new ServiceError('invalid_input', 'The result address is not an http(s) URL', { field: 'url', local: true });
    const part = `${destFile}.part`;
    await mkdir(dirname(destFile), { recursive: true });
    const have = await stat(part).then((s) => s.size, () => 0);
    const signal = o?.signal;
    let res: Dispatcher.ResponseData;
    try {
      res = await request(url, {
        method: 'GET', dispatcher: this.dispatcher, signal, headersTimeout: o?.timeoutMs ?? this.timeoutMs, bodyTimeout: this.uploadTimeoutMs,
        headers: have > 0 ? { range: `bytes=${have}-` } : {},
      });
    } catch (e) {
      throw this.transportError(e, signal, false);
    }
    if (res.statusCode !== 200 && res.statusCode !== 206) {
      await res.body.dump().catch(() => undefined);
      throw new ServiceError(res.statusCode === 404 ? 'not_found' : 'service', `The result file could not be downloaded (HTTP ${res.statusCode}).`, { status: res.statusCode });
    }
    const append = res.statusCode === 206 && have > 0;
    try {
      await pipeline(res.body, createWriteStream(part, { flags: append ? 'a' : 'w' }));
    } catch (e) {
      throw this.transportError(e, signal, false);
    }
    const fh = await open(part, 'r+');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
    const bytes = (await stat(part)).size;
    await rename(part, destFile);
    return { path: destFile, bytes };
  }

  /** Remove a half-downloaded file (a cancelled job). */
  static async discardPartial(destFile: string): Promise<void> {
    await unlink(`${destFile}.part`).catch(() => undefined);
  }

  // ---- transport ----------------------------------------------------------------------

  private async authHeader(url: URL): Promise<Record<string, string>> {
    // Credentials go to the configured service origin only.
    if (url.origin !== this.origin) return {};
    const c = typeof this.opts.credentials === 'function' ? await this.opts.credentials() : this.opts.credentials;
    if (!c || !c.clientId || !c.clientSecret) {
      throw new ServiceError('credentials', 'No Client ID and Secret are set. Add them in Settings (or run `tagsmith login`).', { local: true });
    }
    return { authorization: `Basic ${Buffer.from(`${c.clientId}:${c.clientSecret}`, 'utf8').toString('base64')}` };
  }

  private transportError(e: unknown, signal: AbortSignal | undefined, maybeBilled: boolean): ServiceError {
    if (e instanceof ServiceError) return e;
    if (signal?.aborted) return new ServiceError('cancelled', 'The request was cancelled.');
    const code = errorCode(e);
    if (code && CONNECT_FAILURES.has(code)) {
      return new ServiceError('offline', 'The service could not be reached. Check the internet connection; Tagsmith retries by itself.');
    }
    if (maybeBilled) {
      return new ServiceError('unknown_outcome', 'The request reached the service but its answer was lost. It may have been carried out (and billed); Tagsmith will not repeat it without you.');
    }
    const timeout = code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT';
    return new ServiceError('offline', timeout ? 'The service did not answer in time. Tagsmith retries by itself.' : 'The connection to the service was interrupted. Tagsmith retries by itself.');
  }

  /**
   * An endpoint with two documented paths (fallbackPath): the one that answered last time
   * first; on a 404 (not billed) the other one, once, and that one is remembered. A service
   * that serves only the vendor's path and one that serves only the interface's both work.
   */
  private async sendEither(spec: SendSpec): Promise<unknown> {
    const e = spec.endpoint;
    if (!e.fallbackPath) return this.send(spec);
    const first = this.servedPath.get(e.name) ?? e.path;
    const other = first === e.path ? e.fallbackPath : e.path;
    try {
      return await this.send({ ...spec, path: first });
    } catch (err) {
      if (!(err instanceof ServiceError && err.kind === 'not_found')) throw err;
      const out = await this.send({ ...spec, path: other });
      this.servedPath.set(e.name, other);
      return out;
    }
  }

  private async send(spec: SendSpec): Promise<unknown> {
    const { endpoint, body, options } = spec;
    const url = new URL(this.baseUrl + (spec.path ?? endpoint.path));
    for (const [k, x] of Object.entries(spec.query ?? {})) if (x !== undefined) url.searchParams.set(k, String(x));
    const headers: Record<string, string> = { accept: 'application/json', ...(await this.authHeader(url)) };
    if (body) {
      headers['content-type'] = body.contentType;
      headers['content-length'] = String(body.length);
    }
    const signal = options?.signal;
    if (signal?.aborted) throw new ServiceError('cancelled', 'The request was cancelled.');
    const billed = !!endpoint.billing;
    let res: Dispatcher.ResponseData;
    let text: string;
    try {
      res = await request(url, {
        method: endpoint.method,
        headers,
        body: body ? Readable.from(body.chunks()) : undefined,
        signal,
        dispatcher: billed ? this.billedDispatcher : this.dispatcher,
        headersTimeout: options?.timeoutMs ?? (body && body.length > 1_000_000 ? this.uploadTimeoutMs : this.timeoutMs),
        bodyTimeout: this.timeoutMs,
      });
      text = await res.body.text();
    } catch (e) {
      throw this.transportError(e, signal, billed);
    }
    return interpret(res.statusCode, text, endpoint);
  }
}

function swapBody(p: FaceSwapParams): Promise<StreamBody> {
  const fields: Record<string, string> = {};
  if (p.use_gfpgan !== undefined) fields.use_gfpgan = String(p.use_gfpgan);
  if (p.title !== undefined) fields.title = p.title;
  if (p.callback !== undefined) fields.callback = p.callback;
  return multipart(fields, [
    { field: 'source', source: p.source as UploadSource },
    { field: 'target', source: p.target as UploadSource },
  ]);
}

function lipsyncMime(path: string): string {
  const ext = path.slice(path.lastIndexOf('.') + 1).toLowerCase();
  return LIPSYNC_AUDIO_EXT[ext] ?? LIPSYNC_VIDEO_EXT[ext] ?? IMAGE_EXT[ext] ?? mimeFor(path);
}

const RAW_KEPT = 64 * 1024;

function unreadable(endpoint: Endpoint, raw: string, status?: number): ServiceError {
  return new ServiceError('unreadable', `Answered, unreadable: the service accepted the request to ${endpoint.path} (it is billed) but its answer is not in a shape Tagsmith can read. Tagsmith keeps the answer and does not send the request again; fetch the result again by its task id.`, { status, raw: raw.slice(0, RAW_KEPT) });
}

/**
 * The answer of a billed call, parsed: when it said success (HTTP 2xx, not status "error")
 * but cannot be read, it is 'unreadable' with the raw answer kept, never a retryable error.
 */
function readBilled<T>(endpoint: Endpoint, json: unknown, parser: (raw: unknown) => T): T {
  try {
    return parser(json);
  } catch (e) {
    if (e instanceof ServiceError && e.kind === 'service' && endpoint.billing) throw unreadable(endpoint, JSON.stringify(json) ?? '', 200);
    throw e;
  }
}

function interpret(status: number, text: string, endpoint: Endpoint): unknown {
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON (a gateway's HTML page): judged by the status below
  }
  if (status === 401 || status === 403) {
    throw new ServiceError('credentials', 'The service did not accept the Client ID and Secret. Check them in Settings.', { status });
  }
  if (QUOTA_STATUSES.includes(status)) {
    throw new ServiceError('quota', 'The free quota and prepaid balance are used up. Top up the account, then resume.', { status });
  }
  if (status === 502) {
    throw new ServiceError('rate_limited', 'The service asked Tagsmith to slow down; it will retry shortly (not billed).', { status });
  }
  if (status === 422) {
    const d = parse.describe422(json);
    throw new ServiceError('invalid_input', `The service refused the request: ${d.message}`, { status, field: d.field });
  }
  if (status === 413) throw new ServiceError('invalid_input', 'The file is too large for the service (video uploads are limited to 100 MB).', { status });
  if (status === 404) throw new ServiceError('not_found', endpoint.name === 'status' || endpoint.name === 'cancelTask' ? 'The service does not know this task (it may have expired).' : `The service has no ${endpoint.path} (HTTP 404).`, { status });
  if (status === 409) throw new ServiceError('conflict', 'The task can no longer be cancelled.', { status });
  if (status >= 500) {
    // A task create answered 5xx (other than the 502 of the rate limit) does not prove the
    // service refused it: a gateway may have timed out on a task already queued. Not repeated by itself.
    if (endpoint.billing && endpoint.mode === 'async') {
      throw new ServiceError('unknown_outcome', `The service answered HTTP ${status} to the request that creates the task; it may still have accepted (and billed) it. Tagsmith will not send it again without you.`, { status });
    }
    throw new ServiceError('service', `The service had a problem (HTTP ${status}). Tagsmith retries later.`, { status });
  }
  // Any other client error (400 and the like, the interface's "other failures"): final for this
  // request, not billed, never retried; the user sees the service's own message.
  if (status >= 400) {
    const msg = parse.serviceMessage(json) ?? (typeof (json as { detail?: unknown } | undefined)?.detail === 'string' ? (json as { detail: string }).detail : null);
    throw new ServiceError('invalid_input', msg ? `The service refused the request: ${msg}` : `The service refused the request (HTTP ${status}) without saying why.`, { status });
  }
  if (status < 200 || status >= 300) throw new ServiceError('service', `Unexpected answer from the service (HTTP ${status}).`, { status });
  if (json === undefined) {
    // A billed call that answered success was carried out and billed: never sent again by itself.
    if (endpoint.billing) throw unreadable(endpoint, text, status);
    throw new ServiceError('service', 'The service sent an answer that is not JSON. Try again later.', { status });
  }
  if (json && typeof json === 'object' && !Array.isArray(json)) parse.checkStatus(json as Record<string, unknown>);
  return json;
}
