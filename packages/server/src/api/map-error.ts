import { PasslaneServerError, type ErrorCode } from '../accounts/errors.js';
import { translateError } from '../accounts/translate-errors.js';
import { ERROR_HEADERS, ERROR_TABLE, type ErrorAnswer } from './error-table.js';
import { errorResponse, type ApiResponse } from './responses.js';

export interface MappedError {
  status: number;
  code: ErrorCode;
  message: string;
  headers: Record<string, string>;
  /** The body's `error.reason`, where the table answers it (`password_rejected`). */
  reason?: string;
  /** The request field at fault: for the log line, never the body. */
  field?: string;
}

const INTERNAL_ERROR: MappedError = { status: ERROR_TABLE.internal_error.status, code: 'internal_error', message: ERROR_TABLE.internal_error.message, headers: {} };

/**
 * The one place errors become answers: the error's code looked up in ERROR_TABLE. Lower layers'
 * errors that escaped a use case (storage down) are translated first, as use cases translate
 * them. Anything else is a 500 with a fixed body, so no internals reach the client.
 */
export function mapError(error: unknown): MappedError {
  const known = translateError(error);
  // A code the table lacks can only come from JavaScript that ignored the types: still a 500.
  if (!(known instanceof PasslaneServerError) || !Object.hasOwn(ERROR_TABLE, known.code)) return INTERNAL_ERROR;
  const answer: ErrorAnswer = ERROR_TABLE[known.code];
  return {
    status: answer.status,
    code: known.code,
    message: answer.message ?? known.message,
    headers: Object.fromEntries((answer.headers ?? []).map((name) => [name, ERROR_HEADERS[name](known)])),
    ...(answer.body?.includes('reason') && known.reason !== undefined && { reason: known.reason }),
    ...(known.field !== undefined && { field: known.field }),
  };
}

/** `{"error":{"code","message"}}` (with `reason` where mapped) and the mapped status and headers. */
export function toErrorResponse(mapped: MappedError): ApiResponse {
  return errorResponse(mapped.status, mapped.code, mapped.message, mapped.headers, mapped.reason);
}
