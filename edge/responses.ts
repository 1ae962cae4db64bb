import { mapError } from '../src/http/error-handler.js';
import type { HttpResponse } from '../src/http/http-types.js';
import { errorResponse } from '../src/http/responses.js';
import { InvalidRequestError } from '../src/use-cases/errors.js';
import { log, logError } from './edge-log.js';

/** The Lambda handlers' response shape (headers and body from src/http/responses.ts) as a fetch Response. */
export function toFetchResponse({ statusCode, headers, body }: HttpResponse): Response {
  return new Response(statusCode === 204 ? null : body, { status: statusCode, headers });
}

/**
 * Errors become responses through the Lambda error handler's own mapping, so both answer the
 * same status, code, message and headers (Retry-After, WWW-Authenticate); logged the same way.
 */
export function errorToResponse(error: unknown, route: string): Response {
  const mapped = mapError(error);
  if (mapped.status >= 500 && mapped.code === 'internal_error') {
    logError('ERROR', 'unhandled error', error, { route });
  } else if (mapped.status >= 500) {
    logError('WARN', 'request failed', error, { route, status: mapped.status, code: mapped.code });
  } else {
    // Field names only (e.g. "email"), never values.
    const field = error instanceof InvalidRequestError ? error.field : undefined;
    log('INFO', 'request rejected', { route, status: mapped.status, code: mapped.code, ...(field && { field }) });
  }
  return toFetchResponse(errorResponse(mapped.status, mapped.code, mapped.message, mapped.headers));
}
