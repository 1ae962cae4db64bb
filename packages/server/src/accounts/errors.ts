import type { PasswordRejectionReason } from './audit-events.js';

export type { PasswordRejectionReason };

/**
 * The server's one error model. Every error the API answers is a PasslaneServerError: `code` is
 * the API's error code (the body's `error.code`, which clients branch on), the message is for a
 * person and never holds an email, password, hash or token. How a code is answered over HTTP
 * (status, headers, body) is one table, src/api/error-table.ts; use cases know no HTTP, and
 * other hosts (the CLI, jobs) read `code`. The hashing core keeps its own base (PasslaneError,
 * `ERR_*` codes), as do the internal errors that never reach a client (storage's lost races,
 * mail, import rows, settings); translate-errors.ts turns the few a use case meets into these.
 */

/** Every code the API answers; the error table gives each its status (README.md in src/api lists them). */
export type ErrorCode =
  | 'invalid_request'
  | 'invalid_json'
  | 'password_rejected'
  | 'unsupported_grant_type'
  | 'invalid_token'
  | 'invalid_credentials'
  | 'invalid_grant'
  | 'refresh_token_reused'
  | 'unauthenticated'
  | 'insufficient_scope'
  | 'insufficient_user_authentication'
  | 'reauthentication_required'
  | 'mfa_required'
  | 'invalid_mfa_token'
  | 'invalid_mfa_code'
  | 'factor_suspended'
  | 'mfa_already_enabled'
  | 'mfa_not_enabled'
  | 'invalid_passkey'
  | 'passkey_not_found'
  | 'passkey_limit_reached'
  | 'passkeys_not_configured'
  | 'email_not_verified'
  | 'account_disabled'
  | 'provider_not_found'
  | 'redirect_not_allowed'
  | 'invalid_oauth_state'
  | 'provider_refused'
  | 'invalid_oauth_code'
  | 'identity_link_required'
  | 'provider_email_unverified'
  | 'identity_not_found'
  | 'last_sign_in_method'
  | 'not_found'
  | 'session_not_found'
  | 'device_not_found'
  | 'user_not_found'
  | 'method_not_allowed'
  | 'account_exists'
  | 'conflict'
  | 'email_taken'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'internal_error'
  | 'temporarily_unavailable'
  | 'token_hook_unavailable'
  | 'signup_refused'
  | 'signup_hook_unavailable';


/** What an error may carry besides its code and message; the error table says which parts are answered. */
export interface ErrorDetails {
  /** The request field at fault: logged (its name only), not answered. */
  field?: string;
  /** Why, as a word from a closed list (`password_rejected`'s rule). */
  reason?: string;
  /** How long a client should wait before trying again (Retry-After). */
  retryAfterSeconds?: number;
  /** The methods the path serves (Allow). */
  allow?: string;
  cause?: unknown;
}

/** The base of every error the API answers: a named subclass says which, and its code how. */
export abstract class PasslaneServerError extends Error {
  readonly code: ErrorCode;
  // Declared, not initialised: an error carries only the details it was given (logs and
  // toMatchObject see no `undefined` fields).
  declare readonly field?: string;
  declare readonly reason?: string;
  declare readonly retryAfterSeconds?: number;
  declare readonly allow?: string;

  constructor(code: ErrorCode, message: string, { field, reason, retryAfterSeconds, allow, cause }: ErrorDetails = {}) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = new.target.name;
    this.code = code;
    if (field !== undefined) this.field = field;
    if (reason !== undefined) this.reason = reason;
    if (retryAfterSeconds !== undefined) this.retryAfterSeconds = retryAfterSeconds;
    if (allow !== undefined) this.allow = allow;
  }
}

/** The request is malformed or a field is invalid. */
export class InvalidRequestError extends PasslaneServerError {
  constructor(message: string, field?: string) {
    super('invalid_request', message, { field });
  }
}

/** Unknown account and wrong password alike, so the answer reveals neither. */
export class InvalidCredentialsError extends PasslaneServerError {
  constructor() {
    super('invalid_credentials', 'email or password is incorrect');
  }
}

/** Missing, expired or superseded access token. */
export class UnauthenticatedError extends PasslaneServerError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('unauthenticated', message, options);
  }
}

/**
 * A live session's access token without the scope this API requires (PASSLANE_REQUIRED_SCOPE):
 * RFC 6750 §3.1's `insufficient_scope`. A new token would carry the same scopes, so it is not
 * `unauthenticated` (which tells a client to refresh or sign in again).
 */
export class InsufficientScopeError extends PasslaneServerError {
  constructor() {
    super('insufficient_scope', 'the access token does not carry the scope this API requires');
  }
}

export class AccountExistsConflictError extends PasslaneServerError {
  constructor() {
    super('account_exists', 'an account with this email already exists');
  }
}

/** The password changed between our read and our write; the caller may retry. */
export class ConcurrentUpdateError extends PasslaneServerError {
  constructor() {
    super('conflict', 'the password was changed concurrently; try again');
  }
}

/**
 * A change of address's link used while its address got an account (another account's change,
 * or a registration, since the link was mailed): the holder of the link proved that mailbox, so
 * being told it is taken tells them nothing of anyone else's. One mailbox stays one account.
 */
export class EmailTakenError extends PasslaneServerError {
  constructor() {
    super('email_taken', 'this email address has an account now; the change was not made');
  }
}

/** The account changed (its password, its factors) or went while its address was being switched. */
export class AccountChangedError extends PasslaneServerError {
  constructor() {
    super('conflict', 'the account changed while its address was being switched; ask for a new link');
  }
}

export class RateLimitedError extends PasslaneServerError {
  declare readonly retryAfterSeconds: number;

  constructor(retryAfterSeconds: number) {
    super('rate_limited', 'too many attempts; try again later', { retryAfterSeconds });
  }
}

/** Storage down or the hasher saturated: no decision without them. */
export class TemporarilyUnavailableError extends PasslaneServerError {
  declare readonly retryAfterSeconds: number;

  constructor(retryAfterSeconds: number, options?: { cause?: unknown }) {
    super('temporarily_unavailable', 'the service is temporarily unavailable; try again later', { retryAfterSeconds, cause: options?.cause });
  }
}

/** A hook that failed is asked again after this: long enough for a restart, short for a person waiting. */
const HOOK_RETRY_AFTER_SECONDS = 5;

/**
 * The token hook (src/hooks) gave no usable answer and the deployment refuses tokens without its
 * claims (PASSLANE_TOKEN_HOOK_ON_FAILURE=refuse, the default): the claims may carry authorization.
 */
export class TokenHookUnavailableError extends PasslaneServerError {
  declare readonly retryAfterSeconds: number;

  constructor(options?: { cause?: unknown }) {
    super('token_hook_unavailable', 'tokens cannot be issued right now; try again later', { retryAfterSeconds: HOOK_RETRY_AFTER_SECONDS, cause: options?.cause });
  }
}

/** The sign-up hook refused the account; `reason` is the hook's own code, answered as it is. */
export class SignupRefusedError extends PasslaneServerError {
  declare readonly reason: string;

  constructor(reason: string) {
    super('signup_refused', 'this sign-up is not allowed', { reason });
  }
}

/** The sign-up hook gave no usable answer: no account is created unasked. */
export class SignupHookUnavailableError extends PasslaneServerError {
  declare readonly retryAfterSeconds: number;

  constructor(options?: { cause?: unknown }) {
    super('signup_hook_unavailable', 'sign-ups cannot be checked right now; try again later', { retryAfterSeconds: HOOK_RETRY_AFTER_SECONDS, cause: options?.cause });
  }
}

/** A refresh token that is unknown, expired, of an ended session or not ours (RFC 6749's `invalid_grant`). */
export class InvalidGrantError extends PasslaneServerError {
  constructor() {
    super('invalid_grant', 'the refresh token is invalid, expired or revoked');
  }
}

/**
 * A spent refresh token came back after the grace window: the session is ended. Answered as
 * RFC 6749's `invalid_grant` (the token endpoint's error body); its own code is for the log.
 */
export class RefreshTokenReusedError extends PasslaneServerError {
  constructor() {
    super('refresh_token_reused', 'the refresh token was already used; the session has been ended');
  }
}

/** POST /token with a grant type other than refresh_token (RFC 6749 §5.2). */
export class UnsupportedGrantTypeError extends PasslaneServerError {
  constructor() {
    super('unsupported_grant_type', 'grant_type must be refresh_token');
  }
}

/** No live session of the caller's account has this id. */
export class SessionNotFoundError extends PasslaneServerError {
  constructor() {
    super('session_not_found', 'no such session');
  }
}

/** `DELETE /devices/{id}` of no known device of the caller's account. */
export class DeviceNotFoundError extends PasslaneServerError {
  constructor() {
    super('device_not_found', 'no such device');
  }
}

/** A reset, verification or device approval link that is unknown, used, expired or voided (or, for a device approval, presented without the asking client's secret). */
export class InvalidOneTimeTokenError extends PasslaneServerError {
  constructor() {
    super('invalid_token', 'the link is invalid, expired or already used; ask for a new one');
  }
}

/** A correct password on an account whose email is not verified yet, where verification is required. */
export class EmailNotVerifiedError extends PasslaneServerError {
  constructor() {
    super('email_not_verified', 'the email address is not verified yet; a new verification link has been sent');
  }
}

/** A right secret on an account an operator disabled: told only after the secret verified, so strangers learn nothing. */
export class AccountDisabledError extends PasslaneServerError {
  constructor() {
    super('account_disabled', 'this account is disabled; contact support');
  }
}

/** An operator named no account: no account has that id (or address). Operators only: the public API never tells. */
export class UserNotFoundError extends PasslaneServerError {
  constructor() {
    super('user_not_found', 'no account has that id or address');
  }
}

/** A sign-in with a provider this deployment does not configure (features/federation). */
export class ProviderNotFoundError extends PasslaneServerError {
  constructor() {
    super('provider_not_found', 'no such sign-in provider is configured');
  }
}

/** A `redirect_to` whose origin is not one the provider's settings allow: no open redirect. */
export class RedirectNotAllowedError extends PasslaneServerError {
  constructor() {
    super('redirect_not_allowed', 'redirect_to is not one of the app origins this provider may return to', { field: 'redirect_to' });
  }
}

/** A provider's callback whose `state` is unknown, used, expired, of another provider, or of another browser. */
export class InvalidOAuthStateError extends PasslaneServerError {
  constructor() {
    super('invalid_oauth_state', 'this sign-in is unknown, expired, already finished or was started in another browser; start again');
  }
}

/** The provider's answer was refused (its error, a bad ID token, a failed code exchange); `reason` is audited. */
export class ProviderRefusedServerError extends PasslaneServerError {
  constructor(reason: string, options?: { cause?: unknown }) {
    super('provider_refused', 'the sign-in provider did not prove who you are; start again', { reason, ...options });
  }
}

/** An app code that is unknown, expired, used, or presented without the verifier of its `code_challenge`. */
export class InvalidOAuthCodeError extends PasslaneServerError {
  constructor() {
    super('invalid_oauth_code', 'the code is invalid, expired, already used, or its code_verifier is wrong; sign in again');
  }
}

/**
 * The provider's verified email has an account that this identity is not linked to: nothing is
 * linked silently. The answer carries `linkToken`: after a login of that account, POST
 * /identities/link with it links the identity.
 */
export class IdentityLinkRequiredError extends PasslaneServerError {
  constructor(readonly linkToken: string) {
    super('identity_link_required', 'an account with this email exists: sign in to it the usual way, then link this sign-in to it');
  }
}

/** The provider gave no email it verified: no account is made for it and none is linked by email. */
export class ProviderEmailUnverifiedError extends PasslaneServerError {
  constructor() {
    super('provider_email_unverified', 'the sign-in provider did not verify an email address for you; verify it there, or register with a password');
  }
}

/** DELETE /identities/{id} of no identity of the caller's account. */
export class IdentityNotFoundError extends PasslaneServerError {
  constructor() {
    super('identity_not_found', 'no such identity on this account');
  }
}

/** Removing the one identity of an account with no password and no passkey: it would lock the account. */
export class LastSignInMethodError extends PasslaneServerError {
  constructor() {
    super('last_sign_in_method', 'this is the only way to sign in to this account; set a password or add a passkey first');
  }
}

/**
 * A new password the rules refuse (src/features/password/rules): the message says what to do
 * instead, never the password.
 */
export class PasswordRejectedError extends PasslaneServerError {
  declare readonly reason: PasswordRejectionReason;

  constructor(reason: PasswordRejectionReason, message: string) {
    super('password_rejected', message, { reason });
  }
}

/** The second factors a login may finish with (POST /login/mfa's `method`). */
export type MfaMethod = 'totp' | 'recovery_code' | 'webauthn';

/** An MFA token that is unknown, expired, used, or dead after too many wrong codes: log in again. */
export class InvalidMfaTokenError extends PasslaneServerError {
  constructor() {
    super('invalid_mfa_token', 'the MFA token is invalid, expired or used up; log in again');
  }
}

/** A TOTP or recovery code that is wrong, replayed or already used. */
export class InvalidMfaCodeError extends PasslaneServerError {
  constructor() {
    super('invalid_mfa_code', 'the code is wrong or was already used');
  }
}

/**
 * This kind of second factor had too many wrong attempts over its life (NIST SP 800-63B-4
 * §3.2.2): it is not checked again until the owner proves control another way (a recovery code,
 * another factor, or a password reset from their mailbox).
 */
export class FactorSuspendedError extends PasslaneServerError {
  constructor() {
    super('factor_suspended', 'too many wrong attempts with this factor; use a recovery code or another factor, or reset the password by mail');
  }
}

/** Changing second factors needs a login within the last few minutes: log in again, then retry. */
export class ReauthenticationRequiredError extends PasslaneServerError {
  constructor() {
    super('reauthentication_required', 'this needs a recent login; log in again and retry');
  }
}

/**
 * With PASSLANE_REQUIRE_MFA: a live session's token whose login used no second factor (`mfa`
 * not in `amr`). RFC 9470's `insufficient_user_authentication`.
 */
export class InsufficientUserAuthenticationError extends PasslaneServerError {
  constructor() {
    super('insufficient_user_authentication', 'this API requires a login with a second factor');
  }
}

/** POST /mfa/totp on an account whose TOTP is already active: remove it first. */
export class MfaAlreadyEnabledError extends PasslaneServerError {
  constructor() {
    super('mfa_already_enabled', 'TOTP is already active on this account; remove it first');
  }
}

/** No TOTP to act on: none active (regenerate, remove), or no enrolment waiting (confirm). */
export class MfaNotEnabledError extends PasslaneServerError {
  constructor(message = 'TOTP is not active on this account') {
    super('mfa_not_enabled', message);
  }
}

/**
 * A passkey's answer refused: unknown credential, bad signature, used or expired challenge,
 * another origin or RP ID, a counter gone back, a changed backup eligibility, a credential
 * registered already. One answer for all, so it tells a prober nothing.
 */
export class InvalidPasskeyError extends PasslaneServerError {
  constructor() {
    super('invalid_passkey', 'the passkey could not be verified');
  }
}

/** No passkey of the caller's account has this id. */
export class PasskeyNotFoundError extends PasslaneServerError {
  constructor() {
    super('passkey_not_found', 'no such passkey');
  }
}

/** The account has as many passkeys as allowed: remove one first. */
export class PasskeyLimitReachedError extends PasslaneServerError {
  constructor(max: number) {
    super('passkey_limit_reached', `an account has at most ${max} passkeys; remove one first`);
  }
}

/** This deployment has no relying party (PASSLANE_WEBAUTHN_RP_ID and _ORIGINS unset): no passkey route works. */
export class PasskeysNotConfiguredError extends PasslaneServerError {
  constructor() {
    super('passkeys_not_configured', 'passkeys are not configured on this server');
  }
}
