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
 * What stood in the way, where the SDK's error tells: the setup (no region, no credentials,
 * credentials refused, access denied, no such table), or the way there (nothing answered at the
 * endpoint, a timeout). `other`: a 5xx, throttling after retries, anything else.
 */
export type StorageUnavailableReason = 'no_region' | 'no_credentials' | 'credentials_refused' | 'access_denied' | 'no_table' | 'unreachable' | 'other';

/**
 * DynamoDB could not be reached or did not answer usefully (network, timeout, 5xx, throttling
 * after retries, missing table, ...). Use cases answer it `temporarily_unavailable`
 * (accounts/translate-errors.ts): auth is never decided without storage. `cause` keeps the SDK
 * error for logs; `reason` says what of the setup to fix, where that is known (the CLI prints a
 * hint from it).
 */
export class StorageUnavailableError extends StorageError {
  readonly code = 'ERR_STORAGE_UNAVAILABLE';
  /** The store operation that failed, e.g. 'getUserByEmail'. */
  readonly operation: string;
  readonly reason: StorageUnavailableReason;

  constructor(operation: string, cause: unknown) {
    const reason = reasonOf(cause);
    const known = REASON_TEXT[reason];
    super(`storage unavailable during ${operation}: ${describeCause(cause)}${known === undefined ? '' : ` (${known})`}`, { cause });
    this.operation = operation;
    this.reason = reason;
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

/** Said after the SDK's error name, which alone (`Error`, `CredentialsProviderError`) tells a reader little. */
const REASON_TEXT: Partial<Record<StorageUnavailableReason, string>> = {
  no_region: 'no AWS region is configured',
  no_credentials: 'no AWS credentials were found',
  credentials_refused: 'AWS refused the credentials',
  access_denied: 'the credentials may not do this',
  no_table: 'the table does not exist',
  unreachable: 'nothing answered at the endpoint',
};

// The SDK's own messages for a client without a usable region (plain Errors): about configuration, not
// a request, so safe to match and quote. `Region not accepted: region="" ...` is AWS_REGION set blank.
const NO_REGION = /^Region (is missing|not accepted: region="[^"]{0,64}" is not a valid hostname component\.)$/;
const CREDENTIALS_REFUSED = new Set(['UnrecognizedClientException', 'InvalidSignatureException', 'ExpiredTokenException', 'InvalidClientTokenId', 'SignatureDoesNotMatch']);
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET', 'ETIMEDOUT', 'TimeoutError']);

function reasonOf(cause: unknown): StorageUnavailableReason {
  if (!(cause instanceof Error)) return 'other';
  const code = (cause as { code?: unknown }).code;
  if (cause.name === 'Error' && NO_REGION.test(cause.message)) return 'no_region';
  if (cause.name === 'CredentialsProviderError') return 'no_credentials';
  if (CREDENTIALS_REFUSED.has(cause.name)) return 'credentials_refused';
  if (cause.name === 'AccessDeniedException') return 'access_denied';
  if (cause.name === 'ResourceNotFoundException') return 'no_table';
  if (UNREACHABLE.has(cause.name) || (typeof code === 'string' && UNREACHABLE.has(code))) return 'unreachable';
  return 'other';
}

/** SDK error name (+ code, HTTP status) only: SDK messages can echo request values. */
function describeCause(cause: unknown): string {
  if (cause instanceof Error) {
    const status = (cause as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    const code = (cause as { code?: unknown }).code;
    const parts = [cause.name === 'Error' && NO_REGION.test(cause.message) ? `Error: ${cause.message}` : cause.name];
    if (typeof code === 'string' && code !== cause.name) parts.push(code);
    if (status !== undefined) parts.push(`HTTP ${status}`);
    return parts.join(' ');
  }
  return 'unknown error';
}
