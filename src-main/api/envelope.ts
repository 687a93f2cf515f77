import type { ApiErrorShape } from '../../src-preload/contract';
import type { ApiError } from '../core/errors';

/** The envelope's error for a domain error: kind, message and (when known) the field at fault. */
export function errorShape(err: ApiError): ApiErrorShape {
  return err.field ? { kind: err.kind, message: err.message, field: err.field } : { kind: err.kind, message: err.message };
}
