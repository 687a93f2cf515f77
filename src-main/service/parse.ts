// Answers of the service into typed results. Anything that does not fit is a 'service' error
// with a plain message (never the raw body, which could echo input).
import { ServiceError } from './errors';
import { isQuotaMessage } from './quota';
import type {
  CaptionResult, Color, Face, FacesResult, Keyword, KeywordsResult, QualityResult, TaskCreated, TaskState, UgcQualityResult, Voice,
} from './types';

type Json = Record<string, unknown>;

const bad = (what: string) => new ServiceError('service', `The service sent an answer Tagsmith does not understand (${what}). Try again later.`);

function obj(v: unknown, what: string): Json {
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw bad(what);
  return v as Json;
}

function num(v: unknown, what: string): number {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n)) throw bad(what);
  return n;
}


/** The service's own message of an error answer, or null. */
export function serviceMessage(body: unknown): string | null {
  const m = (body as Json | null)?.message;
  return typeof m === 'string' && m.trim() ? m.trim() : null;
}

/**
 * status "ok" or true is success; "error" (even with HTTP 200) is an error with the service's
 * message: final for this request (not retried, not billed), except when it is the service's
 * wording of a used-up quota (quota.ts), which holds billed work like a 429.
 */
export function checkStatus(body: Json): void {
  if (body.status === 'error' || body.status === false) {
    const msg = serviceMessage(body);
    if (msg && isQuotaMessage(msg)) {
      throw new ServiceError('quota', `The service says the quota is used up: "${msg}". Billed work is paused; top up the account, then resume.`, { status: 200 });
    }
    throw new ServiceError('invalid_input', msg ? `The service refused the request: ${msg}` : 'The service refused the request (it gave no reason).', { status: 200 });
  }
}

export function parseKeywords(raw: unknown): KeywordsResult {
  const body = obj(raw, 'keywords');
  checkStatus(body);
  if (!Array.isArray(body.keywords)) throw bad('keywords list missing');
  const keywords: Keyword[] = body.keywords.map((k) => {
    const o = obj(k, 'keyword');
    if (typeof o.keyword !== 'string') throw bad('keyword text');
    return { keyword: o.keyword, score: num(o.score, 'keyword score') };
  });
  const out: KeywordsResult = { keywords };
  if (Array.isArray(body.colors)) {
    out.colors = body.colors.map((c): Color => {
      const o = obj(c, 'colour');
      return {
        name: String(o.name ?? ''),
        rgb: Array.isArray(o.rgb) ? o.rgb.map((x) => num(x, 'rgb')) : [],
        hex: String(o.hex ?? ''),
        percentage: o.percentage === undefined ? 0 : num(o.percentage, 'colour share'),
      };
    });
  }
  return out;
}

export function parseCaption(raw: unknown): CaptionResult {
  const body = obj(raw, 'caption');
  checkStatus(body);
  const r = obj(body.result, 'caption result');
  if (typeof r.caption !== 'string') throw bad('caption text');
  return { caption: r.caption };
}

export function parseFaces(raw: unknown): FacesResult {
  const body = obj(raw, 'faces');
  checkStatus(body);
  if (!Array.isArray(body.faces)) throw bad('faces list missing');
  return {
    faces: body.faces.map((f): Face => {
      const o = obj(f, 'face');
      const bbox = Array.isArray(o.bbox) && o.bbox.length === 4 ? (o.bbox.map((x) => num(x, 'bbox')) as Face['bbox']) : ([0, 0, 0, 0] as Face['bbox']);
      return { age: num(o.age, 'age'), score: o.score === undefined ? 1 : num(o.score, 'face score'), bbox, class: String(o.class ?? '') };
    }),
  };
}

export function parseQuality(raw: unknown): QualityResult {
  const body = obj(raw, 'quality');
  checkStatus(body);
  return { score: num(obj(body.quality, 'quality').score, 'quality score') };
}

/** Interface 4.7: boundaries belong to the upper class. */
export const ugcClassOf = (score: number): UgcQualityResult['class'] => Math.max(1, Math.min(5, Math.floor(score * 5) + 1)) as UgcQualityResult['class'];

export function parseQualityUgc(raw: unknown): UgcQualityResult {
  const body = obj(raw, 'quality');
  checkStatus(body);
  const q = obj(body.quality, 'quality');
  const score = num(q.score, 'quality score');
  let cls: number | null = null;
  if (q.class !== undefined && q.class !== null && q.class !== '') {
    const n = Number(typeof q.class === 'string' ? q.class.trim() : q.class);
    if (Number.isInteger(n) && n >= 1 && n <= 5) cls = n;
  }
  return { score, class: (cls ?? ugcClassOf(score)) as UgcQualityResult['class'] };
}

export function parseVoices(raw: unknown): Voice[] {
  const list = Array.isArray(raw) ? raw : Array.isArray((raw as Json)?.voices) ? ((raw as Json).voices as unknown[]) : null;
  if (!list) throw bad('voices list');
  return list.map((v) => {
    const o = obj(v, 'voice');
    if (typeof o.api_name !== 'string') throw bad('voice name');
    return { api_name: o.api_name, language: String(o.language ?? ''), gender: String(o.gender ?? ''), age: String(o.age ?? '') };
  });
}

export function parseTaskCreated(raw: unknown): TaskCreated {
  const body = obj(raw, 'task');
  checkStatus(body);
  if (typeof body.task_id !== 'string' || !body.task_id) throw bad('task id missing');
  return {
    task_id: body.task_id,
    status: String(body.status ?? 'PENDING'),
    queue: typeof body.queue === 'number' ? body.queue : null,
    ...(typeof body.eta === 'number' ? { eta: body.eta } : {}),
  };
}

export function parseTaskState(raw: unknown): TaskState {
  const body = obj(raw, 'task status');
  if (body.status === 'error') checkStatus(body);
  if (typeof body.task_id !== 'string' || typeof body.status !== 'string') throw bad('task status');
  const result = body.result === undefined || body.result === null ? null : typeof body.result === 'string' ? body.result : JSON.stringify(body.result);
  return {
    task_id: body.task_id,
    status: body.status,
    queue: typeof body.queue === 'number' ? body.queue : null,
    result,
    error: typeof body.error === 'string' ? body.error : null,
  };
}

/** FastAPI's 422 body: {detail: [{loc, msg}]} -> "field: message". */
export function describe422(raw: unknown): { message: string; field?: string } {
  const detail = (raw as Json | null)?.detail;
  if (Array.isArray(detail) && detail.length) {
    const parts = detail.slice(0, 3).map((d) => {
      const o = d as Json;
      const loc = Array.isArray(o.loc) ? o.loc.filter((x) => x !== 'body' && x !== 'query' && x !== 'path').join('.') : '';
      return `${loc ? loc + ': ' : ''}${String(o.msg ?? 'invalid')}`;
    });
    const first = detail[0] as Json;
    const field = Array.isArray(first.loc) ? first.loc.filter((x) => x !== 'body' && x !== 'query' && x !== 'path').join('.') : undefined;
    return { message: parts.join('; '), field: field || undefined };
  }
  if (typeof detail === 'string') return { message: detail };
  const m = (raw as Json | null)?.message;
  return { message: typeof m === 'string' ? m : 'the request was refused' };
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

/**
 * The task id in an answer Tagsmith could not read otherwise (a create answered in an
 * unexpected shape): a `task_id` (or `taskId`, `id`) anywhere in it, else the one UUID in the
 * text. Null when there is none or more than one candidate: then the user gives it.
 */
export function taskIdIn(raw: string): string | null {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    json = undefined;
  }
  const found = new Set<string>();
  const visit = (v: unknown, depth: number): void => {
    if (depth > 6 || !v || typeof v !== 'object') return;
    for (const [k, x] of Object.entries(v as Json)) {
      if ((k === 'task_id' || k === 'taskId' || k === 'id') && (typeof x === 'string' || typeof x === 'number') && /^[\w-]{6,100}$/.test(String(x))) found.add(String(x));
      else visit(x, depth + 1);
    }
  };
  visit(json, 0);
  if (found.size === 1) return [...found][0];
  if (found.size > 1) return null;
  const uuids = new Set((raw.match(new RegExp(UUID.source, 'gi')) ?? []).map((u) => u.toLowerCase()));
  return uuids.size === 1 ? [...uuids][0] : null;
}
