import type { ErrorCode, PasslaneServerError } from '../accounts/errors.js';

/**
 * RFC 6749 §5.2's `error` values passlane's token endpoint answers (`server_error` and
 * `temporarily_unavailable` are §4.1.2.1's, which OAuth clients read at the token endpoint too).
 */
export const OAUTH_ERROR_CODES = ['invalid_request', 'invalid_grant', 'unsupported_grant_type', 'temporarily_unavailable', 'server_error'] as const;
export type OAuthErrorCode = (typeof OAUTH_ERROR_CODES)[number];

/**
 * The error bodies a route may answer (its `errorBody`, route.ts): the API's own
 * `{"error":{"code","message"}}`, or RFC 6749 §5.2's flat `{"error","error_description"}`, which
 * OAuth 2.0 clients read at the token endpoint.
 */
export type ErrorBodyName = 'api' | 'oauth';

/**
 * How the API answers one error code: the API's body is `{"error":{"code","message"}}` plus
 * `body`'s fields; on a route with the OAuth error body, `{"error":oauth,"error_description":message}`.
 */
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
  /**
   * Its RFC 6749 §5.2 `error` on a route with the OAuth error body (the token endpoint), with the
   * same status and headers. Codes no such route raises have none: one that got there anyway is
   * answered as `internal_error`, as a code missing from the table is.
   */
  readonly oauth?: OAuthErrorCode;
}

/** Seconds to wait when an error answered with Retry-After does not say how long (the SDK's retries are spent). */
export const FALLBACK_RETRY_AFTER_SECONDS = 2;

/** Each header an error answer may carry, and where its value comes from. */
export const ERROR_HEADERS = {
  // RFC 9110 §15.5.6: a 405 lists the methods the path serves.
  allow: (error: PasslaneServerError) => error.allow ?? '',
  // Whole seconds (RFC 9110 §10.2.3), at least one.
  'retry-after': (error: PasslaneServerError) => String(Math.max(1, Math.ceil(error.retryAfterSeconds ?? FALLBACK_RETRY_AFTER_SECONDS))),
  // RFC 6750 §3: a 401 for a missing or bad bearer token names the scheme; §3.1: a token
  // without the required scope also names the error, so a client does not refresh in vain.
  'www-authenticate': (error: PasslaneServerError) => (error.code === 'insufficient_scope' || error.code === 'insufficient_user_authentication' ? `Bearer error="${error.code}"` : 'Bearer'),
} as const satisfies Record<string, (error: PasslaneServerError) => string>;

export type ErrorHeader = keyof typeof ERROR_HEADERS;

/**
 * The one table from error code to HTTP answer (README.md here shows it, and a test keeps the two
 * equal). An error that is not a PasslaneServerError is answered as `internal_error`.
 */
export const ERROR_TABLE = {
  invalid_request: { status: 400, oauth: 'invalid_request' },
  invalid_json: { status: 400, oauth: 'invalid_request' },
  password_rejected: { status: 400, body: ['reason'] },
  unsupported_grant_type: { status: 400, oauth: 'unsupported_grant_type' },
  invalid_token: { status: 400 },
  // RFC 6749 §5.2: a refused grant is 400, never 401 (that is for client authentication).
  invalid_grant: { status: 400, oauth: 'invalid_grant' },
  refresh_token_reused: { status: 400, oauth: 'invalid_grant' },
  invalid_credentials: { status: 401 },
  unauthenticated: { status: 401, headers: ['www-authenticate'] },
  insufficient_scope: { status: 403, headers: ['www-authenticate'] },
  insufficient_user_authentication: { status: 403, headers: ['www-authenticate'] },
  reauthentication_required: { status: 403 },
  // The body adds `mfaToken` and `methods` beside `error` (login-route.ts).
  mfa_required: { status: 401 },
  invalid_mfa_token: { status: 401 },
  invalid_mfa_code: { status: 401 },
  factor_suspended: { status: 403 },
  mfa_already_enabled: { status: 409 },
  mfa_not_enabled: { status: 409 },
  // One answer for every refused passkey (unknown, bad signature, used challenge, counter): it tells a prober nothing.
  invalid_passkey: { status: 401 },
  passkey_not_found: { status: 404 },
  passkey_limit_reached: { status: 409 },
  // The deployment names no relying party: the routes exist, the feature is off (RFC 9110 §15.6.2).
  passkeys_not_configured: { status: 501 },
  email_not_verified: { status: 403 },
  account_disabled: { status: 403 },
  provider_not_found: { status: 404 },
  redirect_not_allowed: { status: 400 },
  invalid_oauth_state: { status: 400 },
  provider_refused: { status: 400 },
  invalid_oauth_code: { status: 400 },
  // The body adds `linkToken` beside `error` (features/federation/federation-routes.ts).
  identity_link_required: { status: 409 },
  provider_email_unverified: { status: 403 },
  identity_not_found: { status: 404 },
  last_sign_in_method: { status: 409 },
  not_found: { status: 404 },
  session_not_found: { status: 404 },
  device_not_found: { status: 404 },
  user_not_found: { status: 404 },
  method_not_allowed: { status: 405, headers: ['allow'], oauth: 'invalid_request' },
  account_exists: { status: 409 },
  conflict: { status: 409 },
  // Told only to the holder of a confirmed change's link, never to the one who asks for a change.
  email_taken: { status: 409 },
  payload_too_large: { status: 413, oauth: 'invalid_request' },
  unsupported_media_type: { status: 415, oauth: 'invalid_request' },
  // RFC 6749 has no code for a rate limit: the status and Retry-After say it, the code says "later".
  rate_limited: { status: 429, headers: ['retry-after'], oauth: 'temporarily_unavailable' },
  internal_error: { status: 500, message: 'internal error', oauth: 'server_error' },
  temporarily_unavailable: {
    status: 503,
    message: 'the service is temporarily unavailable; try again later',
    headers: ['retry-after'],
    oauth: 'temporarily_unavailable',
  },
  // A token hook that failed where its failure refuses (src/hooks/README.md): the client tries again later.
  token_hook_unavailable: { status: 503, headers: ['retry-after'], oauth: 'temporarily_unavailable' },
  // The reason is the sign-up hook's own code (`[a-z0-9_]`, at most 64): a client branches on it.
  signup_refused: { status: 403, body: ['reason'] },
  signup_hook_unavailable: { status: 503, headers: ['retry-after'] },
} as const satisfies Record<ErrorCode, ErrorAnswer>;
