// Asynchronous endpoints: TTS, lipsync, generation, editing, vectorize, face swap; status and cancel.
import sharp from 'sharp';
import { parseDataUri } from './body.js';
import { param, type Handler, type RequestContext } from './context.js';
import { imageSize, sniffImage, sniffVideo } from './media.js';
import {
  AUDIO_MIMES, IMAGE_MIMES, VIDEO_MIMES, checkEdit, checkGenerate, checkMediaDataUri, outputSize,
} from './models.js';
import { makeMp4, makePng, makeSvg, makeWav } from './outputs.js';
import type { SimTask, TaskOutput } from './tasks.js';
import { Invalid, Issues, ServiceError, isHttpUrl, isLoopbackUrl, isUuid, parseBool } from './validation.js';
import { VOICES } from './vocabulary.js';

const TTS_SPEAKERS = ['Aiden', 'Dylan', 'Eric', 'Ono_Anna', 'Ryan', 'Serena', 'Sohee', 'Uncle_Fu', 'Vivian'];
const TTS_LANGUAGES = ['Auto', 'Chinese', 'English', 'Japanese', 'Korean', 'French', 'German', 'Spanish', 'Portuguese', 'Russian', 'Italian'];
const VIDEO_RESOLUTIONS = ['360p', '480p', '720p'];
const LIPSYNC_MODELS = ['inftalk', 'ltx23'];

type Json = Record<string, unknown>;

/** Create a task after billing it; faults may make it fail or run slowly. */
function createTask(ctx: RequestContext, kind: string, model: string, billingKey: string, callback: string | null, produce: () => Promise<TaskOutput>): SimTask {
  ctx.charge(billingKey);
  const fail = ctx.faults.take(ctx.path, ['taskFailure']);
  const slow = ctx.faults.take(ctx.path, ['slowTask']);
  return ctx.engine.create({ clientId: ctx.clientId, kind, model, callback, produce, willFail: !!fail, extraMs: slow?.ms ?? 0 });
}

function jsonBody(ctx: RequestContext): Json {
  if (ctx.body.jsonError !== undefined || typeof ctx.body.json !== 'object' || ctx.body.json === null || Array.isArray(ctx.body.json)) {
    throw new Invalid([{ type: ctx.body.jsonError ? 'json_invalid' : 'model_attributes_type', loc: ['body'], msg: ctx.body.jsonError ? 'JSON decode error' : 'Input should be a valid dictionary or object to extract fields from' }]);
  }
  return ctx.body.json as Json;
}

const taskReply = (ctx: RequestContext, t: SimTask) => ({ task_id: t.task_id, status: t.status, queue: ctx.engine.queue(t) });

// ---- Text-to-speech -------------------------------------------------------------------

/** /v1/tts and /v1/tts/create: GET query or POST form (url-encoded or multipart). */
export const tts: Handler = async (ctx) => {
  const voice = param(ctx, 'voice');
  const text = param(ctx, 'text');
  // The interface names the field `callback` for TTS; `callback_url` is not read (no callback).
  const callback = param(ctx, 'callback') ?? null;
  if (!voice) throw new ServiceError("Missing required parameter 'voice'");
  if (!text || !text.trim()) throw new ServiceError("Missing required parameter 'text'");
  if (!VOICES.some((v) => v.api_name === voice)) throw new ServiceError(`Unknown voice '${voice}'; see /v1/tts/voices`);
  if (callback !== null && !isHttpUrl(callback)) throw new ServiceError("Parameter 'callback' must be an HTTP(S) URL");
  const t = createTask(ctx, 'tts', 'tts', 'tts', callback, async () => ({ ext: 'wav', mime: 'audio/wav', data: makeWav(text) }));
  const eta = (ctx.engine.clock.pendingMs + ctx.engine.clock.startedMs) / 1000;
  return { status: 201, body: { task_id: t.task_id, status: t.status, eta, queue: ctx.engine.queue(t), result: '' } };
};

/** /v1/tts_create: the vendor's JSON variant. */
export const ttsCreate: Handler = async (ctx) => {
  const b = jsonBody(ctx);
  const iss = new Issues();
  if (b.text === undefined) iss.missing(['body', 'text']);
  else if (typeof b.text !== 'string') iss.add(['body', 'text'], 'string_type', 'Input should be a valid string', b.text);
  else if (b.text.length > 200) iss.add(['body', 'text'], 'string_too_long', 'String should have at most 200 characters', b.text, { max_length: 200 });
  if (b.speaker !== undefined && !TTS_SPEAKERS.includes(b.speaker as string)) iss.enum(['body', 'speaker'], b.speaker, TTS_SPEAKERS);
  if (b.language !== undefined && !TTS_LANGUAGES.includes(b.language as string)) iss.enum(['body', 'language'], b.language, TTS_LANGUAGES);
  if (b.style !== undefined && typeof b.style !== 'string') iss.add(['body', 'style'], 'string_type', 'Input should be a valid string', b.style);
  if (b.seed !== undefined && !Number.isInteger(b.seed)) iss.add(['body', 'seed'], 'int_type', 'Input should be a valid integer', b.seed);
  const cb = checkCallbackUrl(iss, b);
  iss.throwIfAny();
  const text = b.text as string;
  const t = createTask(ctx, 'tts', 'tts', 'tts', cb, async () => ({ ext: 'wav', mime: 'audio/wav', data: makeWav(text) }));
  return { status: 200, body: taskReply(ctx, t) };
};

export const voices: Handler = async () => ({ status: 200, body: VOICES });

function checkCallbackUrl(iss: Issues, b: Json): string | null {
  if (b.callback_url === undefined || b.callback_url === null) return null;
  if (typeof b.callback_url !== 'string' || !isHttpUrl(b.callback_url)) {
    iss.add(['body', 'callback_url'], 'url_parsing', 'Input should be a valid URL', b.callback_url);
    return null;
  }
  return b.callback_url;
}

// ---- Lipsync --------------------------------------------------------------------------

function lipsync(kind: 'video_lipsync' | 'image_lipsync'): Handler {
  return async (ctx) => {
    const b = jsonBody(ctx);
    const iss = new Issues();
    checkMediaDataUri(iss, 'audio_url', b.audio_url, AUDIO_MIMES);
    if (kind === 'video_lipsync') checkMediaDataUri(iss, 'video_url', b.video_url, VIDEO_MIMES);
    else checkMediaDataUri(iss, 'image_url', b.image_url, IMAGE_MIMES);
    let resolution = '480p';
    if (b.resolution !== undefined && b.resolution !== null) {
      if (!VIDEO_RESOLUTIONS.includes(b.resolution as string)) iss.enum(['body', 'resolution'], b.resolution, VIDEO_RESOLUTIONS);
      else resolution = b.resolution as string;
    }
    let model = kind;
    if (kind === 'image_lipsync' && b.model !== undefined && b.model !== null) {
      if (!LIPSYNC_MODELS.includes(b.model as string)) iss.enum(['body', 'model'], b.model, LIPSYNC_MODELS);
    }
    if (kind === 'image_lipsync') model = 'image_lipsync';
    const cb = checkCallbackUrl(iss, b);
    iss.throwIfAny();
    const t = createTask(ctx, kind, model, kind, cb, async () => ({ ext: 'mp4', mime: 'video/mp4', data: await makeMp4(resolution) }));
    return { status: 200, body: taskReply(ctx, t) };
  };
}
export const videoLipsync = lipsync('video_lipsync');
export const imageLipsync = lipsync('image_lipsync');

// ---- Generation, editing, vectorize ---------------------------------------------------

async function loadImageRef(ref: string): Promise<Buffer | undefined> {
  const d = ref.startsWith('data:') ? parseDataUri(ref) : null;
  if (d) return d.data;
  if (isLoopbackUrl(ref)) {
    try {
      const r = await fetch(ref, { signal: AbortSignal.timeout(10_000) });
      if (r.ok) return Buffer.from(await r.arrayBuffer());
    } catch {
      // the task still produces an image
    }
  }
  return undefined;
}

export const imageGenerate: Handler = async (ctx) => {
  const b = jsonBody(ctx);
  const plan = checkGenerate(b);
  const prompt = b.prompt as string;
  const controls = (b.controls as { colors?: { rgb: number[] }[] } | undefined)?.colors?.map((c) => c.rgb);
  const t = createTask(ctx, 'image_generate', plan.model, `image_generate:${plan.model}`, plan.callback, async () => {
    if (plan.vector) return { ext: 'svg', mime: 'image/svg+xml', data: makeSvg(prompt, controls) };
    const { width, height } = outputSize(plan.resolution, plan.imageSize);
    return { ext: 'png', mime: 'image/png', data: await makePng(prompt, width, height) };
  });
  return { status: 200, body: taskReply(ctx, t) };
};

export const imageEdit: Handler = async (ctx) => {
  const b = jsonBody(ctx);
  const plan = checkEdit(b);
  const prompt = b.prompt as string;
  for (const [i, ref] of plan.sources.entries()) {
    const buf = ref.startsWith('data:') ? await loadImageRef(ref) : undefined;
    if (buf) await decodable(buf, `image_urls[${i}]`);
  }
  const t = createTask(ctx, 'image_edit', plan.model, `image_edit:${plan.model}`, plan.callback, async () => {
    const source = await loadImageRef(plan.sources[0]);
    const size = source ? await imageSize(source) : null;
    const { width, height } = outputSize(plan.resolution, plan.imageSize, size ? size.width / size.height : 1, plan.megapixelRatio);
    return { ext: 'png', mime: 'image/png', data: await makePng(prompt, width, height, source) };
  });
  return { status: 200, body: taskReply(ctx, t) };
};

export const imageVectorize: Handler = async (ctx) => {
  const b = jsonBody(ctx);
  const iss = new Issues();
  const ref = b.image_url;
  if (ref === undefined || ref === null) iss.missing(['body', 'image_url']);
  else if (typeof ref !== 'string') iss.add(['body', 'image_url'], 'string_type', 'Input should be a valid string', ref);
  else if (ref.startsWith('data:')) {
    const d = parseDataUri(ref);
    if (!d || !IMAGE_MIMES.includes(d.mime)) iss.add(['body', 'image_url'], 'value_error', 'Value error, expected a PNG, JPEG or WebP Data URI');
  } else if (!isLoopbackUrl(ref)) iss.add(['body', 'image_url'], 'value_error', 'Value error, expected a Data URI or a URL the simulator can reach (loopback)', ref);
  const cb = checkCallbackUrl(iss, b);
  iss.throwIfAny();
  const source = await loadImageRef(ref as string);
  if (!source) throw new ServiceError('Could not download image_url');
  const size = await decodable(source, 'image_url');
  const t = createTask(ctx, 'image_vectorize', 'image_vectorize', 'image_vectorize', cb, async () => ({
    ext: 'svg', mime: 'image/svg+xml', data: makeSvg(`vectorized ${size.width}x${size.height}`, [await meanColor(source)]),
  }));
  return { status: 200, body: taskReply(ctx, t) };
};

/** An image the service can use: PNG, JPEG or WebP that decodes; else 400 {status: "error", message}. */
async function decodable(buf: Buffer, field: string): Promise<{ width: number; height: number }> {
  const kind = sniffImage(buf);
  if (kind !== 'jpeg' && kind !== 'png' && kind !== 'webp') throw new ServiceError(`Unsupported image format for ${field}: PNG, JPEG or WebP expected`, 400);
  const size = await imageSize(buf);
  if (!size) throw new ServiceError(`The image in ${field} could not be decoded`, 400);
  try {
    await sharp(buf).stats();
  } catch {
    throw new ServiceError(`The image in ${field} could not be decoded`, 400);
  }
  return size;
}

async function meanColor(buf: Buffer): Promise<number[]> {
  const st = await sharp(buf).stats();
  return st.channels.slice(0, 3).map((c) => Math.round(c.mean));
}

// ---- Face swap ------------------------------------------------------------------------

async function fetchLoopbackImage(url: string, field: string): Promise<Buffer> {
  if (!isLoopbackUrl(url)) throw new ServiceError(`Could not download ${field}: the simulator fetches loopback URLs only`);
  const buf = await loadImageRef(url);
  if (!buf) throw new ServiceError(`Could not download ${field}`);
  return buf;
}

/** Face swap create (image or video target): multipart `source`/`target`, or GET `source_url`/`target_url`. */
function swapCreate(kind: 'imageswap' | 'videoswap'): Handler {
  return async (ctx) => {
    const iss = new Issues();
    let source: Buffer | undefined;
    let target: Buffer | undefined;
    const where = ctx.method === 'GET' ? 'query' : 'body';
    if (ctx.method === 'GET') {
      const s = ctx.query.get('source_url');
      const t = ctx.query.get('target_url');
      if (!s) iss.missing(['query', 'source_url']);
      if (!t) iss.missing(['query', 'target_url']);
      iss.throwIfAny();
      source = await fetchLoopbackImage(s!, 'source_url');
      target = await fetchLoopbackImage(t!, 'target_url');
    } else {
      source = ctx.body.files.source?.data;
      target = ctx.body.files.target?.data;
      if (!source) iss.missing(['body', 'source']);
      if (!target) iss.missing(['body', 'target']);
    }
    const gfp = param(ctx, 'use_gfpgan');
    if (gfp !== undefined && parseBool(gfp) === null) iss.add([where, 'use_gfpgan'], 'bool_parsing', 'Input should be a valid boolean, unable to interpret input', gfp);
    const callback = param(ctx, 'callback') ?? null;
    if (callback !== null && !isHttpUrl(callback)) iss.add([where, 'callback'], 'url_parsing', 'Input should be a valid URL', callback);
    iss.throwIfAny();
    await decodable(source!, 'source');
    if (kind === 'videoswap') {
      if (!sniffVideo(target!)) throw new ServiceError('Unsupported video format for target: MP4, MOV, MPEG or AVI expected', 400);
      const t = createTask(ctx, 'videoswap', 'videoswap', 'videoswap', callback, async () => ({ ext: 'mp4', mime: 'video/mp4', data: await makeMp4('360p') }));
      return { status: 200, body: swapStatus(ctx, t) };
    }
    const size = await decodable(target!, 'target');
    const t = createTask(ctx, 'imageswap', 'imageswap', 'imageswap', callback, async () => ({
      ext: 'png', mime: 'image/png', data: await makePng('imageswap', size.width, size.height, target),
    }));
    return { status: 200, body: swapStatus(ctx, t) };
  };
}
export const imageswapCreate = swapCreate('imageswap');
export const videoswapCreate = swapCreate('videoswap');

function swapStatus(ctx: RequestContext, t: SimTask) {
  const final = t.status === 'SUCCESS' || t.status === 'FAILURE' || t.status === 'REVOKED';
  return {
    task_id: t.task_id, status: t.status, queue: ctx.engine.queue(t), result: t.result || null, error: t.error,
    eta: final ? 0 : Math.ceil((ctx.engine.clock.pendingMs + ctx.engine.clock.startedMs) / 1000),
    progress: t.status === 'SUCCESS' ? 1 : t.status === 'STARTED' ? 0.5 : 0,
  };
}

// ---- Status and cancellation ----------------------------------------------------------

function findTask(ctx: RequestContext, id: string | undefined, loc: string[]): SimTask {
  const iss = new Issues();
  if (!id) iss.missing(loc);
  else if (!isUuid(id)) iss.add(loc, 'uuid_parsing', 'Input should be a valid UUID', id);
  iss.throwIfAny();
  const t = ctx.engine.get(ctx.clientId, id!);
  if (!t) throw new ServiceError('Task not found', 404);
  return t;
}

/**
 * resultShape fault ('object' or 'data' in `message`): a finished task's result as an object
 * holding its address, or as a Data URI of the file itself (the interface: "string or object").
 */
function shaped(ctx: RequestContext, t: SimTask): unknown {
  if (t.status !== 'SUCCESS' || !t.result) return t.result || null;
  const f = ctx.faults.take(ctx.path, ['resultShape']);
  if (!f) return t.result;
  if (f.message === 'data') {
    const file = ctx.engine.file(t.result.slice(t.result.lastIndexOf('/files/') + '/files/'.length));
    return file ? `data:${file.mime};base64,${file.data.toString('base64')}` : t.result;
  }
  return { url: t.result, expires_in: 86_400 };
}

export const status: Handler = async (ctx) => {
  const t = findTask(ctx, param(ctx, 'task_id'), [ctx.body.fields.task_id !== undefined ? 'body' : 'query', 'task_id']);
  const odd = ctx.faults.take(ctx.path, ['oddStatus']);
  return { status: 200, body: { task_id: t.task_id, status: odd ? odd.message ?? 'PAUSED' : t.status, queue: ctx.engine.queue(t), result: odd ? '' : shaped(ctx, t), error: t.error } };
};

/** /v1/imageswap/status and /v1/videoswap/status (the extra `eta` and `progress` fields). */
export const imageswapStatus: Handler = async (ctx) => {
  const t = findTask(ctx, param(ctx, 'task_id'), ['query', 'task_id']);
  return { status: 200, body: { ...swapStatus(ctx, t), result: shaped(ctx, t) } };
};

export const imageswapTerminate: Handler = async (ctx) => {
  const t = findTask(ctx, param(ctx, 'task_id'), ['query', 'task_id']);
  if (ctx.faults.take(ctx.path, ['cancelConflict'])) return { status: 409, body: { detail: 'Task cannot be cancelled in its current state' } };
  if (ctx.engine.cancel(ctx.clientId, t.task_id) === 'final') return { status: 409, body: { detail: 'Task cannot be cancelled in its current state' } };
  return { status: 200, body: { status: 'ok' } };
};

export const cancelTask: Handler = async (ctx) => {
  const id = decodeURIComponent(ctx.path.slice('/v1/tasks/'.length));
  const t = findTask(ctx, id, ['path', 'task_id']);
  // Repeated cancellation is idempotent; SUCCESS/FAILURE can no longer be cancelled.
  // cancelConflict: a running task past the point of no return (409; it runs on and is billed).
  if (ctx.faults.take(ctx.path, ['cancelConflict'])) return { status: 409, body: { detail: 'Task cannot be cancelled in its current state' } };
  if (ctx.engine.cancel(ctx.clientId, t.task_id) === 'final') return { status: 409, body: { detail: 'Task cannot be cancelled in its current state' } };
  return { status: 200, body: { task_id: t.task_id, status: t.status, queue: 0, result: t.result || null, error: null } };
};
