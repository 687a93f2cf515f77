// What can go wrong talking to the service, as distinct kinds the queue and the UI act on.
// Messages say what happened and what to do; they never contain a secret (the client never
// puts the Authorization header, the secret or a request body into an error).

export type ServiceErrorKind =
  /** 401/403: wrong or missing Client ID / Secret */
  | 'credentials'
  /** 429: free quota and balance exhausted */
  | 'quota'
  /** 502: over the per-second limit (not billed; retry later) */
  | 'rate_limited'
  /** 422, a 200 with status "error", or a parameter refused before sending */
  | 'invalid_input'
  /** 5xx (other than 502) and unexpected answers */
  | 'service'
  /** the service could not be reached (refused, reset before sending, DNS, connect timeout) */
  | 'offline'
  /** the request was sent but the answer was lost: it may have been billed */
  | 'unknown_outcome'
  /** a billed call answered success in a shape Tagsmith cannot read: it was carried out (and billed); never sent again by itself */
  | 'unreadable'
  /** the caller aborted */
  | 'cancelled'
  /** 404 for a task or path */
  | 'not_found'
  /** 409: a task that can no longer be cancelled */
  | 'conflict';

export class ServiceError extends Error {
  override readonly name = 'ServiceError';
  constructor(
    readonly kind: ServiceErrorKind,
    message: string,
    readonly details: {
      /** HTTP status, when an answer arrived */
      status?: number;
      /** the parameter at fault (wire name, e.g. `num_keywords`) */
      field?: string;
      /** true when the request never left the machine (validation before sending) */
      local?: boolean;
      /** 'unreadable': the answer as it came (at most 64 KB), kept so nothing paid for is lost */
      raw?: string;
    } = {},
  ) {
    super(message);
  }

  get status(): number | undefined {
    return this.details.status;
  }

  get field(): string | undefined {
    return this.details.field;
  }

  toJSON(): { kind: ServiceErrorKind; message: string; status?: number; field?: string } {
    return { kind: this.kind, message: this.message, ...(this.details.status ? { status: this.details.status } : {}), ...(this.details.field ? { field: this.details.field } : {}) };
  }
}

/** A parameter refused before any request is made. */
export function invalidParam(field: string, rule: string): ServiceError {
  return new ServiceError('invalid_input', `${field}: ${rule}`, { field, local: true });
}

export const isServiceError = (e: unknown): e is ServiceError => e instanceof ServiceError;
