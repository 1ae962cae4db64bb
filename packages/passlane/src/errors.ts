/**
 * Typed errors, one class per failure a caller may handle differently. Each carries a stable
 * `code` (like jose's `ERR_*` codes) so callers match on codes, not on messages.
 */
export class PasslaneError extends Error {
  readonly code: string = 'ERR_PASSLANE';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The stored value is not a format passlane knows. */
export class UnsupportedHashError extends PasslaneError {
  override readonly code = 'ERR_HASH_UNSUPPORTED';
}

/** The stored value looks like a known format but does not parse. */
export class MalformedHashError extends PasslaneError {
  override readonly code = 'ERR_HASH_MALFORMED';
}

/** The stored value parses, but its cost parameters exceed the configured bounds. */
export class HashParametersOutOfBoundsError extends PasslaneError {
  override readonly code = 'ERR_HASH_PARAMS_OUT_OF_BOUNDS';
}

/** The password is not a string, or is empty where one is required. */
export class InvalidPasswordError extends PasslaneError {
  override readonly code: string = 'ERR_PASSWORD_INVALID';
}

export class PasswordTooShortError extends InvalidPasswordError {
  override readonly code = 'ERR_PASSWORD_TOO_SHORT';
}

/** Rejected before any hashing, so absurd input costs nothing. */
export class PasswordTooLongError extends InvalidPasswordError {
  override readonly code = 'ERR_PASSWORD_TOO_LONG';
}

/** The hashing policy or another option is invalid (or weaker than OWASP without an override). */
export class InvalidOptionsError extends PasslaneError {
  override readonly code = 'ERR_OPTIONS_INVALID';
}

/** The stored value names a pepper key id this process does not hold, or fails authentication. */
export class PepperKeyError extends PasslaneError {
  override readonly code = 'ERR_PEPPER_KEY';
}

/** The requested backend cannot run here (e.g. the native binding failed to load). */
export class BackendUnavailableError extends PasslaneError {
  override readonly code = 'ERR_BACKEND_UNAVAILABLE';
}

/** Too many hashes in flight and the queue is full, or the wait timed out. Retry later. */
export class HasherOverloadedError extends PasslaneError {
  override readonly code = 'ERR_HASHER_OVERLOADED';

  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}
