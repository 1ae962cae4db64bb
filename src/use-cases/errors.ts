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
