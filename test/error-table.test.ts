/**
 * The error model: every server error is answered by its code's row in ERROR_TABLE, and the table
 * users read (packages/server/src/api/README.md) and openapi.yaml's codes are that table. What
 * each code answers is pinned here as the API answers it today, so a change to the table shows.
 */
import { readFile } from 'node:fs/promises';
import { HasherOverloadedError, PasswordTooLongError } from '../packages/passlane/src/index.js';
import { describe, expect, it } from 'vitest';
import * as accountErrors from '../packages/server/src/accounts/errors.js';
import {
  AccountExistsConflictError,
  ConcurrentUpdateError,
  AccountChangedError,
  EmailTakenError,
  DeviceNotFoundError,
  UserNotFoundError,
  InvalidPasskeyError,
  PasskeyLimitReachedError,
  PasskeyNotFoundError,
  ProviderNotFoundError,
  RedirectNotAllowedError,
  InvalidOAuthStateError,
  ProviderRefusedServerError,
  InvalidOAuthCodeError,
  IdentityLinkRequiredError,
  ProviderEmailUnverifiedError,
  IdentityNotFoundError,
  LastSignInMethodError,
  PasskeysNotConfiguredError,
  AccountDisabledError,
  EmailNotVerifiedError,
  InsufficientScopeError,
  InsufficientUserAuthenticationError,
  InvalidCredentialsError,
  InvalidMfaCodeError,
  FactorSuspendedError,
  InvalidMfaTokenError,
  MfaAlreadyEnabledError,
  MfaNotEnabledError,
  ReauthenticationRequiredError,
  InvalidGrantError,
  InvalidOneTimeTokenError,
  InvalidRequestError,
  PasslaneServerError,
  PasswordRejectedError,
  RateLimitedError,
  RefreshTokenReusedError,
  SessionNotFoundError,
  TemporarilyUnavailableError,
  UnauthenticatedError,
  UnsupportedGrantTypeError,
  TokenHookUnavailableError,
  SignupRefusedError,
  SignupHookUnavailableError,
} from '../packages/server/src/accounts/errors.js';
import { ERROR_TABLE } from '../packages/server/src/api/error-table.js';
import { HttpError } from '../packages/server/src/api/http-error.js';
import { mapError, toErrorResponse } from '../packages/server/src/api/map-error.js';
import { SecretLoadError, SecretsUnavailableError } from '../packages/server/src/runtimes/lambda/load-secrets.js';
import { StorageUnavailableError } from '../packages/server/src/storage/errors.js';
import { ConfigError } from '../packages/server/src/config/config-error.js';
import { spec } from './support/openapi.js';

/** One error of each class, and what the API answers for it. */
const ANSWERS: [PasslaneServerError, { status: number; headers?: Record<string, string>; body: object }][] = [
  [new InvalidRequestError('email must be a string', 'email'), { status: 400, body: { code: 'invalid_request', message: 'email must be a string' } }],
  [new HttpError('invalid_json', 'request body is not valid JSON'), { status: 400, body: { code: 'invalid_json', message: 'request body is not valid JSON' } }],
  [new PasswordRejectedError('common', 'choose a less common password'), { status: 400, body: { code: 'password_rejected', message: 'choose a less common password', reason: 'common' } }],
  [new UnsupportedGrantTypeError(), { status: 400, body: { code: 'unsupported_grant_type', message: 'grant_type must be refresh_token' } }],
  [new InvalidOneTimeTokenError(), { status: 400, body: { code: 'invalid_token', message: 'the link is invalid, expired or already used; ask for a new one' } }],
  [new InvalidGrantError(), { status: 400, body: { code: 'invalid_grant', message: 'the refresh token is invalid, expired or revoked' } }],
  [new RefreshTokenReusedError(), { status: 400, body: { code: 'refresh_token_reused', message: 'the refresh token was already used; the session has been ended' } }],
  [new InvalidCredentialsError(), { status: 401, body: { code: 'invalid_credentials', message: 'email or password is incorrect' } }],
  [
    new UnauthenticatedError('a Bearer access token is required'),
    { status: 401, headers: { 'www-authenticate': 'Bearer' }, body: { code: 'unauthenticated', message: 'a Bearer access token is required' } },
  ],
  [
    new InsufficientScopeError(),
    {
      status: 403,
      headers: { 'www-authenticate': 'Bearer error="insufficient_scope"' },
      body: { code: 'insufficient_scope', message: 'the access token does not carry the scope this API requires' },
    },
  ],
  [
    new InsufficientUserAuthenticationError(),
    {
      status: 403,
      headers: { 'www-authenticate': 'Bearer error="insufficient_user_authentication"' },
      body: { code: 'insufficient_user_authentication', message: 'this API requires a login with a second factor' },
    },
  ],
  [new AccountDisabledError(), { status: 403, body: { code: 'account_disabled', message: 'this account is disabled; contact support' } }],
  [new ReauthenticationRequiredError(), { status: 403, body: { code: 'reauthentication_required', message: 'this needs a recent login; log in again and retry' } }],
  [new InvalidMfaTokenError(), { status: 401, body: { code: 'invalid_mfa_token', message: 'the MFA token is invalid, expired or used up; log in again' } }],
  [new InvalidMfaCodeError(), { status: 401, body: { code: 'invalid_mfa_code', message: 'the code is wrong or was already used' } }],
  [
    new FactorSuspendedError(),
    { status: 403, body: { code: 'factor_suspended', message: 'too many wrong attempts with this factor; use a recovery code or another factor, or reset the password by mail' } },
  ],
  [new MfaAlreadyEnabledError(), { status: 409, body: { code: 'mfa_already_enabled', message: 'TOTP is already active on this account; remove it first' } }],
  [new MfaNotEnabledError(), { status: 409, body: { code: 'mfa_not_enabled', message: 'TOTP is not active on this account' } }],
  [
    new EmailNotVerifiedError(),
    { status: 403, body: { code: 'email_not_verified', message: 'the email address is not verified yet; a new verification link has been sent' } },
  ],
  [new HttpError('not_found', 'no such route'), { status: 404, body: { code: 'not_found', message: 'no such route' } }],
  [new SessionNotFoundError(), { status: 404, body: { code: 'session_not_found', message: 'no such session' } }],
  [new DeviceNotFoundError(), { status: 404, body: { code: 'device_not_found', message: 'no such device' } }],
  [new UserNotFoundError(), { status: 404, body: { code: 'user_not_found', message: 'no account has that id or address' } }],
  [new InvalidPasskeyError(), { status: 401, body: { code: 'invalid_passkey', message: 'the passkey could not be verified' } }],
  [new PasskeyNotFoundError(), { status: 404, body: { code: 'passkey_not_found', message: 'no such passkey' } }],
  [new ProviderNotFoundError(), { status: 404, body: { code: 'provider_not_found', message: 'no such sign-in provider is configured' } }],
  [new RedirectNotAllowedError(), { status: 400, body: { code: 'redirect_not_allowed', message: 'redirect_to is not one of the app origins this provider may return to' } }],
  [new InvalidOAuthStateError(), { status: 400, body: { code: 'invalid_oauth_state', message: 'this sign-in is unknown, expired, already finished or was started in another browser; start again' } }],
  [new ProviderRefusedServerError('id_token'), { status: 400, body: { code: 'provider_refused', message: 'the sign-in provider did not prove who you are; start again' } }],
  [new InvalidOAuthCodeError(), { status: 400, body: { code: 'invalid_oauth_code', message: 'the code is invalid, expired, already used, or its code_verifier is wrong; sign in again' } }],
  [new IdentityLinkRequiredError('handle'), { status: 409, body: { code: 'identity_link_required', message: 'an account with this email exists: sign in to it the usual way, then link this sign-in to it' } }],
  [new ProviderEmailUnverifiedError(), { status: 403, body: { code: 'provider_email_unverified', message: 'the sign-in provider did not verify an email address for you; verify it there, or register with a password' } }],
  [new IdentityNotFoundError(), { status: 404, body: { code: 'identity_not_found', message: 'no such identity on this account' } }],
  [new LastSignInMethodError(), { status: 409, body: { code: 'last_sign_in_method', message: 'this is the only way to sign in to this account; set a password or add a passkey first' } }],
  [new PasskeyLimitReachedError(10), { status: 409, body: { code: 'passkey_limit_reached', message: 'an account has at most 10 passkeys; remove one first' } }],
  [new PasskeysNotConfiguredError(), { status: 501, body: { code: 'passkeys_not_configured', message: 'passkeys are not configured on this server' } }],
  [new HttpError('method_not_allowed', 'use POST', { allow: 'POST' }), { status: 405, headers: { allow: 'POST' }, body: { code: 'method_not_allowed', message: 'use POST' } }],
  [new AccountExistsConflictError(), { status: 409, body: { code: 'account_exists', message: 'an account with this email already exists' } }],
  [new ConcurrentUpdateError(), { status: 409, body: { code: 'conflict', message: 'the password was changed concurrently; try again' } }],
  [new AccountChangedError(), { status: 409, body: { code: 'conflict', message: 'the account changed while its address was being switched; ask for a new link' } }],
  [new EmailTakenError(), { status: 409, body: { code: 'email_taken', message: 'this email address has an account now; the change was not made' } }],
  [new HttpError('payload_too_large', 'request body must be at most 8192 bytes'), { status: 413, body: { code: 'payload_too_large', message: 'request body must be at most 8192 bytes' } }],
  [new HttpError('unsupported_media_type', 'Content-Type must be application/json'), { status: 415, body: { code: 'unsupported_media_type', message: 'Content-Type must be application/json' } }],
  [new RateLimitedError(29.2), { status: 429, headers: { 'retry-after': '30' }, body: { code: 'rate_limited', message: 'too many attempts; try again later' } }],
  [
    new TemporarilyUnavailableError(0.2),
    { status: 503, headers: { 'retry-after': '1' }, body: { code: 'temporarily_unavailable', message: 'the service is temporarily unavailable; try again later' } },
  ],
  [new TokenHookUnavailableError(), { status: 503, headers: { 'retry-after': '5' }, body: { code: 'token_hook_unavailable', message: 'tokens cannot be issued right now; try again later' } }],
  [new SignupRefusedError('domain_not_allowed'), { status: 403, body: { code: 'signup_refused', message: 'this sign-up is not allowed', reason: 'domain_not_allowed' } }],
  [new SignupHookUnavailableError(), { status: 503, headers: { 'retry-after': '5' }, body: { code: 'signup_hook_unavailable', message: 'sign-ups cannot be checked right now; try again later' } }],
];

const UNAVAILABLE = { code: 'temporarily_unavailable', message: 'the service is temporarily unavailable; try again later' };
const INTERNAL = { status: 500, headers: { 'cache-control': 'no-store', 'content-type': 'application/json' }, body: '{"error":{"code":"internal_error","message":"internal error"}}' };

function answerTo(error: unknown) {
  const { status, headers, body } = toErrorResponse(mapError(error));
  const { 'cache-control': cacheControl, 'content-type': contentType, ...rest } = headers;
  expect({ cacheControl, contentType }).toEqual({ cacheControl: 'no-store', contentType: 'application/json' });
  return { status, ...(Object.keys(rest).length > 0 && { headers: rest }), body: JSON.parse(body ?? '{}').error as object };
}

describe('mapError', () => {
  it.each(ANSWERS.map(([error, answer]) => [error.code, error, answer] as const))('answers %s by the table', (_code, error, answer) => {
    expect(answerTo(error)).toEqual(answer);
  });

  it('has an answer above for every error class of the model, and a row for every code', () => {
    const classes = Object.values(accountErrors).filter((value) => typeof value === 'function' && value.prototype instanceof PasslaneServerError);
    const answered = new Set(ANSWERS.map(([error]) => error.constructor));
    expect(classes.filter((type) => !answered.has(type)).map((type) => type.name)).toEqual([]);
    // `mfa_required` is no error: POST /login writes it from the login's result (login-route.ts).
    expect(new Set(ANSWERS.map(([error]) => error.code))).toEqual(new Set(Object.keys(ERROR_TABLE).filter((code) => code !== 'internal_error' && code !== 'mfa_required')));
  });

  it('answers storage down and the secret store down at cold start 503 with Retry-After, and names neither', () => {
    const storage = new StorageUnavailableError('getUserByEmail', Object.assign(new Error('connect ECONNREFUSED'), { name: 'TimeoutError' }));
    const secrets = new SecretsUnavailableError('could not read PASSLANE_PEPPER_KEYS from parameter /passlane/pepper');
    for (const error of [storage, secrets]) expect(answerTo(error)).toEqual({ status: 503, headers: { 'retry-after': '2' }, body: UNAVAILABLE });
    expect(answerTo(new HasherOverloadedError('queue full', 3))).toEqual({ status: 503, headers: { 'retry-after': '3' }, body: UNAVAILABLE });
  });

  it('answers a password the hasher refuses as invalid_request, naming the field for the log only', () => {
    const mapped = mapError(new PasswordTooLongError('password must be at most 1024 bytes'));
    expect(mapped).toMatchObject({ status: 400, code: 'invalid_request', field: 'password' });
    expect(toErrorResponse(mapped).body).not.toContain('field');
  });

  it('answers anything else with the fixed 500 body: no message, name or code of it reaches the client', () => {
    const errors = [
      new Error('user@example.com not found'),
      new SecretLoadError('could not read PASSLANE_PEPPER_KEYS from parameter /x'),
      new ConfigError('PASSLANE_TABLE', 'is required'),
      Object.assign(new Error('boom'), { code: 'rate_limited' }),
      'a string',
      undefined,
    ];
    for (const error of errors) expect(toErrorResponse(mapError(error))).toEqual(INTERNAL);
  });

  it('answers a server error of a code outside the table (JavaScript ignoring the types) as 500', () => {
    class Stray extends PasslaneServerError {}
    expect(toErrorResponse(mapError(new Stray('no_such_code' as 'conflict', 'x')))).toEqual(INTERNAL);
  });
});

describe('the error table', () => {
  it('is the table in packages/server/src/api/README.md', async () => {
    const readme = await readFile(new URL('../packages/server/src/api/README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('\n## Errors'), readme.indexOf('\n## ', readme.indexOf('\n## Errors') + 1));
    const rows = section
      .split('\n')
      .filter((line) => /^\| `[a-z_]+` \| \d{3} \|/.test(line))
      .map((line) => line.split('|').slice(1, -1).map((cell) => cell.trim()));
    const documented = Object.fromEntries(
      rows.map(([code = '', status = '', headers = '', body = '', oauth = '']) => {
        const answer = {
          status: Number(status),
          ...(/^message always `(.*)`$/.test(body) && { message: /^message always `(.*)`$/.exec(body)![1] }),
          ...(headers !== '' && { headers: headers.split(', ').map((header) => header.replace(/`/g, '').split(':')[0]!.toLowerCase()) }),
          ...(/`reason`/.test(body) && { body: ['reason'] }),
          ...(oauth !== '' && { oauth: oauth.replace(/`/g, '') }),
        };
        return [code.replace(/`/g, ''), answer] as const;
      }),
    );
    expect(rows.map(([code]) => code?.replace(/`/g, ''))).toEqual(Object.keys(ERROR_TABLE));
    expect(documented).toEqual(JSON.parse(JSON.stringify(ERROR_TABLE)));
    expect(section).toContain('`WWW-Authenticate: Bearer`');
  });

  it("holds exactly openapi.yaml's error codes", () => {
    const codes: string[] = spec.components.schemas.Error.properties.error.properties.code.enum;
    expect(new Set(codes)).toEqual(new Set(Object.keys(ERROR_TABLE)));
  });
});
