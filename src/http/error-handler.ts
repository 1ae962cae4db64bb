import type { Logger } from '@aws-lambda-powertools/logger';
import type { MiddlewareObj } from '@middy/core';
import { safeErrorFields } from '../observability/safe-error.js';
import { StorageUnavailableError } from '../storage/errors.js';
import {
  AccountExistsConflictError,
  ConcurrentUpdateError,
  InvalidCredentialsError,
  InvalidRequestError,
  RateLimitedError,
  TemporarilyUnavailableError,
  UnauthenticatedError,
  UseCaseError,
} from '../use-cases/errors.js';
import { HttpError } from './http-errors.js';
import type { HttpResponse, LambdaHttpEvent } from './http-types.js';
import { errorResponse } from './responses.js';

/** How long to tell clients to wait when storage failed outside a use-case (SDK retries already spent). */
const FALLBACK_RETRY_AFTER_SECONDS = 2;

interface Mapped {
  status: number;
  code: string;
  message: string;
  headers?: Record<string, string>;
}

/**
 * The one place errors become responses. Use-case and protocol errors keep their code and
 * message; anything else is a 500 with a fixed body, so no internals reach the client.
 */
export function mapError(error: unknown): Mapped {
  if (error instanceof HttpError) {
    return { status: error.statusCode, code: error.code, message: error.message, headers: error.headers };
  }
  if (error instanceof UseCaseError) {
    const { code, message } = error;
    if (error instanceof InvalidRequestError) return { status: 400, code, message };
    if (error instanceof InvalidCredentialsError) return { status: 401, code, message };
    // RFC 6750 §3: a 401 for a missing or bad bearer token names the scheme.
    if (error instanceof UnauthenticatedError) return { status: 401, code, message, headers: { 'www-authenticate': 'Bearer' } };
    if (error instanceof AccountExistsConflictError || error instanceof ConcurrentUpdateError) return { status: 409, code, message };
    if (error instanceof RateLimitedError) return { status: 429, code, message, headers: retryAfter(error.retryAfterSeconds) };
    if (error instanceof TemporarilyUnavailableError) return { status: 503, code, message, headers: retryAfter(error.retryAfterSeconds) };
  }
  // Defence in depth: storage trouble that escaped a use-case, or middy aborting just before the
  // Lambda timeout (storage or hasher too slow), is "try again", not a 500 a client treats as final.
  if (error instanceof StorageUnavailableError || isMiddyTimeout(error)) {
    return {
      status: 503,
      code: 'temporarily_unavailable',
      message: 'the service is temporarily unavailable; try again later',
      headers: retryAfter(FALLBACK_RETRY_AFTER_SECONDS),
    };
  }
  return { status: 500, code: 'internal_error', message: 'internal error' };
}

export function httpErrorHandler({ logger }: { logger: Logger }): MiddlewareObj<LambdaHttpEvent, HttpResponse> {
  return {
    onError: (request) => {
      const { error } = request;
      const mapped = mapError(error);
      if (mapped.status >= 500 && mapped.code === 'internal_error') {
        logger.error('unhandled error', { error: safeErrorFields(error) });
      } else if (mapped.status >= 500) {
        logger.warn('request failed', { status: mapped.status, code: mapped.code, cause: safeErrorFields(error) });
      } else {
        // Field names only (e.g. "email"), never values.
        const field = error instanceof InvalidRequestError ? error.field : undefined;
        logger.info('request rejected', { status: mapped.status, code: mapped.code, ...(field && { field }) });
      }
      // Set, not returned: a returned value would stop the remaining onError middlewares
      // (logger cleanup, metrics flush).
      request.response = errorResponse(mapped.status, mapped.code, mapped.message, mapped.headers);
    },
  };
}

function isMiddyTimeout(error: unknown): boolean {
  return error instanceof Error && error.name === 'TimeoutError' && (error.cause as { package?: unknown } | undefined)?.package === '@middy/core';
}

function retryAfter(seconds: number): Record<string, string> {
  return { 'retry-after': String(Math.max(1, Math.ceil(seconds))) };
}
