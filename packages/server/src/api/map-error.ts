import { SecretsUnavailableError } from '../runtimes/lambda/load-secrets.js';
import { StorageUnavailableError } from '../storage/errors.js';
import {
  AccountExistsConflictError,
  ConcurrentUpdateError,
  InvalidCredentialsError,
  InvalidGrantError,
  InvalidRequestError,
  RateLimitedError,
  RefreshTokenReusedError,
  InvalidOneTimeTokenError,
  PasswordRejectedError,
  EmailNotVerifiedError,
  SessionNotFoundError,
  DeviceNotFoundError,
  TemporarilyUnavailableError,
  UnauthenticatedError,
  UnsupportedGrantTypeError,
  UseCaseError,
} from '../accounts/errors.js';
import { HttpError } from './http-error.js';

/** How long to tell clients to wait when storage failed outside a use-case (SDK retries already spent). */
export const FALLBACK_RETRY_AFTER_SECONDS = 2;

export interface MappedError {
  status: number;
  code: string;
  message: string;
  headers?: Record<string, string>;
  /** Why a new password was refused (`password_rejected`): the body's `error.reason`. */
  reason?: string;
}

/**
 * The one place errors become statuses (table in README.md). Use-case and protocol errors keep
 * their code and message; anything else is a 500 with a fixed body, so no internals reach the client.
 */
export function mapError(error: unknown): MappedError {
  if (error instanceof HttpError) {
    return { status: error.statusCode, code: error.code, message: error.message, headers: error.headers };
  }
  if (error instanceof UseCaseError) {
    const { code, message } = error;
    if (error instanceof InvalidRequestError || error instanceof UnsupportedGrantTypeError || error instanceof InvalidOneTimeTokenError) {
      return { status: 400, code, message };
    }
    if (error instanceof PasswordRejectedError) return { status: 400, code, message, reason: error.reason };
    if (error instanceof EmailNotVerifiedError) return { status: 403, code, message };
    if (error instanceof InvalidGrantError || error instanceof RefreshTokenReusedError) return { status: 401, code, message };
    if (error instanceof SessionNotFoundError || error instanceof DeviceNotFoundError) return { status: 404, code, message };
    if (error instanceof InvalidCredentialsError) return { status: 401, code, message };
    // RFC 6750 §3: a 401 for a missing or bad bearer token names the scheme.
    if (error instanceof UnauthenticatedError) return { status: 401, code, message, headers: { 'www-authenticate': 'Bearer' } };
    if (error instanceof AccountExistsConflictError || error instanceof ConcurrentUpdateError) return { status: 409, code, message };
    if (error instanceof RateLimitedError) return { status: 429, code, message, headers: retryAfter(error.retryAfterSeconds) };
    if (error instanceof TemporarilyUnavailableError) return { status: 503, code, message, headers: retryAfter(error.retryAfterSeconds) };
  }
  // Defence in depth: storage trouble that escaped a use-case is "try again", not a final 500.
  if (error instanceof StorageUnavailableError) return temporarilyUnavailable();
  // The secret store unreachable at cold start: the next attempt can succeed.
  if (error instanceof SecretsUnavailableError) return temporarilyUnavailable(error.retryAfterSeconds);
  return { status: 500, code: 'internal_error', message: 'internal error' };
}

function temporarilyUnavailable(seconds = FALLBACK_RETRY_AFTER_SECONDS): MappedError {
  return {
    status: 503,
    code: 'temporarily_unavailable',
    message: 'the service is temporarily unavailable; try again later',
    headers: retryAfter(seconds),
  };
}

function retryAfter(seconds: number): Record<string, string> {
  return { 'retry-after': String(Math.max(1, Math.ceil(seconds))) };
}
