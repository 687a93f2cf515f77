import type { ApiErrorShape } from '../../src-preload/contract';

/**
 * An error a person can act on. `message` says what happened and what to do, never a stack
 * trace or a secret. Anything thrown that is not an ApiError reaches callers as 'internal'
 * with a generic message (details go to the log).
 */
export class ApiError extends Error {
  constructor(
    readonly kind: ApiErrorShape['kind'],
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toShape(): ApiErrorShape {
    return this.field ? { kind: this.kind, message: this.message, field: this.field } : { kind: this.kind, message: this.message };
  }
}

export const notFound = (what: string): ApiError => new ApiError('not_found', `${what} was not found. It may have been removed from the library.`);
