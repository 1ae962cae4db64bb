import { MAX_JSON_BODY_BYTES } from './read-json-body.js';
import type { ErrorCode } from '../accounts/errors.js';
import type { AnswerDoc, HeaderDoc, OperationDoc } from './operation-doc.js';
import type { Authentication } from './route.js';

/**
 * The answers and headers routes share in the API's document (operation-doc.ts): those of the
 * toolkit's own errors (an unknown path or method, a body it refuses), and those of the error
 * codes every use case may meet. Their codes' statuses are the error table's (error-table.ts).
 */

export const NO_STORE: HeaderDoc = {
  name: 'NoStore',
  description: '`no-store`: responses carrying tokens or account state are never cached.',
  schema: { type: 'string', const: 'no-store' },
};

export const PRAGMA_NO_CACHE: HeaderDoc = {
  name: 'PragmaNoCache',
  required: true,
  description: '`no-cache`, for HTTP/1.0 caches: every answer of the token endpoint (RFC 6749 §5.1).',
  schema: { type: 'string', const: 'no-cache' },
};

export const RETRY_AFTER: HeaderDoc = {
  name: 'RetryAfter',
  required: true,
  description: 'Whole seconds to wait before retrying.',
  schema: { type: 'integer', minimum: 1 },
};

/** A body of `{ email }` alone that is not one (the reset and device approval requests). */
export const BAD_EMAIL_REQUEST: AnswerDoc = {
  description: '`invalid_json`: the body is not valid UTF-8 JSON. `invalid_request`: the body is not an object, or `email` is missing, not a string or not an address.',
  codes: ['invalid_json', 'invalid_request'],
};

export const BAD_REQUEST: AnswerDoc = {
  name: 'BadRequest',
  description: `\`invalid_json\`: the body is not valid UTF-8 JSON. \`invalid_request\`: the body is not an
object, a field is missing or not a string, the email is not an address, or (login) the
password is over 1024 bytes. \`password_rejected\` (register, password change, reset): the new
password breaks the password rules, \`error.reason\` says which (packages/server/src/features/password/rules/README.md).
`,
  codes: ['invalid_json', 'invalid_request', 'password_rejected'],
};

export const NOT_FOUND: AnswerDoc = {
  name: 'NotFound',
  description: 'No such path (`not_found`); answered by the router, not by an operation.',
  codes: ['not_found'],
};

export const METHOD_NOT_ALLOWED: AnswerDoc = {
  name: 'MethodNotAllowed',
  description: 'Another method than the one this path serves (`method_not_allowed`).',
  headers: { Allow: { required: true, schema: { type: 'string' } } },
  codes: ['method_not_allowed'],
};

export const PAYLOAD_TOO_LARGE: AnswerDoc = {
  name: 'PayloadTooLarge',
  description: `The decoded body is larger than ${MAX_JSON_BODY_BYTES / 1024} KiB (\`payload_too_large\`).`,
  codes: ['payload_too_large'],
};

export const UNSUPPORTED_MEDIA_TYPE: AnswerDoc = {
  name: 'UnsupportedMediaType',
  description: 'Content-Type is not `application/json` (with an optional UTF-8 charset) (`unsupported_media_type`).',
  codes: ['unsupported_media_type'],
};

export const RATE_LIMITED: AnswerDoc = {
  name: 'RateLimited',
  description:
    'Too many failed logins for this email from this address, for this email from anywhere, or from this address (`rate_limited`; packages/server/src/features/login/LIMITS.md); for registration and password change, too many attempts.',
  headers: { 'Retry-After': RETRY_AFTER },
  codes: ['rate_limited'],
};

export const TEMPORARILY_UNAVAILABLE: AnswerDoc = {
  name: 'TemporarilyUnavailable',
  description:
    'Storage is unreachable, the hasher is saturated, or the breach check could not answer and PASSLANE_BREACH_CHECK_FAIL_CLOSED=true (`temporarily_unavailable`); nothing was decided.',
  headers: { 'Retry-After': RETRY_AFTER },
  codes: ['temporarily_unavailable'],
};

/** Where an access token is minted (the logins, a federated sign-in): the token hook's failure too (src/hooks). */
export const MINTING_UNAVAILABLE: AnswerDoc = {
  name: 'MintingUnavailable',
  description: `${TEMPORARILY_UNAVAILABLE.description} \`token_hook_unavailable\`: the token hook gave no usable answer and PASSLANE_TOKEN_HOOK_ON_FAILURE is \`refuse\` (the default); no session was started.`,
  headers: { 'Retry-After': RETRY_AFTER },
  codes: ['temporarily_unavailable', 'token_hook_unavailable'],
};

/** Where an account may be created (registration, a first federated sign-in, lazy migration at login): the sign-up hook's silence. */
export const SIGNUP_UNAVAILABLE: AnswerDoc = {
  name: 'SignupUnavailable',
  description: `${TEMPORARILY_UNAVAILABLE.description} \`signup_hook_unavailable\`: the sign-up hook gave no usable answer, so no account was created.`,
  headers: { 'Retry-After': RETRY_AFTER },
  codes: ['temporarily_unavailable', 'signup_hook_unavailable'],
};

/** Both: a login that may create its account (lazy migration, a first federated sign-in) and then mints its token. */
export const LOGIN_UNAVAILABLE: AnswerDoc = {
  name: 'LoginUnavailable',
  description: `${MINTING_UNAVAILABLE.description} \`signup_hook_unavailable\`: the account would be created here (lazy migration, a first federated sign-in) and the sign-up hook gave no usable answer.`,
  headers: { 'Retry-After': RETRY_AFTER },
  codes: ['temporarily_unavailable', 'token_hook_unavailable', 'signup_hook_unavailable'],
};

/** The text a 403 adds where the sign-up hook may refuse. */
export const SIGNUP_REFUSED_TEXT = `\`signup_refused\`: the deployment's sign-up hook refused the account; \`reason\` is its own code (\`[a-z0-9_]\`, at most 64).\n`;

export const INTERNAL_ERROR: AnswerDoc = {
  name: 'InternalError',
  description: 'An unexpected error: always `{"error":{"code":"internal_error","message":"internal error"}}`.',
  codes: ['internal_error'],
};

/**
 * The answers createApi gives a route of its own accord, before or around its handler: another
 * method on its path (405), an error nobody named (500), and for a route with a body its
 * envelope's refusals (413, 415). A route's own answer for one of these statuses wins.
 */
export function toolkitAnswers(hasBody: boolean): OperationDoc['answers'] {
  const envelope: OperationDoc['answers'] = hasBody ? { 413: PAYLOAD_TOO_LARGE, 415: UNSUPPORTED_MEDIA_TYPE } : {};
  return { 405: METHOD_NOT_ALLOWED, ...envelope, 500: INTERNAL_ERROR };
}

/**
 * The codes a route's `authenticate` may answer, by status, which its document's answers must
 * list (scripts/generate-openapi.ts refuses a route that leaves one out): a token refused, a
 * scope missing, and what the declaration adds (PASSLANE_REQUIRE_MFA's second factor on
 * `session`; a login too old, or without the factor, on the recent ones).
 */
export function authenticationCodes(authentication: Authentication): { 401: readonly ErrorCode[]; 403: readonly ErrorCode[] } {
  const added: ErrorCode[] = authentication === 'session' ? ['insufficient_user_authentication'] : authentication === 'factor-session' ? [] : ['reauthentication_required'];
  return { 401: ['unauthenticated'], 403: ['insufficient_scope', ...added] };
}
