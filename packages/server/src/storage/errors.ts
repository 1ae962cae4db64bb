/**
 * Typed storage errors. Callers branch on `code` (a stable string, like jose's errors) or on
 * `instanceof`; messages never contain emails or hashes, so they are safe to log.
 */
export type StorageErrorCode =
  | 'ERR_STORAGE_UNAVAILABLE'
  | 'ERR_STORAGE_ACCOUNT_EXISTS'
  | 'ERR_STORAGE_HASH_CHANGED'
  | 'ERR_STORAGE_RECORD_INVALID'
  | 'ERR_STORAGE_CURSOR_CHANGED';

export abstract class StorageError extends Error {
  abstract readonly code: StorageErrorCode;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/**
 * DynamoDB could not be reached or did not answer usefully (network, timeout, 5xx, throttling
 * after retries, missing table, ...). Use cases answer it `temporarily_unavailable`
 * (accounts/translate-errors.ts): auth is never decided without storage. `cause` keeps the SDK
 * error for logs.
 */
export class StorageUnavailableError extends StorageError {
  readonly code = 'ERR_STORAGE_UNAVAILABLE';
  /** The store operation that failed, e.g. 'getUserByEmail'. */
  readonly operation: string;

  constructor(operation: string, cause: unknown) {
    super(`storage unavailable during ${operation}: ${describeCause(cause)}`, { cause });
    this.operation = operation;
  }
}

/** createUser lost to an existing account with the same email (conditional put failed). */
export class AccountExistsError extends StorageError {
  readonly code = 'ERR_STORAGE_ACCOUNT_EXISTS';

  constructor(options?: { cause?: unknown }) {
    super('an account with this email already exists', options);
  }
}

/**
 * replacePasswordHash lost a race: the stored hash is no longer the one the caller read (another
 * password change or rehash got there first), or the account is gone. The caller's view is stale.
 */
export class HashChangedError extends StorageError {
  readonly code = 'ERR_STORAGE_HASH_CHANGED';

  constructor(options?: { cause?: unknown }) {
    super('the stored password hash changed since it was read', options);
  }
}

/** A stored item lacks required attributes or has the wrong types (data corruption, not outage). */
export class StorageRecordInvalidError extends StorageError {
  readonly code = 'ERR_STORAGE_RECORD_INVALID';

  constructor(detail: string) {
    super(`stored record is invalid: ${detail}`);
  }
}

/**
 * JobCursorStore.put lost a race: the stored job cursor is no longer the one this run last read or
 * wrote, so another run of the same job is moving it. This run stops rather than fight.
 */
export class JobCursorChangedError extends StorageError {
  readonly code = 'ERR_STORAGE_CURSOR_CHANGED';

  constructor(options?: { cause?: unknown }) {
    super('the stored job cursor changed since it was read (another run is active)', options);
  }
}

/** SDK error name (+ HTTP status) only: SDK messages can echo request values. */
function describeCause(cause: unknown): string {
  if (cause instanceof Error) {
    const status = (cause as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    const code = (cause as { code?: unknown }).code;
    const parts = [cause.name];
    if (typeof code === 'string' && code !== cause.name) parts.push(code);
    if (status !== undefined) parts.push(`HTTP ${status}`);
    return parts.join(' ');
  }
  return 'unknown error';
}
