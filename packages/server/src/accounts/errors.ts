import type { PasswordRejectionReason } from './audit-events.js';

/**
 * What a use-case can answer besides success, independent of HTTP. The HTTP layer maps each
 * class to a status; other runtimes (edge, CLI) map them their own way.
 */
export abstract class UseCaseError extends Error {
  abstract readonly code: string;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The request is malformed or a field is invalid (400). */
export class InvalidRequestError extends UseCaseError {
  readonly code = 'invalid_request';

  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

/** Unknown account and wrong password alike, so the answer reveals neither (401). */
export class InvalidCredentialsError extends UseCaseError {
  readonly code = 'invalid_credentials';

  constructor() {
    super('email or password is incorrect');
  }
}

/** Missing, expired or superseded access token (401). */
export class UnauthenticatedError extends UseCaseError {
  readonly code = 'unauthenticated';
}

export class AccountExistsConflictError extends UseCaseError {
  readonly code = 'account_exists';

  constructor() {
    super('an account with this email already exists');
  }
}

/** The password changed between our read and our write (409); the caller may retry. */
export class ConcurrentUpdateError extends UseCaseError {
  readonly code = 'conflict';

  constructor() {
    super('the password was changed concurrently; try again');
  }
}

export class RateLimitedError extends UseCaseError {
  readonly code = 'rate_limited';

  constructor(readonly retryAfterSeconds: number) {
    super('too many attempts; try again later');
  }
}

/** Storage down or the hasher saturated: answer 503 rather than decide without storage (503). */
export class TemporarilyUnavailableError extends UseCaseError {
  readonly code = 'temporarily_unavailable';

  constructor(
    readonly retryAfterSeconds: number,
    options?: { cause?: unknown },
  ) {
    super('the service is temporarily unavailable; try again later', options);
  }
}

/** A refresh token that is unknown, expired, of an ended session or not ours (401, RFC 6749's `invalid_grant`). */
export class InvalidGrantError extends UseCaseError {
  readonly code = 'invalid_grant';

  constructor() {
    super('the refresh token is invalid, expired or revoked');
  }
}

/** A spent refresh token came back after the grace window: the session is ended (401). */
export class RefreshTokenReusedError extends UseCaseError {
  readonly code = 'refresh_token_reused';

  constructor() {
    super('the refresh token was already used; the session has been ended');
  }
}

/** POST /token with a grant type other than refresh_token (400, RFC 6749 §5.2). */
export class UnsupportedGrantTypeError extends UseCaseError {
  readonly code = 'unsupported_grant_type';

  constructor() {
    super('grant_type must be refresh_token');
  }
}

/** No live session of the caller's account has this id (404). */
export class SessionNotFoundError extends UseCaseError {
  readonly code = 'session_not_found';

  constructor() {
    super('no such session');
  }
}

/** `DELETE /devices/{id}` of no known device of the caller's account (404, `device_not_found`). */
export class DeviceNotFoundError extends UseCaseError {
  readonly code = 'device_not_found';

  constructor() {
    super('no such device');
  }
}

/** A reset or verification token that is unknown, used, expired or voided (400, `invalid_token`). */
export class InvalidOneTimeTokenError extends UseCaseError {
  readonly code = 'invalid_token';

  constructor() {
    super('the link is invalid, expired or already used; ask for a new one');
  }
}

/** A correct password on an account whose email is not verified yet, where verification is required (403). */
export class EmailNotVerifiedError extends UseCaseError {
  readonly code = 'email_not_verified';

  constructor() {
    super('the email address is not verified yet; a new verification link has been sent');
  }
}

/**
 * A new password the rules refuse (400 `password_rejected`, src/passwords): `reason` is one of
 * `too_short`, `too_long`, `common`, `breached`, `context`; the message says what to do instead.
 */
export class PasswordRejectedError extends UseCaseError {
  readonly code = 'password_rejected';

  constructor(
    readonly reason: PasswordRejectionReason,
    message: string,
  ) {
    super(message);
  }
}
