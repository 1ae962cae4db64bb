import { PasslaneServerError, type ErrorCode } from '../accounts/errors.js';
import { translateError } from '../accounts/translate-errors.js';
import { ERROR_HEADERS, ERROR_TABLE, type ErrorAnswer, type ErrorBodyName, type OAuthErrorCode } from './error-table.js';
import { errorResponse, oauthErrorResponse, type ApiResponse } from './responses.js';

export interface MappedError {
  status: number;
  code: ErrorCode;
  message: string;
  headers: Record<string, string>;
  /** The body's `error.reason`, where the table answers it (`password_rejected`). */
  reason?: string;
  /** The request field at fault: for the log line, never the body. */
  field?: string;
  /** RFC 6749 §5.2's `error` for it, where the table has one (the OAuth error body's). */
  oauth?: OAuthErrorCode;
}

const INTERNAL_ERROR: MappedError = {
  status: ERROR_TABLE.internal_error.status,
  code: 'internal_error',
  message: ERROR_TABLE.internal_error.message,
  headers: {},
  oauth: ERROR_TABLE.internal_error.oauth,
};

/**
 * The one place errors become answers: the error's code looked up in ERROR_TABLE. Lower layers'
 * errors that escaped a use case (storage down) are translated first, as use cases translate
 * them. Anything else is a 500 with a fixed body, so no internals reach the client.
 */
export function mapError(error: unknown, body: ErrorBodyName = 'api'): MappedError {
  const known = translateError(error);
  // A code the table lacks can only come from JavaScript that ignored the types: still a 500.
  if (!(known instanceof PasslaneServerError) || !Object.hasOwn(ERROR_TABLE, known.code)) return INTERNAL_ERROR;
  const answer: ErrorAnswer = ERROR_TABLE[known.code];
  // A code with no OAuth meaning on a route answering OAuth's body: the table lacks it there, so a 500 too.
  if (body === 'oauth' && answer.oauth === undefined) return INTERNAL_ERROR;
  return {
    status: answer.status,
    code: known.code,
    message: answer.message ?? known.message,
    headers: Object.fromEntries((answer.headers ?? []).map((name) => [name, ERROR_HEADERS[name](known)])),
    ...(answer.body?.includes('reason') && known.reason !== undefined && { reason: known.reason }),
    ...(known.field !== undefined && { field: known.field }),
    ...(answer.oauth !== undefined && { oauth: answer.oauth }),
  };
}

/** How each error body is written, from the mapped error (its status and headers alike). */
const ERROR_BODIES: Record<ErrorBodyName, (mapped: MappedError) => ApiResponse> = {
  // `{"error":{"code","message"}}`, with `reason` where mapped.
  api: (mapped) => errorResponse(mapped.status, mapped.code, mapped.message, mapped.headers, mapped.reason),
  // `{"error","error_description"}`; mapped for this body (mapError's `body`), every error has an `oauth`.
  oauth: (mapped) => oauthErrorResponse(mapped.status, mapped.oauth ?? 'server_error', mapped.message, mapped.headers),
};

/** The mapped error as an answer with `body`'s shape (the route's `errorBody`), its status and headers. */
export function toErrorResponse(mapped: MappedError, body: ErrorBodyName = 'api'): ApiResponse {
  return ERROR_BODIES[body](mapped);
}
