import type { ErrorCode, PasslaneServerError } from '../accounts/errors.js';

/** How the API answers one error code: the body is always `{"error":{"code","message"}}` plus `body`'s fields. */
export interface ErrorAnswer {
  readonly status: number;
  /**
   * The body's message whatever the error's own: a 500 must not show internals, and a 503's
   * cause (storage, hasher, secrets) is for the logs. Without it, the error's message is answered.
   */
  readonly message?: string;
  /** Response headers, their values from ERROR_HEADERS. */
  readonly headers?: readonly ErrorHeader[];
  /** The error's details answered inside `error`. */
  readonly body?: readonly 'reason'[];
}

/** Seconds to wait when an error answered with Retry-After does not say how long (the SDK's retries are spent). */
export const FALLBACK_RETRY_AFTER_SECONDS = 2;

/** Each header an error answer may carry, and where its value comes from. */
export const ERROR_HEADERS = {
  // RFC 9110 §15.5.6: a 405 lists the methods the path serves.
  allow: (error: PasslaneServerError) => error.allow ?? '',
  // Whole seconds (RFC 9110 §10.2.3), at least one.
  'retry-after': (error: PasslaneServerError) => String(Math.max(1, Math.ceil(error.retryAfterSeconds ?? FALLBACK_RETRY_AFTER_SECONDS))),
  // RFC 6750 §3: a 401 for a missing or bad bearer token names the scheme.
  'www-authenticate': () => 'Bearer',
} as const satisfies Record<string, (error: PasslaneServerError) => string>;

export type ErrorHeader = keyof typeof ERROR_HEADERS;

/**
 * The one table from error code to HTTP answer (README.md here shows it, and a test keeps the two
 * equal). An error that is not a PasslaneServerError is answered as `internal_error`.
 */
export const ERROR_TABLE = {
  invalid_request: { status: 400 },
  invalid_json: { status: 400 },
  password_rejected: { status: 400, body: ['reason'] },
  unsupported_grant_type: { status: 400 },
  invalid_token: { status: 400 },
  invalid_credentials: { status: 401 },
  invalid_grant: { status: 401 },
  refresh_token_reused: { status: 401 },
  unauthenticated: { status: 401, headers: ['www-authenticate'] },
  email_not_verified: { status: 403 },
  not_found: { status: 404 },
  session_not_found: { status: 404 },
  device_not_found: { status: 404 },
  method_not_allowed: { status: 405, headers: ['allow'] },
  account_exists: { status: 409 },
  conflict: { status: 409 },
  payload_too_large: { status: 413 },
  unsupported_media_type: { status: 415 },
  rate_limited: { status: 429, headers: ['retry-after'] },
  internal_error: { status: 500, message: 'internal error' },
  temporarily_unavailable: { status: 503, message: 'the service is temporarily unavailable; try again later', headers: ['retry-after'] },
} as const satisfies Record<ErrorCode, ErrorAnswer>;
