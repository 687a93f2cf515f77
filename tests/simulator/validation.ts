// The vendor's 422 body: {detail: [{type, loc, msg, input, ctx?}]} (FastAPI/pydantic style).

export interface ValidationIssue {
  type: string;
  loc: (string | number)[];
  msg: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

export class Invalid extends Error {
  constructor(public issues: ValidationIssue[]) {
    super(issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; '));
  }
}

/**
 * `{status: "error", message}`: the interface's "other failures". The code is not stated: an
 * input the service cannot use (undecodable, wrong format) is a 400; a failure fetching a URL
 * or an unknown voice is answered 200 (as the old free tier did).
 */
export class ServiceError extends Error {
  constructor(message: string, public httpStatus = 200) {
    super(message);
  }
}

export class Issues {
  list: ValidationIssue[] = [];
  add(loc: (string | number)[], type: string, msg: string, input?: unknown, ctx?: Record<string, unknown>): void {
    this.list.push({ type, loc, msg, input, ...(ctx ? { ctx } : {}) });
  }
  missing(loc: (string | number)[]): void {
    this.add(loc, 'missing', 'Field required');
  }
  enum(loc: (string | number)[], input: unknown, allowed: readonly string[]): void {
    this.add(loc, 'enum', `Input should be ${allowed.map((a) => `'${a}'`).join(', ')}`, input, {
      expected: allowed.map((a) => `'${a}'`).join(', '),
    });
  }
  throwIfAny(): void {
    if (this.list.length) throw new Invalid(this.list);
  }
}

export function parseIntStrict(v: string): number | null {
  return /^[+-]?\d+$/.test(v.trim()) ? Number(v) : null;
}

export function parseFloatStrict(v: string): number | null {
  const t = v.trim();
  return t !== '' && /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t) ? Number(t) : null;
}

/** pydantic's lax boolean parsing. */
export function parseBool(v: string): boolean | null {
  const t = v.trim().toLowerCase();
  if (['true', '1', 'yes', 'on', 't', 'y'].includes(t)) return true;
  if (['false', '0', 'no', 'off', 'f', 'n'].includes(t)) return false;
  return null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (v: string) => UUID.test(v);

export function isLoopbackUrl(v: string): boolean {
  try {
    const u = new URL(v);
    return (u.protocol === 'http:' || u.protocol === 'https:') &&
      ['127.0.0.1', 'localhost', '[::1]', '::1'].includes(u.hostname);
  } catch {
    return false;
  }
}

export function isHttpUrl(v: string): boolean {
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}
