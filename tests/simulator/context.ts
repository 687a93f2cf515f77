// What an endpoint handler gets to work with, and what it answers.
import type { ParsedBody } from './body.js';
import type { Faults } from './meter.js';
import type { TaskEngine } from './tasks.js';

export interface RequestContext {
  method: string;
  path: string;
  query: URLSearchParams;
  body: ParsedBody;
  contentType: string;
  clientId: string;
  /** Count one billed call of `model`; throws QuotaExhausted when nothing is left. */
  charge(model: string): void;
  engine: TaskEngine;
  faults: Faults;
  videoMaxBytes: number;
  /** how /v1/faces gives its boxes: pixels of the upload (default) or fractions 0..1 of it */
  faceBoxes: 'pixels' | 'normalized';
}

export interface Reply {
  status: number;
  body: unknown;
}

export type Handler = (ctx: RequestContext) => Promise<Reply>;

export class QuotaExhausted extends Error {}

/** Query parameters, overridden by form fields for POST (url-encoded or multipart): TTS, face swap, status. */
export function param(ctx: RequestContext, name: string): string | undefined {
  return ctx.body.fields[name] ?? ctx.query.get(name) ?? undefined;
}

/**
 * The analysis endpoints read their parameters from the query string only, also for POST (as
 * the live service does): a form field of the same name is ignored.
 */
export function queryParam(ctx: RequestContext, name: string): string | undefined {
  return ctx.query.get(name) ?? undefined;
}
