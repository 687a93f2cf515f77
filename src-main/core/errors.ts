import type { ApiErrorShape } from '../../src-preload/contract';

/**
 * An error a person can act on, thrown by any domain. `message` says what happened and what
 * to do, never a stack trace or a secret. The Api (api/envelope.ts) turns it into the error
 * envelope; anything thrown that is not an ApiError reaches callers as 'internal' with a
 * generic message (details go to the log). The CLI prints its message.
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
}

export const notFound = (what: string): ApiError => new ApiError('not_found', `${what} was not found. It may have been removed from the library.`);
